import { Node } from "ts-morph";
import type { FileContext } from "../context.ts";
import { ATTRIBUTE_FAMILIES, ATTRIBUTE_KEYS, ATTRIBUTE_PREFIXES, NOT_WRITTEN_BY_V6 } from "../tables/attributes.ts";
import { own } from "../tables/own.ts";
import { SECTIONS } from "../tables/sections.ts";

/**
 * Rewrites strings that are span attribute keys of the previous major (`"langfuse.trace.name"`,
 * `` `langfuse.trace.metadata.${key}` ``) to the key v6 and the server read (`"svc.trace.name"`): code that writes
 * span attributes by hand, which no type checker sees. Strings that only contain such a key stay as they are.
 */
export function rewriteAttributeKeys(ctx: FileContext): void {
  ctx.sourceFile.forEachDescendant((node) => {
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

/** The v6 key for a v5 key (`whole`) or for the start of one built from parts. */
function newKey(value: string, whole: boolean): string | undefined {
  if (!value.startsWith("langfuse.")) return undefined;
  const exact = whole ? own(ATTRIBUTE_KEYS, value) : undefined;
  if (exact !== undefined) return exact;
  const prefix = ATTRIBUTE_PREFIXES.find((p) => value.startsWith(p) && (whole ? value.length > p.length : true));
  return prefix === undefined ? undefined : `svc.${value.slice("langfuse.".length)}`;
}
