/** The entries of the registry and what each holds; ARCHITECTURE.md ("The global registry") gives their shapes. */
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

const KEY = "svc.registry";
/**
 * The shape of the registry and of every entry in it: raised whenever an entry or one of its fields is removed or
 * changes its meaning or type; an entry or a field added that older readers can ignore keeps it.
 */
const VERSION = 1;

interface Registry {
  readonly version: number;
  readonly entries: Map<string, object>;
}

let registry: Registry | undefined;
/** Whether this copy keeps a registry of its own, having found one it cannot read. */
let isPrivate = false;
/** Where a copy says what it cannot share: the logger's warn, once the logger (itself an entry) is loaded. */
let report: ((line: string) => void) | undefined;
const unreported: string[] = [];

/** Sends the lines about state that cannot be shared to `line`, those found so far first. */
export function reportUnshared(line: (text: string) => void): void {
  report = line;
  flush();
}

function flush(): void {
  if (report !== undefined) for (const text of unreported.splice(0)) report(text);
}

/**
 * The entry `name` of the registry under `globalThis[Symbol.for("svc.registry")]`, created on first use: the state
 * every copy of the core in a process must share. A copy that finds a registry of another version logs one warning
 * naming what is no longer shared and keeps a registry of its own.
 *
 * `of600` is the key under which 6.0.0 kept this state: an object there that `readable` accepts is the entry; where
 * there is none, the entry is put there too, for a 6.0.0 loaded later; any other object is warned about once.
 */
export function shared<T extends object>(
  name: keyof typeof ENTRIES,
  create: () => T,
  of600?: { key: string; readable?: (value: object) => boolean },
): () => T {
  let found: T | undefined;
  return () => {
    if (found !== undefined) return found;
    const { entries } = theRegistry();
    let entry = entries.get(name) as T | undefined;
    if (entry === undefined) {
      entry = of600 === undefined || isPrivate ? create() : from600(of600.key, of600.readable, create, ENTRIES[name]);
      entries.set(name, entry);
    }
    found = entry;
    // Told once the entry is in place: the logger that writes the line reads its own entry.
    flush();
    return entry;
  };
}

function theRegistry(): Registry {
  if (registry !== undefined) return registry;
  const key = Symbol.for(KEY);
  const current = (globalThis as unknown as Record<symbol, unknown>)[key];
  const { version, entries } = (typeof current === "object" && current !== null ? current : {}) as Partial<Registry>;
  const readable = version === VERSION && entries instanceof Map;
  registry = readable ? (current as Registry) : { version: VERSION, entries: new Map() };
  if (readable) return registry;
  if (current === undefined) {
    define(key, registry);
  } else {
    isPrivate = true;
    const all = Object.values(ENTRIES).join(", ");
    warnUnshared(KEY, current, "another version of the @svc packages", `reads version ${VERSION}`, all);
  }
  return registry;
}

function from600<T extends object>(
  key: string,
  readable: ((value: object) => boolean) | undefined,
  create: () => T,
  holds: string,
): T {
  const symbol = Symbol.for(key);
  const current = (globalThis as unknown as Record<symbol, unknown>)[symbol];
  if (readable !== undefined && typeof current === "object" && current !== null && readable(current))
    return current as T;
  const made = create();
  if (current === undefined) {
    if (readable !== undefined) define(symbol, made);
  } else {
    const reads = `keeps its state under Symbol.for("${KEY}") and does not read that object`;
    warnUnshared(key, current, "6.0.0 of the @svc packages, or the previous major", reads, holds);
  }
  return made;
}

function define(key: symbol, value: object): void {
  Object.defineProperty(globalThis, key, { value, writable: false, configurable: false, enumerable: false });
}

function warnUnshared(key: string, value: unknown, who: string, reads: string, holds: string): void {
  const version = typeof value === "object" && value !== null ? (value as { version?: unknown }).version : undefined;
  const what =
    typeof version === "number" ? `version ${version} of its shape` : "an object of a shape without a version";
  unreported.push(
    `global key Symbol.for("${key}") holds ${what}, made by another copy of the SDK in this process (${who}); ` +
      `this copy ${reads}. It keeps its own ${holds}, which the other copy no longer shares. Install one version ` +
      "of the @svc packages (`npm ls @svc/tracing` shows them) to share it again.",
  );
}
