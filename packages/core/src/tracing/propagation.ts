import {
  type Attributes,
  type AttributeValue,
  type Baggage,
  type Context,
  context,
  createContextKey,
  propagation,
  trace,
} from "@opentelemetry/api";
import { SvcOtelSpanAttributes as A } from "../attributes.js";
import { ENVIRONMENT_RULE, isValidEnvironment } from "../config/options.js";
import { RepeatLog } from "../log/repeat-log.js";

/** Context key under which the propagated span attributes (wire keys and values) are stored. */
const SVC_PROPAGATED_ATTRIBUTES_KEY = createContextKey("svc.propagated_attributes");

/** Baggage entry that marks the trace id svc already holds a root span for. */
const SVC_TRACE_ID_BAGGAGE_KEY = "svc_trace_id";

const METADATA_BAGGAGE_PREFIX = "svc_metadata_";
const TRACE_METADATA_PREFIX = `${A.TRACE_METADATA}.`;

/** Span attribute key per baggage key; an experiment key travels with `_` for `.` (`svc_experiment_item_id`). */
const BAGGAGE_TO_SPAN_KEY: Readonly<Record<string, string>> = {
  svc_user_id: A.TRACE_USER_ID,
  svc_session_id: A.TRACE_SESSION_ID,
  svc_version: A.VERSION,
  svc_trace_name: A.TRACE_NAME,
  svc_tags: A.TRACE_TAGS,
  svc_environment: A.ENVIRONMENT,
  svc_prompt_name: A.OBSERVATION_PROMPT_NAME,
  svc_prompt_version: A.OBSERVATION_PROMPT_VERSION,
  ...Object.fromEntries(
    Object.entries(A)
      .filter(([name]) => name.startsWith("EXPERIMENT_"))
      .map(([, key]) => [key.replaceAll(".", "_"), key]),
  ),
};

const SPAN_KEY_TO_BAGGAGE: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(BAGGAGE_TO_SPAN_KEY).map(([baggageKey, spanKey]) => [spanKey, baggageKey]),
);

const EMPTY: Attributes = Object.freeze({});

/** Baggage is read at every span start: an invalid entry is logged once, then counted. */
const baggageRepeats = new RepeatLog();

/**
 * Sets span attributes on the active span and every span started inside `fn`, across `await`: a key replaces the same
 * key and its dotted sub-keys; with `asBaggage`, the attributes with a baggage name also travel as W3C baggage
 * `svc_*`, to cross processes. Returns what `fn` returns.
 */
export function propagateSpanAttributes<R>(
  attributes: Attributes,
  fn: () => R,
  options: { asBaggage?: boolean } = {},
): R {
  const next = buildPropagationContext(context.active(), attributes, options);
  return next === undefined ? fn() : context.with(next, fn);
}

/** The context that carries `attributes` merged over the ones in `ctx`; `undefined` when nothing changes. */
export function buildPropagationContext(
  ctx: Context,
  attributes: Attributes,
  options: { asBaggage?: boolean } = {},
): Context | undefined {
  const keys = Object.keys(attributes).filter((key) => attributes[key] !== undefined && attributes[key] !== null);
  if (keys.length === 0) return undefined;
  const span = trace.getSpan(ctx);
  if (span?.isRecording()) span.setAttributes(attributes);

  const merged: Attributes = { ...(ctx.getValue(SVC_PROPAGATED_ATTRIBUTES_KEY) as Attributes | undefined) };
  for (const key of keys) {
    const prefix = `${key}.`;
    for (const existing of Object.keys(merged)) if (existing.startsWith(prefix)) delete merged[existing];
    merged[key] = attributes[key];
  }
  let next = ctx.setValue(SVC_PROPAGATED_ATTRIBUTES_KEY, Object.freeze(merged));
  if (options.asBaggage) next = withBaggage(next, attributes, keys);
  return next;
}

function withBaggage(ctx: Context, attributes: Attributes, keys: string[]): Context {
  let bag = propagation.getBaggage(ctx) ?? propagation.createBaggage();
  for (const key of keys) {
    const baggageKey = baggageKeyFor(key);
    if (baggageKey === undefined) continue;
    const value = attributes[key];
    bag = bag.setEntry(baggageKey, { value: Array.isArray(value) ? value.join(",") : String(value) });
  }
  return propagation.setBaggage(ctx, bag);
}

function baggageKeyFor(spanKey: string): string | undefined {
  const known = SPAN_KEY_TO_BAGGAGE[spanKey];
  if (known !== undefined) return known;
  if (spanKey.startsWith(TRACE_METADATA_PREFIX)) {
    const metadataKey = spanKey.slice(TRACE_METADATA_PREFIX.length);
    // Only top-level metadata keys travel as baggage; their JSON text already holds the nested values.
    if (metadataKey && !metadataKey.includes(".")) return METADATA_BAGGAGE_PREFIX + metadataKey;
  }
  return undefined;
}

/** The attributes propagated in `ctx`, over those of `svc_*` baggage entries; the object must not be modified. */
export function getPropagatedAttributes(ctx: Context): Attributes {
  const stored = ctx.getValue(SVC_PROPAGATED_ATTRIBUTES_KEY) as Attributes | undefined;
  const bag = propagation.getBaggage(ctx);
  const fromBaggage = bag === undefined ? undefined : baggageToAttributes(bag);
  if (fromBaggage === undefined) return stored ?? EMPTY;
  return stored === undefined ? fromBaggage : { ...fromBaggage, ...stored };
}

function baggageToAttributes(bag: Baggage): Attributes | undefined {
  let out: Attributes | undefined;
  for (const [key, entry] of bag.getAllEntries()) {
    // Baggage made in code can hold an entry without a key or a value; the W3C propagator makes none.
    if (typeof key !== "string" || key === SVC_TRACE_ID_BAGGAGE_KEY || !key.startsWith("svc_")) continue;
    const value = entry?.value;
    if (typeof value !== "string") continue;
    const converted = fromBaggageEntry(key, value);
    if (converted === undefined) continue;
    out ??= {};
    out[converted[0]] = converted[1];
  }
  return out;
}

function fromBaggageEntry(key: string, value: string): [string, AttributeValue] | undefined {
  if (key.startsWith(METADATA_BAGGAGE_PREFIX)) {
    return [TRACE_METADATA_PREFIX + key.slice(METADATA_BAGGAGE_PREFIX.length), value];
  }
  const spanKey = BAGGAGE_TO_SPAN_KEY[key];
  if (spanKey === undefined) return undefined;
  if (spanKey === A.TRACE_TAGS) return [spanKey, value.split(",").filter((tag) => tag.length > 0)];
  if (spanKey === A.ENVIRONMENT && !isValidEnvironment(value)) {
    const kind = "baggage: svc_environment dropped";
    baggageRepeats.warn(kind, `${kind}: ${JSON.stringify(String(value).slice(0, 80))} is not ${ENVIRONMENT_RULE}`);
    return undefined;
  }
  if (spanKey === A.OBSERVATION_PROMPT_VERSION) {
    const version = Number(value);
    return Number.isInteger(version) ? [spanKey, version] : undefined;
  }
  return [spanKey, value];
}

/** Whether `ctx` carries the baggage claim `svc_trace_id` for `traceId` (set by active observations). */
export function hasTraceIdClaim(ctx: Context, traceId: string): boolean {
  return propagation.getBaggage(ctx)?.getEntry(SVC_TRACE_ID_BAGGAGE_KEY)?.value === traceId;
}

/** `ctx` with the baggage claim for `traceId`; `ctx` itself when it already carries it. */
export function withTraceIdClaim(ctx: Context, traceId: string): Context {
  if (hasTraceIdClaim(ctx, traceId)) return ctx;
  const next = (propagation.getBaggage(ctx) ?? propagation.createBaggage()).setEntry(SVC_TRACE_ID_BAGGAGE_KEY, {
    value: traceId,
  });
  return propagation.setBaggage(ctx, next);
}
