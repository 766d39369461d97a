import { getGlobalLogger, isLogLevelEnabled, LogLevel } from "../log/logger.js";
import { REDACTED, redactSecrets } from "../log/secrets.js";
import type { Connection } from "./connection.js";
import { type OptionSpec, type Resolved, SOURCES, show } from "./options.js";

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

/** `name=value (source)` for the address and the keys; the secret key is redacted. */
export function connectionSettings(connection: Connection): string[] {
  const { sources } = connection;
  return [
    `baseUrl=${JSON.stringify(redactSecrets(connection.baseUrl))} (${sources.baseUrl})`,
    `publicKey=${connection.publicKey === undefined ? "none" : JSON.stringify(connection.publicKey)} (${sources.publicKey})`,
    `secretKey=${connection.secretKey === undefined ? "none" : REDACTED} (${sources.secretKey})`,
  ];
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
