import { Node, type PropertyAccessExpression } from "ts-morph";
import type { FileContext, RuleId } from "../context.ts";
import { declarationOf, isUntyped, originOf } from "../resolve.ts";
import { CLIENT_ALIASES } from "../tables/api.ts";
import type { Note } from "../tables/exports.ts";
import { own } from "../tables/own.ts";
import { SECTIONS } from "../tables/sections.ts";
import { V4_METHODS } from "../tables/v4-names.ts";

const TRACE_IO: Note = {
  message:
    "setTraceIO() was removed: the trace's input and output are those of its root observation; call update({ input, output }) on the root",
  section: SECTIONS.traceIO,
};

const ACTIVE_TRACE_IO: Note = {
  message:
    "setActiveTraceIO() was removed: call updateActiveObservation({ input, output }) while the root observation is active",
  section: SECTIONS.traceIO,
};

/**
 * Marks calls of methods v6 no longer has, found by their names where the types do not tell: the receiver is typed by
 * the user's own interface or cast (`(startObservation("r") as unknown as Root).setTraceIO(io)`), or the method is a
 * v4 one (`span.updateTrace()`) that the v5 declarations do not know either. Methods the user's code implements, and
 * those other libraries declare, are left alone; calls the types recognize are rewritten by the other rules.
 */
export function markRemovedMethods(ctx: FileContext): void {
  ctx.sourceFile.forEachDescendant((node) => {
    if (!Node.isCallExpression(node)) return;
    const callee = node.getExpression();
    if (!Node.isPropertyAccessExpression(callee)) return;
    const name = callee.getName();
    const v4 = own(V4_METHODS, name);
    if (v4) mark(ctx, callee, "removed-methods", v4, notOnModule);
    else if (name === "setTraceIO") mark(ctx, callee, "trace-io", TRACE_IO, (c) => !isUntyped(c.getExpression()));
    else if (name === "setActiveTraceIO") mark(ctx, callee, "trace-io", ACTIVE_TRACE_IO, notOnModule);
    else if (name === "link" && ctx.referencesV5 && [2, 3].includes(node.getArguments().length)) {
      mark(ctx, callee, "dataset-link", LINK, () => false);
    } else if (ctx.referencesV5) {
      const alias = own(CLIENT_ALIASES, name);
      if (!alias) return;
      const target = "manager" in alias ? alias.manager : `api.${alias.api}`;
      const note = {
        message: `if this is the SDK's client: ${name}() was removed, use ${target}() (check the arguments)`,
        section: SECTIONS.aliases,
      };
      mark(ctx, callee, "client-aliases", note, () => false);
    }
  });
}

const LINK: Note = {
  message:
    "if this is a dataset item: items have no link() in v6; run the items with dataset.runExperiment({ name, task, evaluators })",
  section: SECTIONS.datasetRuns,
};

/** `tracing.setActiveTraceIO()` on a module object is an import, renamed by the import rule. */
function notOnModule(callee: PropertyAccessExpression): boolean {
  return originOf(callee.getExpression()) === "unknown";
}

/**
 * Marks a call of a removed method when it is declared only by signatures in the user's own files (an interface, a
 * type, a cast), or, in a file that imports a v5 package, when the types know no such method and `whenUnknown` says
 * the other rules leave the call here.
 * Left alone: methods the user's code implements, those other libraries declare, and the v5 ones (the type-driven
 * rules handle those).
 */
function mark(
  ctx: FileContext,
  callee: PropertyAccessExpression,
  rule: RuleId,
  note: Note,
  whenUnknown: (callee: PropertyAccessExpression) => boolean,
): void {
  const declaration = declarationOf(callee.getNameNode());
  const marked =
    declaration === "unknown"
      ? ctx.referencesV5 && whenUnknown(callee)
      : declaration === "other" && signaturesOnly(callee) && madeBySdk(callee.getExpression(), 0);
  if (marked) ctx.leave(callee.getNameNode(), rule, note);
}

/** Whether the method is declared only by signatures in the user's own files (no implementation, no library). */
function signaturesOnly(callee: PropertyAccessExpression): boolean {
  const declarations = callee.getNameNode().getSymbol()?.getDeclarations() ?? [];
  return (
    declarations.length > 0 &&
    declarations.every((node) => {
      const file = node.getSourceFile();
      if (file.isDeclarationFile() || file.isInNodeModules()) return false;
      return Node.isMethodSignature(node) || Node.isPropertySignature(node);
    })
  );
}

/**
 * Whether an expression holds a value the SDK made, through casts, parentheses and variables: a call or `new` of an
 * import of a @langfuse or @svc package (`startObservation("r") as unknown as Root`). The user's own interfaces over
 * values of their own (a parameter typed `Recorder`) are not the SDK's.
 */
function madeBySdk(expression: Node, hops: number): boolean {
  let current = expression;
  while (
    Node.isParenthesizedExpression(current) ||
    Node.isAsExpression(current) ||
    Node.isTypeAssertion(current) ||
    Node.isSatisfiesExpression(current) ||
    Node.isNonNullExpression(current) ||
    Node.isAwaitExpression(current)
  ) {
    current = current.getExpression();
  }
  if (Node.isCallExpression(current) || Node.isNewExpression(current)) {
    let callee: Node = current.getExpression();
    while (Node.isPropertyAccessExpression(callee)) callee = callee.getExpression();
    return Node.isIdentifier(callee) && originOf(callee) !== "unknown";
  }
  if (Node.isPropertyAccessExpression(current)) return madeBySdk(current.getExpression(), hops);
  if (!Node.isIdentifier(current) || hops >= 8) return false;
  if (originOf(current) !== "unknown") return true;
  const declaration = current.getSymbol()?.getDeclarations()[0];
  const initializer = Node.isVariableDeclaration(declaration) ? declaration.getInitializer() : undefined;
  return initializer !== undefined && madeBySdk(initializer, hops + 1);
}
