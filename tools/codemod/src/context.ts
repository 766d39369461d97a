import { Node, type SourceFile, SyntaxKind } from "ts-morph";
import type { TextEdit } from "./edits.ts";
import type { Note } from "./tables/exports.ts";
import { migrationLink, type Section } from "./tables/sections.ts";

/** The rewrite rules, in the order the summary lists them. */
export const RULES = {
  packages: "@langfuse/* module names -> @svc/*",
  exports: "renamed exports (LangfuseClient -> SvcClient, ...)",
  env: "LANGFUSE_* environment variable names -> SVC_*",
  "client-aliases": "removed SvcClient shortcuts (getPrompt -> prompt.get, fetch* -> api.*)",
  "request-options": "{} before the request options of the 41 generated methods",
  "api-methods": "removed and moved svc.api methods",
  scores: "score creation and reads (api.scores.create([...]), Scores v3)",
  "trace-io": "setTraceIO, setActiveTraceIO, createTraceAttributes",
  attributes: "span attribute keys written by hand (langfuse.* -> svc.*)",
  mocks: "export names in the factories of vi.mock and jest.mock",
  "dataset-link": "dataset item link()",
  "removed-methods": "calls of removed methods found by name (v4 updateTrace, setTraceIO through own types)",
  "package-json": "package.json dependencies",
} as const;

/** One rewrite rule, by its name in the summary. */
export type RuleId = keyof typeof RULES;

/** Something the reader has to look at: a change to check (`review`) or code left as it is (`unchanged`). */
export interface Finding {
  rule: RuleId;
  kind: "review" | "unchanged";
  message: string;
  section: Section;
  /** Where the reader is sent instead of the section (a guide outside MIGRATION-v6.md). */
  link?: string;
  /** Position in the original text. */
  position: number;
}

/** How the codemod recognizes v5 calls in this run. */
export interface RunEnvironment {
  /** The v5 packages whose type declarations resolve: calls into them are recognized by their types. */
  typedPackages: ReadonlySet<string>;
  /** The v5 packages the files import but whose declarations do not resolve: their calls are recognized by name. */
  untypedPackages: ReadonlySet<string>;
}

/** The changes and findings of one source file, collected by the rules before anything is written. */
export class FileContext {
  readonly edits: TextEdit[] = [];
  readonly counts = new Map<RuleId, number>();
  readonly findings: Finding[] = [];
  /** The v5 environment variable names the file stopped using. */
  readonly envNames = new Set<string>();
  /** Strings that name a v5 environment variable inside other text (messages): listed, not changed. */
  readonly envMentions: { position: number; name: string }[] = [];
  readonly #commentLines = new Set<string>();

  readonly sourceFile: SourceFile;
  readonly environment: RunEnvironment;
  /** Whether the file names a @langfuse package (imports, requires, import types). */
  readonly referencesV5: boolean;
  /** The file's line break, for the lines the codemod adds. */
  readonly newline: string;

  constructor(sourceFile: SourceFile, environment: RunEnvironment, referencesV5: boolean) {
    this.sourceFile = sourceFile;
    this.environment = environment;
    this.referencesV5 = referencesV5;
    this.newline = sourceFile.getFullText().includes("\r\n") ? "\r\n" : "\n";
  }

  /** Replaces the text of `[start, end)`. */
  replace(start: number, end: number, text: string): void {
    this.edits.push({ start, end, text });
  }

  /** Replaces the text of a node (without its leading trivia). */
  replaceNode(node: Node, text: string): void {
    this.replace(node.getStart(), node.getEnd(), text);
  }

  insert(position: number, text: string): void {
    this.edits.push({ start: position, end: position, text });
  }

  /** Counts one change made by `rule`. */
  changed(rule: RuleId, count = 1): void {
    this.counts.set(rule, (this.counts.get(rule) ?? 0) + count);
  }

  /** Leaves `node` as it is and marks it with a comment for the reader. */
  leave(node: Node, rule: RuleId, note: Note): void {
    this.#find(node, rule, note, "unchanged", "left as is");
  }

  /** Marks a changed `node` whose behaviour the reader should check. */
  review(node: Node, rule: RuleId, note: Note): void {
    this.#find(node, rule, note, "review", "rewritten, check");
  }

  #find(node: Node, rule: RuleId, note: Note, kind: Finding["kind"], label: string): void {
    const position = node.getStart();
    this.findings.push({ rule, kind, message: note.message, section: note.section, link: note.link, position });
    const { at, indent } = commentPlace(this.sourceFile, node);
    const line = `${indent}// svc-codemod: ${label}: ${note.message} (${note.link ?? migrationLink(note.section)})${this.newline}`;
    const key = `${at}\0${line}`;
    if (this.#commentLines.has(key) || hasCommentAbove(this.sourceFile.getFullText(), at, line)) return;
    this.#commentLines.add(key);
    this.insert(at, line);
  }
}

/** Whether the comment `line` is already among the comment lines right above `at` (a second run adds none). */
function hasCommentAbove(text: string, at: number, line: string): boolean {
  let end = at;
  while (end > 0) {
    const start = text.lastIndexOf("\n", end - 2) + 1;
    const previous = text.slice(start, end);
    if (!previous.trimStart().startsWith("//")) return false;
    if (previous.trim() === line.trim()) return true;
    end = start;
  }
  return false;
}

const NO_COMMENT_INSIDE = new Set([
  SyntaxKind.JsxElement,
  SyntaxKind.JsxFragment,
  SyntaxKind.JsxSelfClosingElement,
  SyntaxKind.TemplateExpression,
  SyntaxKind.NoSubstitutionTemplateLiteral,
]);

/**
 * Where a comment line about `node` goes: before the line the node starts on, when that line begins with a token
 * (a comment there is valid code); otherwise before the line of the statement that contains the node.
 */
function commentPlace(sourceFile: SourceFile, node: Node): { at: number; indent: string } {
  const text = sourceFile.getFullText();
  const own = lineStart(text, node.getStart());
  const statement = enclosingStatement(node);
  if (isTokenStart(sourceFile, own.first) && !insideNoCommentNode(sourceFile, own.first, statement)) return own.place;
  return lineStart(text, statement.getStart()).place;
}

function lineStart(text: string, position: number) {
  const at = text.lastIndexOf("\n", position - 1) + 1;
  let first = at;
  while (text[first] === " " || text[first] === "\t") first++;
  return { first, place: { at, indent: text.slice(at, first) } };
}

function isTokenStart(sourceFile: SourceFile, position: number): boolean {
  const node = sourceFile.getDescendantAtPos(position);
  return node !== undefined && node.getStart() === position && node.getKind() !== SyntaxKind.JsxText;
}

function insideNoCommentNode(sourceFile: SourceFile, position: number, statement: Node): boolean {
  for (let node = sourceFile.getDescendantAtPos(position); node && node !== statement; node = node.getParent()) {
    if (NO_COMMENT_INSIDE.has(node.getKind()) && node.getStart() < position) return true;
  }
  return false;
}

/** The statement (or class member, or the source file itself) that holds `node`. */
export function enclosingStatement(node: Node): Node {
  let current: Node = node;
  for (let parent = node.getParent(); parent; current = parent, parent = parent.getParent()) {
    if (Node.isSourceFile(parent) || Node.isBlock(parent) || Node.isModuleBlock(parent) || Node.isCaseClause(parent)) {
      return current;
    }
    if (Node.isDefaultClause(parent) || Node.isClassDeclaration(parent) || Node.isClassExpression(parent))
      return current;
  }
  return current;
}
