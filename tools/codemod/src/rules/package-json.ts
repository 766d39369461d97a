import { ts } from "ts-morph";
import type { Finding, RuleId } from "../context.ts";
import type { TextEdit } from "../edits.ts";
import { otherPackageNote, PACKAGE_MAP, v5PackageOf } from "../tables/exports.ts";
import { SECTIONS } from "../tables/sections.ts";

/** The v6 release the rewritten dependencies ask for. */
export const V6_VERSION = "6.0.0";

const DEPENDENCY_FIELDS = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"];

/** The edits and findings for one package.json. */
export interface PackageJsonRewrite {
  edits: TextEdit[];
  counts: Map<RuleId, number>;
  findings: Finding[];
}

/**
 * Renames the v5 packages in the dependency lists of a package.json to their v6 packages (`^6.0.0`, or `6.0.0`
 * where the v5 version was pinned), keeping the file's formatting. @langfuse/core becomes @svc/client, where most of
 * what code imported from it went. Undefined when the file is not a JSON object.
 */
export function rewritePackageJson(path: string, text: string): PackageJsonRewrite | undefined {
  if (!isJsonObject(text)) return undefined;
  const json = ts.parseJsonText(path, text);
  const root = json.statements[0]?.expression;
  if (!root || !ts.isObjectLiteralExpression(root)) return undefined;
  const result: PackageJsonRewrite = { edits: [], counts: new Map(), findings: [] };
  const changed = () => result.counts.set("package-json", (result.counts.get("package-json") ?? 0) + 1);
  let usesLangchain = false;
  for (const field of properties(root)) {
    if (!DEPENDENCY_FIELDS.includes(field.name) || !ts.isObjectLiteralExpression(field.value)) continue;
    const entries = properties(field.value);
    const present = new Set(entries.map((entry) => entry.name));
    for (const entry of entries) {
      const pkg = v5PackageOf(entry.name);
      if (pkg === "langchain") usesLangchain = true;
      if (!pkg) continue;
      if (pkg === "other") {
        const note = otherPackageNote(entry.name);
        result.findings.push({ rule: "package-json", kind: "unchanged", ...note, position: entry.node.getStart(json) });
        continue;
      }
      const target = pkg === "core" ? "@svc/client" : PACKAGE_MAP[pkg];
      const version = ts.isStringLiteral(entry.value) && /^\d/.test(entry.value.text) ? V6_VERSION : `^${V6_VERSION}`;
      if (present.has(target)) {
        result.edits.push(removal(json, entry.node, entries));
      } else {
        result.edits.push({
          start: entry.node.getStart(json),
          end: entry.node.getEnd(),
          text: `${JSON.stringify(target)}: ${JSON.stringify(version)}`,
        });
        present.add(target);
      }
      changed();
      if (pkg === "core") {
        result.findings.push({
          rule: "package-json",
          kind: "review",
          message: "@langfuse/core has no v6 package: depend on the @svc packages your code imports now",
          section: SECTIONS.packages,
          position: entry.node.getStart(json),
        });
      }
    }
  }
  if (usesLangchain) checkLangchainPeer(json, root, result);
  return result;
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false; // not JSON: not a manifest the codemod can rewrite safely
  }
}

/** @svc/langchain 6 needs @langchain/core 1.x; a 0.x range is reported (the upgrade is the user's call). */
function checkLangchainPeer(json: ts.JsonSourceFile, root: ts.ObjectLiteralExpression, result: PackageJsonRewrite) {
  for (const field of properties(root)) {
    if (!DEPENDENCY_FIELDS.includes(field.name) || !ts.isObjectLiteralExpression(field.value)) continue;
    for (const entry of properties(field.value)) {
      if (entry.name !== "@langchain/core" || !ts.isStringLiteral(entry.value)) continue;
      if (!/^[\s^~=>v]*0\./.test(entry.value.text)) continue;
      result.findings.push({
        rule: "package-json",
        kind: "unchanged",
        message: `@svc/langchain needs @langchain/core ^1.0.0 (this range is ${entry.value.text})`,
        section: SECTIONS.packages,
        position: entry.node.getStart(json),
      });
    }
  }
}

interface Entry {
  name: string;
  value: ts.Expression;
  node: ts.PropertyAssignment;
}

function properties(object: ts.ObjectLiteralExpression): Entry[] {
  return object.properties.flatMap((node) =>
    ts.isPropertyAssignment(node) && ts.isStringLiteral(node.name)
      ? [{ name: node.name.text, value: node.initializer, node }]
      : [],
  );
}

/** Removes one entry of an object with its comma (and its line, when it has one of its own). */
function removal(json: ts.JsonSourceFile, node: ts.PropertyAssignment, entries: Entry[]): TextEdit {
  const text = json.text;
  const index = entries.findIndex((entry) => entry.node === node);
  const next = entries[index + 1]?.node;
  const previous = entries[index - 1]?.node;
  if (next) {
    const ownLine = lineStartOf(text, next.getStart(json)) > node.getStart(json);
    return ownLine
      ? { start: lineStartOf(text, node.getStart(json)), end: lineStartOf(text, next.getStart(json)), text: "" }
      : { start: node.getStart(json), end: next.getStart(json), text: "" };
  }
  return { start: previous ? previous.getEnd() : node.getStart(json), end: node.getEnd(), text: "" };
}

function lineStartOf(text: string, position: number): number {
  return text.lastIndexOf("\n", position - 1) + 1;
}
