/**
 * What every copy of the SDK in a process shares, by entry name, with what each entry holds (for the line that says
 * a copy cannot share it). ARCHITECTURE.md ("The global registry") gives each entry's shape.
 */
const ENTRIES = {
  tracer: "tracer provider (setSvcTracerProvider)",
  logger: "log level and sink",
  secrets: "list of secrets to redact",
  "processor-presence": "count of span starts seen by span processors",
  "processor-probes": "list of span processors for the doctor",
  "delivery-metrics": "delivery metrics registrations",
  interceptor: "transport interceptor (the test kit's server)",
  exit: "list of queues to flush or count at exit",
  "held-repeats": "list of counts to log at exit",
  "unanswered-servers": "list of servers that did not answer a flush",
} as const;

/** The name of an entry of the registry. */
export type SharedName = keyof typeof ENTRIES;

/** Where the registry lives: `globalThis[Symbol.for(REGISTRY_KEY)]`. */
export const REGISTRY_KEY = "svc.registry";
/**
 * The shape of the registry and of every entry in it. Raised whenever an entry or one of its fields is removed or
 * changes its meaning or type; an entry or a field added that older readers can ignore keeps the version.
 */
export const REGISTRY_VERSION = 1;

interface Registry {
  readonly version: number;
  readonly entries: Map<string, object>;
}

/**
 * A key that 6.0.0 wrote without a version, before the registry, for what is now an entry. An object found there
 * that `readable` accepts is that entry (shared with 6.0.0); when none is there, the entry is put there too, for a
 * 6.0.0 loaded later. Without `readable`, an object found there is another shape, and said so.
 */
export interface KeyOf600 {
  readonly key: string;
  readonly readable?: (value: object) => boolean;
}

/** Where a copy says what it cannot share; set by the logger (which itself keeps an entry). */
let report: ((line: string) => void) | undefined;
const unreported: string[] = [];
let registry: Registry | undefined;
/** Whether this copy keeps a registry of its own, having found one it cannot read. */
let isPrivate = false;

/** Sends the lines about state that cannot be shared to `line` (the logger's warn), those found so far first. */
export function reportUnshared(line: (text: string) => void): void {
  report = line;
  for (const text of unreported.splice(0)) line(text);
}

/**
 * A process-wide entry of the registry under `Symbol.for("svc.registry")`, created on first use. A process may hold
 * more than one copy of the core (two versions of the SDK, or its ES module and CommonJS builds); state that must be
 * the same for all of them (the logger setting, the secrets to redact, the tracer provider) lives in an entry and
 * nowhere else.
 *
 * The registry carries the version of its shape. A copy that finds another version there (an older or newer SDK
 * made it) does not read it: it logs one warning naming what is no longer shared, and keeps a registry of its own,
 * so that it goes on working on its own.
 */
export function shared<T extends object>(name: SharedName, create: () => T, of600?: KeyOf600): () => T {
  let found: T | undefined;
  return () => {
    if (found !== undefined) return found;
    const { entries } = theRegistry();
    let entry = entries.get(name) as T | undefined;
    if (entry === undefined) {
      entry = of600 === undefined || isPrivate ? create() : fromKeyOf600(of600, create, ENTRIES[name]);
      entries.set(name, entry);
    }
    found = entry;
    // Told once the entry is in place: the logger that writes the line reads its own entry.
    if (report !== undefined) for (const text of unreported.splice(0)) report(text);
    return entry;
  };
}

function theRegistry(): Registry {
  if (registry !== undefined) return registry;
  const key = Symbol.for(REGISTRY_KEY);
  const current = (globalThis as unknown as Record<symbol, unknown>)[key];
  if (current === undefined) {
    registry = { version: REGISTRY_VERSION, entries: new Map() };
    defineGlobal(key, registry);
  } else if (isReadable(current)) {
    registry = current;
  } else {
    registry = { version: REGISTRY_VERSION, entries: new Map() };
    isPrivate = true;
    const all = Object.values(ENTRIES).join(", ");
    warnUnshared(
      REGISTRY_KEY,
      current,
      "another version of the @svc packages",
      `reads version ${REGISTRY_VERSION}`,
      all,
    );
  }
  return registry;
}

function fromKeyOf600<T extends object>({ key, readable }: KeyOf600, create: () => T, holds: string): T {
  const symbol = Symbol.for(key);
  const current = (globalThis as unknown as Record<symbol, unknown>)[symbol];
  if (readable !== undefined && typeof current === "object" && current !== null && readable(current))
    return current as T;
  const made = create();
  if (current === undefined) {
    if (readable !== undefined) defineGlobal(symbol, made);
  } else {
    const reads = `keeps its state under Symbol.for("${REGISTRY_KEY}") and does not read that object`;
    warnUnshared(key, current, "6.0.0 of the @svc packages, or the previous major", reads, holds);
  }
  return made;
}

function defineGlobal(key: symbol, value: object): void {
  Object.defineProperty(globalThis, key, { value, writable: false, configurable: false, enumerable: false });
}

function isReadable(value: unknown): value is Registry {
  if (typeof value !== "object" || value === null) return false;
  const { version, entries } = value as Partial<Registry>;
  return version === REGISTRY_VERSION && entries instanceof Map;
}

function warnUnshared(key: string, value: unknown, who: string, reads: string, holds: string): void {
  const version = typeof value === "object" && value !== null ? (value as { version?: unknown }).version : undefined;
  const what =
    typeof version === "number" ? `version ${version} of its shape` : "an object of a shape without a version";
  const line =
    `global key Symbol.for("${key}") holds ${what}, made by another copy of the SDK in this process ` +
    `(${who}); this copy ${reads}. ` +
    `It keeps its own ${holds}, which the other copy no longer shares. Install one version of the @svc ` +
    "packages (`npm ls @svc/tracing` shows them) to share it again.";
  unreported.push(line);
}
