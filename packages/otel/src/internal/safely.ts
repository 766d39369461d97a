import { getGlobalLogger } from "@svc/tracing";
import { describe } from "./otlp-http.js";

/** Runs `fn`; on a throw logs one warning naming `what` and returns undefined. */
export function safely<T>(what: string, fn: () => T): T | undefined {
  try {
    return fn();
  } catch (error) {
    getGlobalLogger().warn(`${what} failed and was skipped: ${describe(error)}`);
    return undefined;
  }
}
