import { type CallExpression, Node } from "ts-morph";
import type { FileContext } from "../context.ts";
import { isUntyped, memberCalls } from "../resolve.ts";
import { SECTIONS } from "../tables/sections.ts";

/**
 * `span.setTraceIO({ input, output })` -> `span.update({ input, output })`: in v6 the trace's input and output are
 * those of its root observation, so the rewrite keeps the behaviour when `span` is the root (marked for review).
 * `setActiveTraceIO` and `createTraceAttributes` are imports, rewritten or marked with the other imports.
 */
export function rewriteTraceIO(ctx: FileContext): void {
  for (const { call, callee, declaration } of memberCalls(ctx.sourceFile, "setTraceIO")) {
    // Without types, only in a file that uses the v5 packages: an untyped `x.setTraceIO()` elsewhere is not the SDK's.
    const byName = ctx.referencesV5 && isUntyped(callee.getExpression());
    if (declaration === "unknown" ? !byName : declaration.pkg !== "tracing") continue;
    if (/\bLangfuseEvent\b/.test(callee.getExpression().getType().getText())) {
      ctx.leave(callee.getNameNode(), "trace-io", {
        message: "an event has no update() in v6: set input and output on the root observation",
        section: SECTIONS.traceIO,
      });
      continue;
    }
    const twin = adjacentTwin(call, `${callee.getExpression().getText()}.update`);
    ctx.changed("trace-io");
    if (twin) {
      // `span.update(io); span.setTraceIO(io);` would become the same update twice: keep one.
      const statement = call.getParentOrThrow();
      ctx.replace(statement.getStartLinePos(), lineEndAfter(ctx, statement.getEnd()), "");
      ctx.review(twin, "trace-io", {
        message:
          "a setTraceIO(...) with the same values next to this update() was removed; this update() sets the trace's input and output only when this observation is the trace's root",
        section: SECTIONS.traceIO,
      });
      continue;
    }
    ctx.replaceNode(callee.getNameNode(), "update");
    ctx.review(callee.getNameNode(), "trace-io", {
      message: "sets the input and output of the trace only when this observation is the trace's root",
      section: SECTIONS.traceIO,
    });
  }
}

/**
 * The statement right before or after the statement `call`, when it calls `updateCallee` (`span.update`) with the same
 * arguments, as text: the update the rewritten `call` would repeat. Only for a call that is a statement of its own.
 */
function adjacentTwin(call: CallExpression, updateCallee: string): Node | undefined {
  const statement = call.getParent();
  if (!statement || !Node.isExpressionStatement(statement) || statement.getExpression() !== call) return undefined;
  const args = call.getArguments().map((arg) => arg.getText());
  const same = (node: Node | undefined) => {
    if (!node || !Node.isExpressionStatement(node)) return false;
    const other = node.getExpression();
    return (
      Node.isCallExpression(other) &&
      other.getExpression().getText() === updateCallee &&
      sameTexts(
        other.getArguments().map((arg) => arg.getText()),
        args,
      )
    );
  };
  const before = statement.getPreviousSibling();
  if (same(before)) return before;
  const after = statement.getNextSibling();
  return same(after) ? after : undefined;
}

function sameTexts(a: string[], b: string[]): boolean {
  const squeeze = (text: string) => text.replace(/\s+/g, "");
  return a.length === b.length && a.every((text, i) => squeeze(text) === squeeze(b[i] ?? ""));
}

/** The position after the line break that follows `position`, or `position` when no line break follows. */
function lineEndAfter(ctx: FileContext, position: number): number {
  const text = ctx.sourceFile.getFullText();
  if (text.startsWith(ctx.newline, position)) return position + ctx.newline.length;
  return position;
}
