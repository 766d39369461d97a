import { describeError } from "./describe.js";
import { RepeatLog } from "./repeat-log.js";

/** The repeat log of this copy of the core, for failures that have no component of their own to report them. */
const shared = new RepeatLog();

/** Runs `fn`; on a throw logs a warning naming `what` (then counts, through `repeats`) and returns `undefined`. */
export function safely<T>(what: string, fn: () => T, repeats: RepeatLog = shared): T | undefined {
  try {
    return fn();
  } catch (error) {
    warnSkipped(what, error, repeats);
    return undefined;
  }
}

/** Logs that `what` failed and was skipped; the first time per `what` in full, then as a count. */
export function warnSkipped(what: string, error: unknown, repeats: RepeatLog = shared): void {
  const kind = `${what} failed and was skipped`;
  repeats.warn(kind, `${kind}: ${describeError(error)}`);
}

/** Whether `value` is a promise or another thenable; never throws (a throwing `then` getter means no). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return false;
  try {
    return typeof (value as { then?: unknown }).then === "function";
  } catch {
    return false;
  }
}
