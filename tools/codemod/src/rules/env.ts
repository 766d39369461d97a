import { Node } from "ts-morph";
import type { FileContext } from "../context.ts";
import { ENV_NAMES } from "../tables/env.ts";
import { own } from "../tables/own.ts";

/**
 * Renames the v5 environment variables (`LANGFUSE_PUBLIC_KEY` -> `SVC_PUBLIC_KEY`) wherever code names them: strings
 * (`process.env["..."]`, `getEnv("...")`) and property names (`process.env.X`, object keys, destructuring, types).
 * Variables of the user's own that only start with `LANGFUSE_` are not the SDK's and stay.
 */
export function rewriteEnvNames(ctx: FileContext): void {
  ctx.sourceFile.forEachDescendant((node) => {
    if (Node.isTemplateHead(node) || Node.isTemplateMiddle(node) || Node.isTemplateTail(node)) {
      mentions(ctx, node.getStart(), node.getLiteralText());
      return;
    }
    if (Node.isStringLiteral(node) || Node.isNoSubstitutionTemplateLiteral(node)) {
      const renamed = own(ENV_NAMES, node.getLiteralValue());
      if (!renamed) {
        mentions(ctx, node.getStart(), node.getLiteralValue());
        return;
      }
      const text = node.getText();
      ctx.replaceNode(node, `${text[0]}${renamed}${text[text.length - 1]}`);
      count(ctx, node.getLiteralValue());
      return;
    }
    if (!Node.isIdentifier(node)) return;
    const name = node.getText();
    const renamed = own(ENV_NAMES, name);
    if (!renamed) return;
    const parent = node.getParent();
    if (
      (Node.isPropertyAccessExpression(parent) && parent.getNameNode() === node) ||
      (Node.isPropertyAssignment(parent) && parent.getNameNode() === node) ||
      ((Node.isPropertySignature(parent) || Node.isPropertyDeclaration(parent)) && parent.getNameNode() === node) ||
      (Node.isBindingElement(parent) && parent.getPropertyNameNode() === node)
    ) {
      ctx.replaceNode(node, renamed);
    } else if (
      (Node.isBindingElement(parent) && !parent.getPropertyNameNode() && parent.getNameNode() === node) ||
      Node.isShorthandPropertyAssignment(parent)
    ) {
      // `{ LANGFUSE_PUBLIC_KEY } = process.env`: the variable keeps its name, the property is the v6 one.
      ctx.insert(node.getStart(), `${renamed}: `);
    } else {
      return;
    }
    count(ctx, name);
  });
}

/** Records the v5 variables a message names (`"set LANGFUSE_SECRET_KEY first"`): the report lists them. */
function mentions(ctx: FileContext, position: number, text: string): void {
  for (const [name] of text.matchAll(/\bLANGFUSE_[A-Z_]+\b/g)) {
    if (own(ENV_NAMES, name) !== undefined) ctx.envMentions.push({ position, name });
  }
}

function count(ctx: FileContext, name: string): void {
  ctx.changed("env");
  ctx.envNames.add(name);
}
