import type { FileContext } from "../context.ts";
import { isUntyped, memberCalls } from "../resolve.ts";
import { SECTIONS } from "../tables/sections.ts";

/**
 * `span.setTraceIO({ input, output })` -> `span.update({ input, output })`: in v6 the trace's input and output are
 * those of its root observation, so the rewrite keeps the behaviour when `span` is the root (marked for review).
 * `setActiveTraceIO` and `createTraceAttributes` are imports, rewritten or marked with the other imports.
 */
export function rewriteTraceIO(ctx: FileContext): void {
  for (const { callee, declaration } of memberCalls(ctx.sourceFile, "setTraceIO")) {
    if (declaration === "unknown" ? !isUntyped(callee.getExpression()) : declaration.pkg !== "tracing") continue;
    if (/\bLangfuseEvent\b/.test(callee.getExpression().getType().getText())) {
      ctx.leave(callee.getNameNode(), "trace-io", {
        message: "an event has no update() in v6: set input and output on the root observation",
        section: SECTIONS.traceIO,
      });
      continue;
    }
    ctx.replaceNode(callee.getNameNode(), "update");
    ctx.changed("trace-io");
    ctx.review(callee.getNameNode(), "trace-io", {
      message: "sets the input and output of the trace only when this observation is the trace's root",
      section: SECTIONS.traceIO,
    });
  }
}
