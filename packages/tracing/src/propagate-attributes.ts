import { type Attributes, context } from "@opentelemetry/api";
import {
  SvcOtelSpanAttributes as A,
  buildPropagationContext,
  ENVIRONMENT_RULE,
  getPropagatedAttributes,
  isValidEnvironment,
  noteUnreadable,
  readField,
  safely,
  writeMetadata,
} from "@svc/core";
import { isCallable, warnOnce } from "./internal/options.js";
import { writePromptLink } from "./write-observation-attributes.js";

const MAX_VALUE_LENGTH = 200;

/** A prompt to link every generation started inside the callback to. A fallback prompt is not linked. */
export interface PropagatedPromptInput {
  name: string;
  version: number | string;
  isFallback?: boolean;
}

/** Trace attributes for {@link propagateAttributes}. Invalid values are logged and left out. */
export interface PropagateAttributesParams {
  /** User the trace belongs to (at most 200 characters). */
  userId?: string;
  /** Session the trace belongs to (at most 200 characters). */
  sessionId?: string;
  /** Tags, added to the tags already propagated (each at most 200 characters). */
  tags?: string[];
  /** Trace metadata: any JSON-serializable value; a plain object is written and merged per key. */
  metadata?: unknown;
  /** Version of the application (at most 200 characters). */
  version?: string;
  /** Trace name (at most 200 characters). */
  traceName?: string;
  /** Environment: 1-40 characters of `a-z 0-9 _ -`, not starting with `svc`. */
  environment?: string;
  /** Prompt linked to generations. */
  prompt?: PropagatedPromptInput;
  /** Also write the values as W3C baggage (`svc_*` entries) so they cross process boundaries. @defaultValue false */
  asBaggage?: boolean;
}

/**
 * Applies trace attributes to the active observation and to every observation started inside `fn`,
 * across `await`, and returns what `fn` returns. Observations started outside `fn` are not affected.
 * @example
 * await propagateAttributes({ userId: "u-1", sessionId: "s-1", tags: ["beta"] }, () => handleRequest(req));
 */
export function propagateAttributes<R>(params: PropagateAttributesParams, fn: () => R): R {
  if (!isCallable(fn, "propagateAttributes")) return undefined as R;
  const active = context.active();
  const next = safely("propagateAttributes", () => {
    const attributes = toPropagatedAttributes(params, active);
    return buildPropagationContext(active, attributes, { asBaggage: readField(params, "asBaggage") === true });
  });
  return next === undefined ? fn() : context.with(next, fn);
}

/** The attributes to propagate; each parameter is read and checked on its own, so a bad one costs only itself. */
function toPropagatedAttributes(params: PropagateAttributesParams, active: ReturnType<typeof context.active>) {
  const out: Attributes = {};
  setShortString(out, A.TRACE_USER_ID, "userId", readField(params, "userId"));
  setShortString(out, A.TRACE_SESSION_ID, "sessionId", readField(params, "sessionId"));
  setShortString(out, A.VERSION, "version", readField(params, "version"));
  setShortString(out, A.TRACE_NAME, "traceName", readField(params, "traceName"));
  const environment = readField(params, "environment");
  if (environment !== undefined) {
    if (isValidEnvironment(environment)) out[A.ENVIRONMENT] = environment;
    else dropped("environment", `must be ${ENVIRONMENT_RULE}`);
  }
  const tags = readField(params, "tags");
  if (tags !== undefined) {
    const merged = mergeTags(getPropagatedAttributes(active)[A.TRACE_TAGS], tags);
    if (merged.length > 0) out[A.TRACE_TAGS] = merged;
  }
  const metadata = readField(params, "metadata");
  if (metadata !== undefined) writeMetadata(out, A.TRACE_METADATA, metadata);
  const prompt = readField<PropagatedPromptInput>(params, "prompt");
  if (prompt !== undefined) {
    safely("propagateAttributes: prompt", () => {
      const why = writePromptLink(out, prompt);
      if (why !== undefined) dropped("prompt", why);
    });
  }
  return out;
}

function setShortString(out: Attributes, key: string, name: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value === "string" && value.length > 0 && value.length <= MAX_VALUE_LENGTH) out[key] = value;
  else dropped(name, `must be a non-empty string of at most ${MAX_VALUE_LENGTH} characters`);
}

function mergeTags(existing: unknown, added: unknown): string[] {
  const tags = new Set<string>(Array.isArray(existing) ? existing.filter((t) => typeof t === "string") : []);
  if (!Array.isArray(added)) {
    dropped("tags", "must be an array of strings");
    return [...tags];
  }
  try {
    for (const tag of added) {
      if (typeof tag === "string" && tag.length > 0 && tag.length <= MAX_VALUE_LENGTH) tags.add(tag);
      else dropped("tags", `each tag must be a non-empty string of at most ${MAX_VALUE_LENGTH} characters`);
    }
  } catch (error) {
    noteUnreadable(error);
  }
  return [...tags];
}

function dropped(name: string, why: string): void {
  warnOnce(`propagateAttributes: ${name} dropped: ${why}`);
}
