import { Node } from "ts-morph";
import type { FileContext } from "../context.ts";
import {
  ATTRIBUTE_FAMILIES,
  ATTRIBUTE_KEYS,
  ATTRIBUTE_PREFIXES,
  LANGCHAIN_METADATA_KEYS,
  NOT_WRITTEN_BY_V6,
} from "../tables/attributes.ts";
import { own } from "../tables/own.ts";
import { SECTIONS } from "../tables/sections.ts";

/**
 * Rewrites strings that are span attribute keys of the previous major (`"langfuse.trace.name"`,
 * `` `langfuse.trace.metadata.${key}` ``) to the key v6 and the server read (`"svc.trace.name"`): code that writes
 * span attributes by hand, which no type checker sees. Strings that only contain such a key stay as they are.
 */
export function rewriteAttributeKeys(ctx: FileContext): void {
  ctx.sourceFile.forEachDescendant((node) => {
    if (ctx.referencesV5) renameMetadataKey(ctx, node);
    if (Node.isStringLiteral(node) || Node.isNoSubstitutionTemplateLiteral(node)) {
      const value = node.getLiteralValue();
      const renamed = newKey(value, true);
      if (renamed === undefined) {
        if (ATTRIBUTE_FAMILIES.test(value)) {
          ctx.leave(node, "attributes", {
            message: `"${value}" is no span attribute key the server reads; see the v6 keys (SvcOtelSpanAttributes)`,
            section: SECTIONS.attributes,
          });
        }
        return;
      }
      const text = node.getText();
      ctx.replaceNode(node, `${text[0]}${renamed}${text[text.length - 1]}`);
      ctx.changed("attributes");
      const note = own(NOT_WRITTEN_BY_V6, value);
      if (note) ctx.review(node, "attributes", note);
    } else if (Node.isTemplateHead(node)) {
      // `langfuse.trace.metadata.${key}`: only a per-key prefix can start a key built from parts.
      const value = node.getLiteralText();
      const renamed = newKey(value, false);
      if (renamed === undefined) return;
      ctx.replace(node.getStart() + 1, node.getStart() + 1 + value.length, renamed);
      ctx.changed("attributes");
    }
  });
}

/**
 * `{ metadata: { langfuseUserId: id } }` -> `{ metadata: { svcUserId: id } }`: the run metadata keys the LangChain
 * handler reads, as property names and strings, in files that use the v5 packages (elsewhere the name may be the
 * user's own).
 */
function renameMetadataKey(ctx: FileContext, node: Node): void {
  if (Node.isStringLiteral(node)) {
    const renamed = own(LANGCHAIN_METADATA_KEYS, node.getLiteralValue());
    if (renamed === undefined || !isKey(node)) return;
    const quote = node.getText()[0];
    ctx.replaceNode(node, `${quote}${renamed}${quote}`);
  } else if (Node.isIdentifier(node)) {
    const renamed = own(LANGCHAIN_METADATA_KEYS, node.getText());
    const parent = node.getParent();
    if (renamed === undefined) return;
    if (Node.isPropertyAssignment(parent) && parent.getNameNode() === node) ctx.replaceNode(node, renamed);
    else if (Node.isShorthandPropertyAssignment(parent)) ctx.replaceNode(node, `${renamed}: ${node.getText()}`);
    else return;
  } else {
    return;
  }
  ctx.changed("attributes");
}

/** Whether a string is a property name or a key read with `[...]`, not text. */
function isKey(node: Node): boolean {
  const parent = node.getParent();
  return (
    (Node.isPropertyAssignment(parent) && parent.getNameNode() === node) ||
    (Node.isElementAccessExpression(parent) && parent.getArgumentExpression() === node)
  );
}

/** The v6 key for a v5 key (`whole`) or for the start of one built from parts. */
function newKey(value: string, whole: boolean): string | undefined {
  if (!value.startsWith("langfuse.")) return undefined;
  const exact = whole ? own(ATTRIBUTE_KEYS, value) : undefined;
  if (exact !== undefined) return exact;
  const prefix = ATTRIBUTE_PREFIXES.find((p) => value.startsWith(p) && (whole ? value.length > p.length : true));
  return prefix === undefined ? undefined : `svc.${value.slice("langfuse.".length)}`;
}
