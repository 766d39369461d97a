import { type CallExpression, type Expression, Node, type PropertyAccessExpression } from "ts-morph";
import type { FileContext, RuleId } from "../context.ts";
import { declarationOf, isUntyped, originOf } from "../resolve.ts";
import {
  type ApiRewrite,
  apiChangeOf,
  CLIENT_ALIASES,
  REQUEST_OPTIONS_PLACEHOLDER,
  V5_API_CLASSES,
} from "../tables/api.ts";
import type { Note } from "../tables/exports.ts";
import { own } from "../tables/own.ts";
import { SECTIONS } from "../tables/sections.ts";
import { rewriteRequestObject } from "./request-objects.ts";
import { markScoreIdReads } from "./score-ids.ts";

/** A recognized call of a v5 REST method, and how its callee can be pointed at another method. */
interface ApiCall {
  call: CallExpression;
  callee: PropertyAccessExpression;
  /** The v5 path of the method (`legacy.scoreV1.create`). */
  path: string;
  /** The rule the change is counted under. */
  rule: RuleId;
  /** How the callee reaches the method: a property chain from `api`, a shortcut of the client, or a variable. */
  via: { kind: "chain"; api: Node } | { kind: "shortcut" } | { kind: "namespace" };
  /** Whether the call was recognized by its types (else by its names only). */
  typed: boolean;
}

/**
 * Rewrites calls of the removed client shortcuts and of the v5 REST methods that v6 moved, changed or removed, and
 * inserts the `{}` placeholder before the request options of the 41 methods that take no request object.
 */
export function rewriteApiCalls(ctx: FileContext): void {
  const byName: CallExpression[] = [];
  ctx.sourceFile.forEachDescendant((node) => {
    if (!Node.isCallExpression(node)) return;
    const callee = node.getExpression();
    if (!Node.isPropertyAccessExpression(callee)) return;
    const shortcut = clientShortcut(ctx, callee);
    if (shortcut) {
      const target = own(CLIENT_ALIASES, callee.getName());
      if (target && "manager" in target) {
        ctx.replaceNode(callee.getNameNode(), target.manager);
        ctx.changed("client-aliases");
        return;
      }
      if (target && "api" in target) {
        const path = target.api;
        const call: ApiCall = {
          call: node,
          callee,
          path,
          rule: ruleOf(path),
          via: { kind: "shortcut" },
          typed: shortcut === "typed",
        };
        rewriteCall(ctx, call);
      }
      return;
    }
    const call = apiCall(node, callee);
    if (!call) return;
    rewriteCall(ctx, call);
    if (!call.typed && (call.path === "scores.create" || call.path === "legacy.scoreV1.create")) byName.push(node);
  });
  markScoreIdReads(ctx, byName);
}

/** `"typed"` or `"by-name"` when `callee` is a removed shortcut of a v5 client, else undefined. */
function clientShortcut(ctx: FileContext, callee: PropertyAccessExpression): "typed" | "by-name" | undefined {
  if (own(CLIENT_ALIASES, callee.getName()) === undefined) return undefined;
  const declaration = declarationOf(callee.getNameNode());
  if (declaration === "other") return undefined;
  if (declaration !== "unknown")
    return declaration.pkg === "client" && declaration.owner === "LangfuseClient" ? "typed" : undefined;
  const receiver = callee.getExpression();
  if (!isUntyped(receiver)) return undefined;
  const origin = originOf(receiver);
  if (origin === "v6") return undefined;
  // A project that imports @langfuse/client without its types: the client may reach this file through a variable.
  const untypedProject = ctx.environment.untypedPackages.has("client");
  return origin === "v5" || ctx.referencesV5 || untypedProject ? "by-name" : undefined;
}

/** The v5 REST method `callee` calls, by its declaration or, when the checker cannot tell, by the names of its chain. */
function apiCall(call: CallExpression, callee: PropertyAccessExpression): ApiCall | undefined {
  const declaration = declarationOf(callee.getNameNode());
  if (declaration === "other") return undefined;
  if (declaration !== "unknown") {
    const namespace =
      declaration.pkg === "core" && declaration.owner ? own(V5_API_CLASSES, declaration.owner) : undefined;
    if (!namespace) return undefined;
    const path = `${namespace}.${callee.getName()}`;
    const api = chainBase(callee.getExpression(), namespace.split("."));
    return {
      call,
      callee,
      path,
      rule: ruleOf(path),
      via: api ? { kind: "chain", api } : { kind: "namespace" },
      typed: true,
    };
  }
  // By name: `<something>.api.<namespace>.<method>(...)`, or `api.<namespace>.<method>(...)` on a bare `api`.
  const names: string[] = [callee.getName()];
  let base: Node = callee.getExpression();
  while (Node.isPropertyAccessExpression(base) && base.getName() !== "api") {
    names.unshift(base.getName());
    base = base.getExpression();
  }
  const isApi = Node.isPropertyAccessExpression(base) || (Node.isIdentifier(base) && base.getText() === "api");
  if (!isApi || !isUntyped(base)) return undefined;
  const path = names.join(".");
  if (own(REQUEST_OPTIONS_PLACEHOLDER, path) === undefined && !apiChangeOf(path)) return undefined;
  const origin = originOf(base);
  if (origin === "v6") return undefined;
  // v6 kept the name scores.getMany for the v3 read: without types, only v2 filters tell a v5 call apart.
  if (path === "scores.getMany" && origin === "unknown" && !hasScoresV2Filter(call)) return undefined;
  return { call, callee, path, rule: ruleOf(path), via: { kind: "chain", api: base }, typed: false };
}

const SCORES_V2_ONLY_FILTERS = new Set([
  "page",
  "userId",
  "operator",
  "scoreIds",
  "datasetRunId",
  "traceTags",
  "filter",
]);

function hasScoresV2Filter(call: CallExpression): boolean {
  const [request] = call.getArguments();
  if (!request || !Node.isObjectLiteralExpression(request)) return false;
  return request.getProperties().some((property) => {
    const name =
      Node.isPropertyAssignment(property) || Node.isShorthandPropertyAssignment(property) ? property.getName() : "";
    return SCORES_V2_ONLY_FILTERS.has(name);
  });
}

/** The expression before `segments` at the end of a property chain (`client.api` for `client.api.legacy.scoreV1`). */
function chainBase(expression: Node, segments: string[]): Node | undefined {
  let current = expression;
  for (const segment of [...segments].reverse()) {
    if (!Node.isPropertyAccessExpression(current) || current.getName() !== segment) return undefined;
    current = current.getExpression();
  }
  return current;
}

function ruleOf(path: string): RuleId {
  return /^(scores|scoresV3|legacy\.scoreV1)\./.test(path) ? "scores" : "api-methods";
}

function rewriteCall(ctx: FileContext, call: ApiCall): void {
  const change = apiChangeOf(call.path);
  if (change?.kind === "removed") {
    ctx.leave(call.callee.getNameNode(), call.via.kind === "shortcut" ? "client-aliases" : call.rule, change.note);
    return;
  }
  if (change?.kind === "rewrite") {
    HANDLERS[change.handler](ctx, call);
  } else if (change?.kind === "move") {
    if (!retarget(ctx, call, change.to)) return;
    ctx.changed(call.rule);
    if (change.review) ctx.review(call.callee.getNameNode(), call.rule, change.review);
  } else if (call.via.kind === "shortcut") {
    retarget(ctx, call, call.path);
  }
  const pathArguments = own(REQUEST_OPTIONS_PLACEHOLDER, call.path);
  if (pathArguments !== undefined) insertPlaceholder(ctx, call.call, pathArguments);
}

/** Points the callee at the v6 method `to`; false (and the call marked) when the call goes through a variable. */
function retarget(ctx: FileContext, call: ApiCall, to: string): boolean {
  const name = call.callee.getNameNode();
  if (call.via.kind === "shortcut") {
    ctx.replaceNode(name, `api.${to}`);
    ctx.changed("client-aliases");
    return true;
  }
  if (call.via.kind === "chain") {
    if (to !== call.path) ctx.replace(call.via.api.getEnd(), name.getEnd(), `.${to}`);
    return true;
  }
  const namespace = (path: string) => path.slice(0, path.lastIndexOf("."));
  if (namespace(to) === namespace(call.path)) {
    const method = to.slice(to.lastIndexOf(".") + 1);
    if (method !== name.getText()) ctx.replaceNode(name, method);
    return true;
  }
  ctx.leave(name, call.rule, {
    message: `this method is api.${to} in v6; the call goes through a variable, so change it by hand`,
    section: call.rule === "scores" ? SECTIONS.scores : SECTIONS.restMethods,
  });
  return false;
}

const OPTIONS_NOTE: Note = {
  message: "add {} before the request options by hand (the arguments are spread)",
  section: SECTIONS.requestOptions,
};

/** `method(a, options)` -> `method(a, {}, options)` for a method that takes `pathArguments` path arguments. */
function insertPlaceholder(ctx: FileContext, call: CallExpression, pathArguments: number): void {
  const args = call.getArguments();
  if (args.some((arg) => Node.isSpreadElement(arg))) {
    ctx.leave(call.getExpression(), "request-options", OPTIONS_NOTE);
    return;
  }
  const options = args[pathArguments];
  if (args.length !== pathArguments + 1 || !options) return;
  if (Node.isObjectLiteralExpression(options) && options.getProperties().length === 0) return;
  ctx.insert(options.getStart(), "{}, ");
  ctx.changed("request-options");
}

/** Whether an argument is absent in effect: missing, `undefined` or `{}`. */
function isEmptyArgument(arg: Node | undefined): boolean {
  if (!arg) return true;
  if (Node.isIdentifier(arg) && arg.getText() === "undefined") return true;
  return Node.isObjectLiteralExpression(arg) && arg.getProperties().length === 0;
}

/**
 * Calls whose first argument is one id, rewritten to a filtered `observations.getMany` or `scores.getMany`: the id
 * takes the place of `$` in `template`; `key: $` becomes the shorthand `key` when the id is a variable named `key`.
 */
function byIdRequest(
  ctx: FileContext,
  call: ApiCall,
  to: string,
  template: string,
  review: Note,
  allowRequest = false,
): void {
  const args = call.call.getArguments();
  const [id, extra] = args;
  if (!id || args.some((arg) => Node.isSpreadElement(arg)) || (allowRequest && !isEmptyArgument(extra))) {
    ctx.leave(call.callee.getNameNode(), call.rule, {
      message: `rewrite this call to api.${to}() by hand: ${review.message}`,
      section: review.section,
    });
    return;
  }
  if (!retarget(ctx, call, to)) return;
  const shorthand = /(\w+): \$/.exec(template);
  if (shorthand && Node.isIdentifier(id) && id.getText() === shorthand[1]) {
    ctx.replaceNode(id, template.replace(shorthand[0], shorthand[1]));
  } else if (Node.isIdentifier(id) || Node.isStringLiteral(id)) {
    ctx.replaceNode(id, template.replace("$", id.getText()));
  } else {
    // A longer expression may hold changes of its own: only the text around it is added.
    const [before = "", after = ""] = template.split("$");
    ctx.insert(id.getStart(), before);
    ctx.insert(id.getEnd(), after);
  }
  if (allowRequest && extra) {
    const options = args[2];
    ctx.replace(id.getEnd(), options ? options.getStart() : (extra as Expression).getEnd(), options ? ", " : "");
  }
  ctx.changed(call.rule);
  ctx.review(call.callee.getNameNode(), call.rule, review);
}

const HANDLERS: Record<ApiRewrite, (ctx: FileContext, call: ApiCall) => void> = {
  readTrace(ctx, call) {
    byIdRequest(
      ctx,
      call,
      "observations.getMany",
      '{ traceId: $, fields: "core,basic,io" }',
      {
        message: "returns the trace's observations (data, meta.cursor), not a trace object",
        section: SECTIONS.reading,
      },
      true,
    );
  },
  readSession(ctx, call) {
    byIdRequest(ctx, call, "observations.getMany", "{ sessionId: $ }", {
      message: "returns the session's observations (data, meta.cursor), not a session with its traces",
      section: SECTIONS.reading,
    });
  },
  readObservation(ctx, call) {
    byIdRequest(
      ctx,
      call,
      "observations.getMany",
      '{ filter: [{ type: "string", column: "id", operator: "=", value: $ }], fields: "core,basic,io" }',
      { message: "returns a page of observations: the observation is data[0]", section: SECTIONS.reading },
    );
  },
  readScore(ctx, call) {
    byIdRequest(ctx, call, "scores.getMany", "{ id: $ }", {
      message: "returns a page of Scores v3 items: the score is data[0]",
      section: SECTIONS.scores,
    });
  },
  listTraces(ctx, call) {
    const [request] = call.call.getArguments();
    if (call.call.getArguments().some((arg) => Node.isSpreadElement(arg))) {
      ctx.leave(call.callee.getNameNode(), call.rule, {
        message: "rewrite this call to api.observations.getMany({ isRootObservation: true, ... }) by hand",
        section: SECTIONS.reading,
      });
      return;
    }
    if (!retarget(ctx, call, "observations.getMany")) return;
    rewriteRequestObject(ctx, call.call, request, "traces");
    ctx.changed(call.rule);
    ctx.review(call.callee.getNameNode(), call.rule, {
      message: "returns root observations, one per trace (data, meta.cursor), not traces",
      section: SECTIONS.reading,
    });
  },
  createScore(ctx, call) {
    const [score] = call.call.getArguments();
    if (!score || Node.isArrayLiteralExpression(score)) {
      if (call.path !== "scores.create") retarget(ctx, call, "scores.create");
      return;
    }
    if (Node.isSpreadElement(score)) {
      ctx.leave(call.callee.getNameNode(), "scores", {
        message: "api.scores.create() takes an array of scores: wrap the score in [ ] by hand",
        section: SECTIONS.scores,
      });
      return;
    }
    if (call.path !== "scores.create" && !retarget(ctx, call, "scores.create")) return;
    ctx.insert(score.getStart(), "[");
    ctx.insert(score.getEnd(), "]");
    ctx.changed("scores");
  },
  readScoresV2(ctx, call) {
    const [request] = call.call.getArguments();
    if (request && Node.isSpreadElement(request)) {
      ctx.leave(call.callee.getNameNode(), "scores", {
        message: "api.scores.getMany() reads Scores v3: check the filters by hand (scoreIds is id)",
        section: SECTIONS.scores,
      });
      return;
    }
    if (request && Node.isObjectLiteralExpression(request)) rewriteRequestObject(ctx, call.call, request, "scores");
    ctx.changed("scores");
    ctx.review(call.callee.getNameNode(), "scores", {
      message: "reads Scores v3 now: other items, cursor paging",
      section: SECTIONS.scores,
    });
  },
};
