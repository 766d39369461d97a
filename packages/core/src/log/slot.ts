/**
 * The contract of one process-wide slot: its key, the version of its object's shape, and what it shares.
 * ARCHITECTURE.md lists every slot with its shape.
 */
export interface SlotSpec {
  /** The slot lives under `Symbol.for(name)` on `globalThis`. */
  readonly name: string;
  /**
   * The shape of the slot's object, written into it as `version`. Raised whenever a field is removed or changes
   * its meaning or type; a field added that older readers can ignore keeps the version.
   */
  readonly version: number;
  /** What the copies share through it, for the line that says a copy cannot share it. */
  readonly holds: string;
  /**
   * Whether an object without a `version` field has this version's shape: slots that 6.0.0 already wrote,
   * before versions were written into them.
   */
  readonly unversioned?: (value: object) => boolean;
}

/** Where a copy says that it found a slot it cannot read; set by the logger (which itself keeps a slot). */
let report: ((line: string) => void) | undefined;
const unreported: string[] = [];

/** Sends the lines about unreadable slots to `line` (the logger's warn), those found so far first. */
export function reportUnreadableSlots(line: (text: string) => void): void {
  report = line;
  for (const text of unreported.splice(0)) line(text);
}

/**
 * A process-wide object under `Symbol.for(spec.name)`, created on first use. A process may hold more than one copy
 * of the core (two versions of the SDK, or its ES module and CommonJS builds); state that must be the same for all
 * of them (the logger setting, the secrets to redact, the tracer provider) lives in such a slot and nowhere else.
 *
 * The object carries the version of its shape. A copy that finds another version there (an older or newer SDK, or
 * the previous major, made it) does not read it: it logs one warning naming the slot and what is no longer shared,
 * and keeps an object of its own, so that it goes on working on its own.
 */
export function globalSlot<T extends object>(spec: SlotSpec, create: () => T): () => T {
  const key = Symbol.for(spec.name);
  let found: T | undefined;
  return () => {
    if (found !== undefined) return found;
    const holder = globalThis as unknown as Record<symbol, unknown>;
    const current = holder[key];
    if (current === undefined) {
      const made = Object.defineProperty(create(), "version", { value: spec.version, enumerable: true });
      Object.defineProperty(globalThis, key, { value: made, writable: false, configurable: false, enumerable: false });
      found = made;
      return made;
    }
    if (isReadable(current, spec)) {
      found = current as T;
      return found;
    }
    found = create();
    warnUnreadable(spec, current);
    return found;
  };
}

function isReadable(value: unknown, spec: SlotSpec): boolean {
  if (typeof value !== "object" || value === null) return false;
  const version = (value as { version?: unknown }).version;
  if (version === undefined) return spec.unversioned?.(value) === true;
  return version === spec.version;
}

function warnUnreadable(spec: SlotSpec, value: unknown): void {
  const version = typeof value === "object" && value !== null ? (value as { version?: unknown }).version : undefined;
  const what =
    typeof version === "number" ? `version ${version} of its shape` : "an object of a shape without a version";
  const line =
    `global slot Symbol.for("${spec.name}") holds ${what}, made by another copy of the SDK in this process ` +
    `(another version of the @svc packages, or the previous major); this copy reads version ${spec.version}. ` +
    `It keeps its own ${spec.holds}, which the other copy no longer shares. Install one version of the @svc ` +
    "packages (`npm ls @svc/tracing` shows them) to share it again.";
  if (report === undefined) unreported.push(line);
  else report(line);
}
