import { getGlobalLogger } from "@svc/tracing";
import type { ScoreParams } from "./score/config.js";

/** Options of {@link SvcClient}. */
export interface SvcClientParams extends ScoreParams {
  /** Project public key. Falls back to SVC_PUBLIC_KEY. */
  publicKey?: string;
  /** Project secret key. Falls back to SVC_SECRET_KEY. */
  secretKey?: string;
  /** Server address. Falls back to SVC_BASE_URL, then SVC_BASEURL. @defaultValue `https://cloud.svc.dev` */
  baseUrl?: string;
  /** Default timeout of every REST call, in seconds. @defaultValue 60 */
  timeout?: number;
  /** Headers added to every REST call. */
  additionalHeaders?: Record<string, string>;
}

/** Settings of a client after options, environment and defaults are applied. */
export interface SvcClientConfig {
  publicKey: string | undefined;
  secretKey: string | undefined;
  baseUrl: string;
  timeoutSeconds: number;
  additionalHeaders: Record<string, string>;
}

type Env = Record<string, string | undefined>;

/** Hosted server address used when neither the option nor the environment names one. */
export const DEFAULT_BASE_URL = "https://cloud.svc.dev";
/** Default timeout of a REST call, in seconds. */
export const DEFAULT_TIMEOUT_SECONDS = 60;

/** Resolves client settings: option, then environment, then default. Warns about missing keys. */
export function resolveClientConfig(params: SvcClientParams = {}, env: Env = process.env): SvcClientConfig {
  const publicKey = params.publicKey ?? (env.SVC_PUBLIC_KEY || undefined);
  const secretKey = params.secretKey ?? (env.SVC_SECRET_KEY || undefined);
  const logger = getGlobalLogger();
  if (!publicKey)
    logger.warn("SvcClient: no public key; pass publicKey or set SVC_PUBLIC_KEY. Requests will be rejected.");
  if (!secretKey)
    logger.warn("SvcClient: no secret key; pass secretKey or set SVC_SECRET_KEY. Requests will be rejected.");
  const baseUrl =
    params.baseUrl ?? (env.SVC_BASE_URL || undefined) ?? (env.SVC_BASEURL || undefined) ?? DEFAULT_BASE_URL;
  if (params.timeout !== undefined && !(Number.isFinite(params.timeout) && params.timeout > 0)) {
    throw new TypeError(
      `SvcClient: option timeout must be a positive number of seconds, got ${String(params.timeout)}`,
    );
  }
  return {
    publicKey,
    secretKey,
    baseUrl: baseUrl.replace(/\/+$/, ""),
    timeoutSeconds: params.timeout ?? DEFAULT_TIMEOUT_SECONDS,
    additionalHeaders: { ...params.additionalHeaders },
  };
}
