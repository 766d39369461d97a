import { registerSecret } from "../log/secrets.js";
import { SDK_VERSION } from "../version.js";
import { currentRuntime, describeRuntime } from "./runtime.js";

/** Value of `x-svc-sdk-name`: the server reads it to pick the real-time ingestion path. */
const SDK_NAME = "javascript";

/** `svc-sdk-js/6.0.0 (node 22.23.3; linux x64)`: the SDK, its version and the runtime it runs in. */
export function userAgent(): string {
  cachedAgent ??= `svc-sdk-js/${SDK_VERSION} (${describeRuntime(currentRuntime())})`;
  return cachedAgent;
}
let cachedAgent: string | undefined;

/** The SDK's identity headers, sent with every request. `x-svc-public-key` only when a key is given. */
export function identityHeaders(publicKey: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    "x-svc-sdk-name": SDK_NAME,
    "x-svc-sdk-version": SDK_VERSION,
  };
  if (publicKey) headers["x-svc-public-key"] = publicKey;
  return headers;
}

/** Headers of every SDK request to the server: the credentials (when both keys are given), identity and user agent. */
export function apiHeaders(publicKey: string | undefined, secretKey?: string): Record<string, string> {
  const auth = basicAuth(publicKey, secretKey);
  return { ...(auth ? { authorization: auth } : {}), ...identityHeaders(publicKey), "user-agent": userAgent() };
}

/** {@link apiHeaders}, `x-svc-public-key` (`<missing>` without one) and `x-svc-ingestion-version: 4`. */
export function otlpHeaders(publicKey: string | undefined, secretKey: string | undefined): Record<string, string> {
  return {
    ...apiHeaders(publicKey, secretKey),
    "x-svc-public-key": publicKey ?? "<missing>",
    "x-svc-ingestion-version": "4",
  };
}

/** `Basic base64(publicKey:secretKey)`, registered for redaction; undefined unless both keys are given. */
export function basicAuth(publicKey: string | undefined, secretKey: string | undefined): string | undefined {
  if (!publicKey || !secretKey) return undefined;
  registerSecret(secretKey);
  const header = `Basic ${toBase64(new TextEncoder().encode(`${publicKey}:${secretKey}`))}`;
  registerSecret(header.slice("Basic ".length));
  return header;
}

/** Standard base64 of bytes, with `Buffer` where the runtime has it. */
export function toBase64(bytes: Uint8Array): string {
  if (typeof Buffer !== "undefined")
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Bytes of standard base64 text; throws on text that is not base64. */
export function fromBase64(text: string): Uint8Array {
  if (typeof Buffer !== "undefined") return new Uint8Array(Buffer.from(text, "base64"));
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * The header sets merged in order, names lower-cased (`additionalHeaders` over the SDK's own, whatever the case); a
 * `null` or `undefined` value removes a header set by an earlier one.
 */
export function mergeHeaders(
  ...layers: (Record<string, string | null | undefined> | undefined)[]
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const layer of layers) {
    for (const [name, value] of Object.entries(layer ?? {})) {
      const key = name.toLowerCase();
      if (value === null || value === undefined) delete merged[key];
      else merged[key] = value;
    }
  }
  return merged;
}
