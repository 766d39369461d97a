import { type CallExpression, Node, type Type } from "ts-morph";
import type { FileContext } from "../context.ts";
import type { Note } from "../tables/exports.ts";
import { SECTIONS } from "../tables/sections.ts";

const NO_ID: Note = {
  message: "the response of api.scores.create() has no id: give the score an id before sending it and use that",
  section: SECTIONS.scores,
};

/**
 * Marks every read of `id` from the response of a v5 score creation: by its type (`CreateScoreResponse` of
 * @langfuse/core) anywhere in the file, and around the `calls` that were recognized by their names only.
 */
export function markScoreIdReads(ctx: FileContext, calls: readonly CallExpression[]): void {
  ctx.sourceFile.forEachDescendant((node) => {
    if (
      Node.isPropertyAccessExpression(node) &&
      node.getName() === "id" &&
      isScoreResponse(node.getExpression().getType())
    ) {
      ctx.leave(node.getNameNode(), "scores", NO_ID);
    } else if (Node.isObjectBindingPattern(node) && isScoreResponse(node.getType())) {
      markIdElement(ctx, node);
    }
  });
  for (const call of calls) markAroundCall(ctx, call);
}

function isScoreResponse(type: Type): boolean {
  const symbol = type.getSymbol() ?? type.getAliasSymbol();
  if (symbol?.getName() !== "CreateScoreResponse") return false;
  return symbol.getDeclarations().some((d) => /[\\/]@langfuse[\\/]core[\\/]/.test(d.getSourceFile().getFilePath()));
}

function markIdElement(ctx: FileContext, pattern: Node): void {
  if (!Node.isObjectBindingPattern(pattern)) return;
  for (const element of pattern.getElements()) {
    const property = element.getPropertyNameNode() ?? element.getNameNode();
    if (property.getText() === "id") ctx.leave(element, "scores", NO_ID);
  }
}

/** Reads of `id` next to a call recognized by name: `(await call).id`, `const { id } = await call`, `r.id`. */
function markAroundCall(ctx: FileContext, call: CallExpression): void {
  let outer: Node = call;
  for (let parent = outer.getParent(); parent; outer = parent, parent = parent.getParent()) {
    if (
      !Node.isAwaitExpression(parent) &&
      !Node.isParenthesizedExpression(parent) &&
      !Node.isNonNullExpression(parent)
    ) {
      break;
    }
  }
  const parent = outer.getParent();
  if (Node.isPropertyAccessExpression(parent) && parent.getName() === "id") {
    ctx.leave(parent.getNameNode(), "scores", NO_ID);
  } else if (Node.isVariableDeclaration(parent) && parent.getInitializer() === outer) {
    const name = parent.getNameNode();
    if (Node.isObjectBindingPattern(name)) markIdElement(ctx, name);
    else if (Node.isIdentifier(name) && !isScoreResponse(name.getType())) {
      for (const reference of name.findReferencesAsNodes()) {
        const access = reference.getParent();
        if (reference.getSourceFile() !== ctx.sourceFile) continue;
        if (
          Node.isPropertyAccessExpression(access) &&
          access.getName() === "id" &&
          access.getExpression() === reference
        ) {
          ctx.leave(access.getNameNode(), "scores", NO_ID);
        }
      }
    }
  }
}
