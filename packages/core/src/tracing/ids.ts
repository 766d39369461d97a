// Trace and span ids as OpenTelemetry writes them: lower-case hex.

/** The bytes as lower-case hex, two characters each. */
export function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** Random lower-case hex of `bytes` bytes, never all zeros: a valid trace id (16 bytes) or span id (8). */
export function randomHex(bytes: number): string {
  const hex = toHex(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
  return /[^0]/.test(hex) ? hex : `${hex.slice(1)}1`;
}
