import { repeats } from "./repeats.js";

/**
 * Runs `fn` and returns its result; on a throw logs a warning naming `what` (repeats are counted, see
 * `RepeatLog`) and returns `undefined`. Keeps instrumentation errors out of user code.
 */
export function safely<T>(what: string, fn: () => T): T | undefined {
  try {
    return fn();
  } catch (err) {
    warnSkipped(what, err);
    return undefined;
  }
}

/** Logs that `what` failed and was skipped; the first time per `what` in full, then as a count. */
export function warnSkipped(what: string, err: unknown): void {
  const kind = `${what} failed and was skipped`;
  repeats.warn(kind, `${kind}: ${describeError(err)}`);
}

/** A one-line description of a thrown value that never throws itself. */
export function describeError(err: unknown): string {
  try {
    if (err instanceof Error) return err.message || err.name;
    return String(err);
  } catch {
    return "unknown error";
  }
}
