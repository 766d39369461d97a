// How a component's options are read (the option, then its variables, then the default), checked, and shown in the
// line a component logs when it is created.
import { getGlobalLogger, isLogLevelEnabled, LogLevel } from "../log/logger.js";
import { REDACTED, redactSecrets } from "../log/secrets.js";

/** Environment variables by name, as `process.env` holds them. */
export type Env = Record<string, string | undefined>;

/** `process.env` where the runtime has one, else an empty object. */
export function readEnv(): Env {
  return typeof process === "undefined" || typeof process.env !== "object" ? {} : process.env;
}

/** A value read from an option or a variable, or what was expected instead. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; expected: string };

/** A variable an option falls back to; `scale` converts its unit to the option's (ms to seconds: 0.001). */
export interface EnvSource {
  name: string;
  scale?: number;
}

/** How one option is read: from the option, then each variable in order, then the default. */
export interface OptionSpec<T> {
  /** Checks an option value. */
  parse(value: unknown): Parsed<T>;
  /** Checks a variable's text (already trimmed); without it the variable is not read. */
  parseEnv?(text: string, scale: number): Parsed<T>;
  env?: readonly (string | EnvSource)[];
  /** The value when no source gives a valid one. */
  fallback: T;
  /** `0` is taken as "not set" (the previous major did so), falling through to the next setting without a warning. */
  zeroIsUnset?: boolean;
  /** Printed as a marker in log lines. */
  secret?: boolean;
}

/** Resolved settings, with where each came from: `option`, a variable's name, or `default`. */
export type Resolved<S extends Record<string, OptionSpec<unknown>>> = {
  [K in keyof S]: S[K] extends OptionSpec<infer T> ? T : never;
} & {
  readonly [SOURCES]: Record<keyof S, string>;
};

/** Key of the map of sources on a resolved object (kept off its enumerable keys). */
export const SOURCES: unique symbol = Symbol("sources");

/**
 * Resolves a component's options, first valid value wins: the option, each variable in order, the default. An invalid
 * value logs one warning (the value, what was expected, what is used instead) and falls through; an unknown option
 * name logs one with the closest known name. `known` names options the component reads itself. Never throws.
 */
export function resolveOptions<S extends Record<string, OptionSpec<unknown>>>(
  component: string,
  specs: S,
  params: unknown,
  env: Env = readEnv(),
  known: readonly string[] = [],
): Resolved<S> {
  const log = getGlobalLogger();
  const options = toRecord(component, params);
  warnUnknownOptions(component, options, [...Object.keys(specs), ...known]);
  const out = {} as Record<string, unknown>;
  const sources = {} as Record<string, string>;
  for (const [name, spec] of Object.entries(specs)) {
    const problems: string[] = [];
    const { value, source } = resolveOne(name, spec, options[name], env, problems);
    out[name] = value;
    sources[name] = source;
    for (const problem of problems) {
      const used = value === undefined ? "none" : spec.secret ? REDACTED : show(value);
      log.warn(`${component}: ${problem}; using ${used} (${source})`);
    }
  }
  Object.defineProperty(out, SOURCES, { value: sources, enumerable: false });
  return out as Resolved<S>;
}

/** Logs one warning per option name that `known` does not list, with the closest known name when there is one. */
export function warnUnknownOptions(component: string, options: object, known: readonly string[]): void {
  let keys: string[];
  try {
    keys = Object.keys(options);
  } catch {
    return;
  }
  let warned = 0;
  for (const key of keys) {
    if (known.includes(key)) continue;
    if (++warned > MAX_UNKNOWN_OPTION_LINES) continue;
    const near = closest(key.slice(0, 64), known);
    getGlobalLogger().warn(
      `${component}: unknown option ${show(key)} is ignored${near ? `; did you mean "${near}"?` : ""}`,
    );
  }
  if (warned > MAX_UNKNOWN_OPTION_LINES)
    getGlobalLogger().warn(`${component}: ${warned - MAX_UNKNOWN_OPTION_LINES} more unknown options are ignored`);
}

const MAX_UNKNOWN_OPTION_LINES = 10;

function resolveOne(
  name: string,
  spec: OptionSpec<unknown>,
  raw: unknown,
  env: Env,
  problems: string[],
): { value: unknown; source: string } {
  if (raw !== undefined && !(spec.zeroIsUnset && raw === 0)) {
    const parsed = spec.parse(raw);
    if (parsed.ok) return { value: parsed.value, source: "option" };
    problems.push(`option ${name}=${spec.secret ? REDACTED : show(raw)} is not ${parsed.expected}`);
  }
  if (spec.parseEnv) {
    for (const entry of spec.env ?? []) {
      const { name: variable, scale = 1 } = typeof entry === "string" ? { name: entry } : entry;
      const text = env[variable]?.trim();
      if (!text || (spec.zeroIsUnset && Number(text) === 0)) continue;
      const parsed = spec.parseEnv(text, scale);
      if (parsed.ok) return { value: parsed.value, source: variable };
      problems.push(
        `ignoring ${variable}=${spec.secret ? REDACTED : JSON.stringify(text)}, which is not ${parsed.expected}`,
      );
    }
  }
  return { value: spec.fallback, source: "default" };
}

/** The options, when they are an object that can hold options: not an array, a buffer, a map or a set. */
function toRecord(component: string, params: unknown): Record<string, unknown> {
  if (params === undefined || params === null) return {};
  const collection = [Map, Set, ArrayBuffer].some((type) => params instanceof type);
  if (typeof params === "object" && !Array.isArray(params) && !ArrayBuffer.isView(params) && !collection)
    return params as Record<string, unknown>;
  getGlobalLogger().warn(`${component}: options must be an object, got ${show(params)}; using the defaults`);
  return {};
}

/** A short, printable form of a value given as an option. */
export function show(value: unknown): string {
  try {
    if (typeof value === "string")
      return redactSecrets(JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value));
    if (typeof value === "function") return "a function";
    if (Array.isArray(value)) return "an array";
    if (typeof value === "object" && value !== null) return "an object";
    return String(value);
  } catch {
    // Array.isArray throws on a revoked Proxy.
    return "an unprintable value";
  }
}

/** The known name nearest to `name` (edit distance at most a third of its length, at least 2), if any. */
function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** A finite number in a range (above `min`, or from it with `minInclusive`), read from the option or from variables. */
export function numberOption<D extends number | undefined>(
  fallback: D,
  spec: Pick<OptionSpec<number>, "env" | "zeroIsUnset"> & {
    min?: number;
    minInclusive?: boolean;
    max?: number;
    integer?: boolean;
  } = {},
): OptionSpec<number | D> {
  const { min, minInclusive = false, max, integer = false } = spec;
  const expected = [
    integer ? "a whole number" : "a number",
    min === undefined ? "" : `${minInclusive ? ">=" : ">"} ${min}`,
    max === undefined ? "" : `<= ${max}`,
  ]
    .filter(Boolean)
    .join(" ");
  const check = (value: unknown): Parsed<number> => {
    if (typeof value !== "number" || !Number.isFinite(value)) return { ok: false, expected };
    if (integer && !Number.isInteger(value)) return { ok: false, expected };
    if (min !== undefined && (minInclusive ? value < min : value <= min)) return { ok: false, expected };
    if (max !== undefined && value > max) return { ok: false, expected };
    return { ok: true, value };
  };
  return {
    parse: check,
    parseEnv: (text, scale) => {
      const number = Number(text);
      return Number.isFinite(number) ? check(number * scale) : { ok: false, expected };
    },
    env: spec.env,
    fallback,
    zeroIsUnset: spec.zeroIsUnset,
  };
}

/** One of a few strings; variables are read case-insensitively. */
export function enumOption<T extends string, D extends T | undefined>(
  values: readonly T[],
  fallback: D,
  env: readonly string[] = [],
): OptionSpec<T | D> {
  const expected = `one of ${values.map((v) => `"${v}"`).join(", ")}`;
  return {
    parse: (value) =>
      typeof value === "string" && (values as readonly string[]).includes(value)
        ? { ok: true, value: value as T }
        : { ok: false, expected },
    parseEnv: (text) => {
      const lower = text.toLowerCase();
      return (values as readonly string[]).includes(lower) ? { ok: true, value: lower as T } : { ok: false, expected };
    },
    env,
    fallback,
  };
}

/** A boolean option; its variable is off for `false` or `0` (any case) and on for anything else. */
export function booleanOption(fallback: boolean, env: readonly string[] = []): OptionSpec<boolean> {
  return {
    parse: (value) => (typeof value === "boolean" ? { ok: true, value } : { ok: false, expected: "true or false" }),
    parseEnv: (text) => ({ ok: true, value: !/^(false|0)$/i.test(text) }),
    env,
    fallback,
  };
}

/** A non-empty string, from the option or variables. */
export function stringOption(env: readonly string[] = []): OptionSpec<string | undefined> {
  const expected = "a non-empty string";
  return {
    parse: (value) => (typeof value === "string" && value !== "" ? { ok: true, value } : { ok: false, expected }),
    parseEnv: (text) => ({ ok: true, value: text }),
    env,
    fallback: undefined,
  };
}

/** A function given in code. */
export function functionOption<F extends (...args: never[]) => unknown>(): OptionSpec<F | undefined> {
  return {
    parse: (value) =>
      typeof value === "function" ? { ok: true, value: value as F } : { ok: false, expected: "a function" },
    fallback: undefined,
  };
}

/** A plain object of string values (headers); other values in it are dropped with the warning. */
export function stringRecordOption(): OptionSpec<Record<string, string>> {
  const expected = "an object of strings";
  return {
    parse: (value) => {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, expected };
      const out: Record<string, string> = {};
      for (const [key, item] of Object.entries(value)) {
        if (typeof item === "string") out[key] = item;
        else if (typeof item === "number" || typeof item === "boolean") out[key] = String(item);
        else return { ok: false, expected };
      }
      return { ok: true, value: out };
    },
    fallback: {},
  };
}

/** An object with the methods named (an exporter, for example). */
export function objectOption<T extends object>(methods: readonly string[], what: string): OptionSpec<T | undefined> {
  return {
    parse: (value) =>
      typeof value === "object" &&
      value !== null &&
      methods.every((m) => typeof (value as Record<string, unknown>)[m] === "function")
        ? { ok: true, value: value as T }
        : { ok: false, expected: what },
    fallback: undefined,
  };
}

/** Longest environment name. */
const MAX_ENVIRONMENT_LENGTH = 40;

const ENVIRONMENT_PATTERN = /^[a-z0-9_-]+$/;

/** The environment rule in words, for log lines. */
export const ENVIRONMENT_RULE = `1-${MAX_ENVIRONMENT_LENGTH} characters of a-z, 0-9, _ or -, not starting with "svc"`;

/** Whether `value` is a valid environment name ({@link ENVIRONMENT_RULE}): one rule for options and baggage. */
export function isValidEnvironment(value: unknown): value is string {
  return (
    typeof value === "string" &&
    value.length <= MAX_ENVIRONMENT_LENGTH &&
    ENVIRONMENT_PATTERN.test(value) &&
    !value.startsWith("svc")
  );
}

/** An environment name from the option, then the variables given; an invalid one warns and falls through. */
export function environmentOption(env: readonly string[]): OptionSpec<string | undefined> {
  const expected = `a valid environment (${ENVIRONMENT_RULE})`;
  const parse = (value: unknown) =>
    isValidEnvironment(value) ? { ok: true as const, value } : { ok: false as const, expected };
  return { parse, parseEnv: parse, env, fallback: undefined };
}

/**
 * Logs at debug level the line a component writes when created: each setting, its value and source, secrets redacted,
 * header values left out. `settings` is only called when debug lines are written.
 */
export function logStartup(component: string, settings: () => readonly string[]): void {
  if (!isLogLevelEnabled(LogLevel.DEBUG)) return;
  try {
    getGlobalLogger().debug(`${component}: created with ${settings().join(", ")}`);
  } catch {
    // A start-up line is never worth an error.
  }
}

/** `name=value (source)` for each resolved option. */
export function optionSettings<S extends Record<string, OptionSpec<unknown>>>(
  specs: S,
  resolved: Resolved<S>,
): string[] {
  return Object.keys(specs).map((name) => {
    const value = specs[name]?.secret ? REDACTED : settingValue(resolved[name as keyof S]);
    return `${name}=${value} (${resolved[SOURCES][name as keyof S]})`;
  });
}

/** A value as a start-up line shows it: headers by name only, since their values may be credentials. */
function settingValue(value: unknown): string {
  if (value === undefined) return "none";
  const isHeaders =
    typeof value === "object" &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype &&
    Object.values(value).every((v) => typeof v === "string");
  return isHeaders ? `{${Object.keys(value).join(", ")}}` : show(value);
}
