import { type CallExpression, Node, type ObjectLiteralExpression, SyntaxKind } from "ts-morph";
import type { FileContext, RuleId } from "../context.ts";
import type { Note } from "../tables/exports.ts";
import { own } from "../tables/own.ts";
import { SECTIONS, type Section } from "../tables/sections.ts";

/** How the filters of a v5 read request become those of its v6 replacement. */
interface RequestMapping {
  rule: RuleId;
  section: Section;
  /** Properties added in front (`isRootObservation: true`). */
  prefix: string | undefined;
  /** v5 filter -> v6 filter; filters not named here have no v6 form. */
  renames: Record<string, string>;
  /** v6 filters that take a list where v5 also took one string. */
  lists: ReadonlySet<string>;
  /** v6 filters that take one comma-separated string where v5 also took a list. */
  commaLists: ReadonlySet<string>;
  /** What to say when the request is not written out as an object. */
  opaque: Note;
}

const MAPPINGS: Record<"traces" | "scores", RequestMapping> = {
  // trace.list (GetTracesRequest) -> observations.getMany (GetObservationsRequest) on root observations.
  traces: {
    rule: "api-methods",
    section: SECTIONS.reading,
    prefix: "isRootObservation: true",
    renames: {
      limit: "limit",
      userId: "userId",
      name: "name",
      sessionId: "sessionId",
      version: "version",
      environment: "environment",
      fromTimestamp: "fromStartTime",
      toTimestamp: "toStartTime",
    },
    lists: new Set(["environment"]),
    commaLists: new Set(),
    opaque: {
      message: "the filters of this request are not mapped: fromTimestamp is fromStartTime, page is cursor",
      section: SECTIONS.reading,
    },
  },
  // scores.getMany v2 (GetScoresRequest) -> scores.getMany v3 (GetScoresV3Request).
  scores: {
    rule: "scores",
    section: SECTIONS.scores,
    prefix: undefined,
    renames: {
      limit: "limit",
      name: "name",
      source: "source",
      dataType: "dataType",
      configId: "configId",
      queueId: "queueId",
      traceId: "traceId",
      sessionId: "sessionId",
      observationId: "observationId",
      fromTimestamp: "fromTimestamp",
      toTimestamp: "toTimestamp",
      scoreIds: "id",
      datasetRunId: "experimentId",
      environment: "environment",
    },
    lists: new Set(),
    commaLists: new Set(["environment"]),
    opaque: {
      message: "the filters of this request are not mapped: scoreIds is id in Scores v3",
      section: SECTIONS.scores,
    },
  },
};

/**
 * Rewrites the request argument of a v5 read call for its v6 replacement: renames the filters that have a v6 form,
 * marks those that have none, and adds the mapping's fixed properties.
 */
export function rewriteRequestObject(
  ctx: FileContext,
  call: CallExpression,
  request: Node | undefined,
  kind: keyof typeof MAPPINGS,
): void {
  const mapping = MAPPINGS[kind];
  if (!request || (Node.isIdentifier(request) && request.getText() === "undefined")) {
    if (!mapping.prefix) return;
    const text = `{ ${mapping.prefix} }`;
    if (request) ctx.replaceNode(request, text);
    else ctx.insert(call.getFirstChildByKindOrThrow(SyntaxKind.OpenParenToken).getEnd(), text);
    return;
  }
  if (!Node.isObjectLiteralExpression(request)) {
    if (mapping.prefix) {
      ctx.insert(request.getStart(), `{ ${mapping.prefix}, ...`);
      ctx.insert(request.getEnd(), " }");
    }
    ctx.review(request, mapping.rule, mapping.opaque);
    return;
  }
  for (const property of request.getProperties()) renameFilter(ctx, property, mapping);
  if (mapping.prefix) insertFirstProperty(ctx, request, mapping.prefix);
}

function renameFilter(ctx: FileContext, property: Node, mapping: RequestMapping): void {
  if (Node.isSpreadAssignment(property)) {
    ctx.review(property, mapping.rule, mapping.opaque);
    return;
  }
  if (!Node.isPropertyAssignment(property) && !Node.isShorthandPropertyAssignment(property)) return;
  const nameNode = property.getNameNode();
  const key = Node.isStringLiteral(nameNode) ? nameNode.getLiteralValue() : nameNode.getText();
  const renamed = Node.isComputedPropertyName(nameNode) ? undefined : own(mapping.renames, key);
  if (renamed === undefined) {
    ctx.leave(property, mapping.rule, { message: `the filter "${key}" has no v6 form`, section: mapping.section });
    return;
  }
  if (Node.isShorthandPropertyAssignment(property)) {
    if (renamed !== key) ctx.replaceNode(nameNode, `${renamed}: ${key}`);
  } else {
    if (renamed !== key) ctx.replaceNode(nameNode, renamed);
    const value = property.getInitializer();
    if (mapping.lists.has(renamed) && value && Node.isStringLiteral(value)) {
      ctx.insert(value.getStart(), "[");
      ctx.insert(value.getEnd(), "]");
    }
    if (mapping.commaLists.has(renamed) && value && Node.isArrayLiteralExpression(value)) {
      ctx.insert(value.getEnd(), '.join(",")');
    }
  }
}

/** Adds `text` as the first property of an object literal, on its own line when the object spans lines. */
function insertFirstProperty(ctx: FileContext, object: ObjectLiteralExpression, text: string): void {
  const [first] = object.getProperties();
  if (!first) {
    ctx.replaceNode(object, `{ ${text} }`);
    return;
  }
  const source = ctx.sourceFile.getFullText();
  const lineStart = source.lastIndexOf("\n", first.getStart() - 1) + 1;
  const multiline = lineStart > object.getStart();
  const indent = source.slice(lineStart, first.getStart());
  ctx.insert(first.getStart(), multiline && /^\s*$/.test(indent) ? `${text},${ctx.newline}${indent}` : `${text}, `);
}
