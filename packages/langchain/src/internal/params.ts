import { logStartup, show, warnUnknownOptions } from "@svc/core";

const OWNER = "CallbackHandler";
/** The option names of `CallbackHandler`. */
const KNOWN = ["userId", "sessionId", "tags", "version", "traceMetadata", "updateRoot"] as const;

/**
 * Logs one warning per option name the handler does not know (with the closest known name), then, at debug level,
 * the options it was created with. Never throws.
 */
export function reportParams(params: unknown): void {
  if (typeof params !== "object" || params === null) return;
  warnUnknownOptions(OWNER, params, KNOWN);
  logStartup(OWNER, () =>
    KNOWN.map((name) => {
      const value: unknown = (params as Record<string, unknown>)[name];
      return `${name}=${value === undefined ? "none" : Array.isArray(value) ? JSON.stringify(value) : show(value)}`;
    }),
  );
}
