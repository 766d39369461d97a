import { getGlobalLogger } from "../logger.js";

/**
 * Runs `fn` and returns its result; on a throw logs one warning naming `what` and returns `undefined`.
 * Keeps instrumentation errors out of user code.
 */
export function safely<T>(what: string, fn: () => T): T | undefined {
  try {
    return fn();
  } catch (err) {
    getGlobalLogger().warn(`${what} failed and was skipped: ${describeError(err)}`);
    return undefined;
  }
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
