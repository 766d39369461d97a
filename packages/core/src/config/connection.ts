import { getGlobalLogger } from "../log/logger.js";
import { REDACTED, redactSecrets, registerSecret } from "../log/secrets.js";
import { isLocalHost, parseHttpUrl } from "../transport/http.js";
import { interceptedKeys } from "../transport/interceptor.js";
import type { Env } from "./options.js";

/** Where spans are posted, below the base URL (OTLP/HTTP traces). */
export const OTLP_TRACES_PATH = "/api/public/otel/v1/traces";

/** Server address used when neither the option nor the environment names one. */
export const DEFAULT_BASE_URL = "https://cloud.svc.dev";

/** Where and as whom a component talks to the server. */
export interface Connection {
  /** Server address without trailing slashes, as given (it may be invalid: see `baseUrlProblem`). */
  baseUrl: string;
  /** Why the base URL cannot be used; when set, nothing is sent. */
  baseUrlProblem: string | undefined;
  /** The base URL as given, when the SDK uses it without a trailing `/api/public`; else undefined. */
  baseUrlWithApiPath: string | undefined;
  publicKey: string | undefined;
  secretKey: string | undefined;
  /** Where each setting came from: `option`, the variable's name, `default` or `none`. */
  sources: { baseUrl: string; publicKey: string; secretKey: string };
}

/** The path every route starts with, which a base URL copied from the API reference sometimes ends in. */
const API_PREFIX = /\/api\/public\/*$/i;

/**
 * Resolves the server address (`baseUrl`, `SVC_BASE_URL`, `SVC_BASEURL`, the default) and the keys (option, then
 * `SVC_PUBLIC_KEY`/`SVC_SECRET_KEY`), and registers the secret key. Logs a missing key (unless `keysOptional`), an
 * invalid base URL, plain `http://` to a host not local, and a trailing `/api/public` (then left out).
 */
export function resolveConnection(
  component: string,
  params: { publicKey?: unknown; secretKey?: unknown; baseUrl?: unknown },
  env: Env,
  {
    keysOptional = false,
    withoutKeys = "nothing is sent to the server",
  }: {
    keysOptional?: boolean;
    /** What the component does without both keys, for the warning: `"REST calls carry no credentials"`. */
    withoutKeys?: string;
  } = {},
): Connection {
  const log = getGlobalLogger();
  // Under a test kit, the keys of the server it stands in for come last.
  const standIn = interceptedKeys();
  const publicKey =
    keyFrom(component, "publicKey", params.publicKey) ?? nonEmpty(env.SVC_PUBLIC_KEY) ?? standIn?.publicKey;
  const secretKey =
    keyFrom(component, "secretKey", params.secretKey) ?? nonEmpty(env.SVC_SECRET_KEY) ?? standIn?.secretKey;
  registerSecret(secretKey);
  const missing = [
    ["publicKey", publicKey, "SVC_PUBLIC_KEY"],
    ["secretKey", secretKey, "SVC_SECRET_KEY"],
  ].filter(([, value]) => !value);
  if (!keysOptional && missing.length > 0) {
    const keys = missing.map(([key]) => key).join(" and ");
    const how = missing.map(([key, , variable]) => `${key} (or ${variable})`).join(" and ");
    log.warn(`${component}: no ${keys}; until both keys are set, ${withoutKeys}. Pass ${how}.`);
  }
  const fromOption = typeof params.baseUrl === "string" && params.baseUrl !== "" ? params.baseUrl : undefined;
  const variable = (["SVC_BASE_URL", "SVC_BASEURL"] as const).find((name) => nonEmpty(env[name]) !== undefined);
  const given = fromOption ?? (variable && nonEmpty(env[variable])) ?? DEFAULT_BASE_URL;
  const sources = {
    baseUrl: fromOption ? "option" : (variable ?? "default"),
    publicKey: keySource(params.publicKey, publicKey, "SVC_PUBLIC_KEY", env, standIn?.publicKey),
    secretKey: keySource(params.secretKey, secretKey, "SVC_SECRET_KEY", env, standIn?.secretKey),
  };
  if (params.baseUrl !== undefined && typeof params.baseUrl !== "string")
    log.warn(`${component}: option baseUrl must be a string; using ${redactSecrets(given)}`);
  let baseUrl = given.trim().replace(/\/+$/, "");
  const parsed = parseHttpUrl(baseUrl);
  let baseUrlWithApiPath: string | undefined;
  if (typeof parsed !== "string" && API_PREFIX.test(parsed.pathname)) {
    baseUrlWithApiPath = baseUrl;
    const stripped = baseUrl.replace(API_PREFIX, "");
    log.warn(
      `${component}: the base URL ${redactSecrets(baseUrl)} ends in /api/public, which the SDK adds to every route; using ${redactSecrets(stripped)}.`,
    );
    baseUrl = stripped;
  }
  let baseUrlProblem: string | undefined;
  if (typeof parsed === "string") {
    baseUrlProblem = `base URL ${parsed}`;
    log.error(`${component}: the ${baseUrlProblem}; nothing will be sent. Pass baseUrl or set SVC_BASE_URL.`);
  } else if (parsed.protocol === "http:" && !isLocalHost(parsed.hostname)) {
    log.warn(
      `${component}: the base URL ${redactSecrets(parsed.origin)} uses plain http; keys and data travel unencrypted. Use https.`,
    );
  }
  return { baseUrl, baseUrlProblem, baseUrlWithApiPath, publicKey, secretKey, sources };
}

function keyFrom(component: string, name: string, value: unknown): string | undefined {
  if (value === undefined || value === "") return undefined;
  if (typeof value === "string") return value;
  getGlobalLogger().warn(`${component}: option ${name} must be a string; ignored`);
  return undefined;
}

function keySource(option: unknown, value: string | undefined, variable: string, env: Env, kit?: string): string {
  if (value === undefined) return "none";
  if (typeof option === "string" && option !== "") return "option";
  return nonEmpty(env[variable]) === undefined && value === kit ? "test kit" : variable;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
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
