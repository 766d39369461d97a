import { timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { HttpError } from "./http.ts";

/** The API key pair the server accepts. */
export interface DevKeys {
  publicKey: string;
  secretKey: string;
}

/** Who may call a route: Basic auth with both keys, also Bearer with the public key, or anyone. */
export type AuthMode = "basic" | "basic-or-public-key" | "none";

const WWW_AUTHENTICATE = { "www-authenticate": 'Basic realm="svc"' };

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Checks the `Authorization` header; answers 401 with a reason when it does not carry the server's keys. */
export function checkAuth(headers: IncomingHttpHeaders, keys: DevKeys, mode: AuthMode): void {
  if (mode === "none") return;
  const header = headers.authorization;
  if (!header) {
    throw new HttpError(
      401,
      "Missing Authorization header; send Basic auth with the public and secret key",
      undefined,
      WWW_AUTHENTICATE,
    );
  }
  const [scheme = "", token = ""] = header.trim().split(/\s+/, 2);
  if (scheme.toLowerCase() === "bearer") {
    if (mode === "basic-or-public-key" && same(token, keys.publicKey)) return;
    throw new HttpError(
      401,
      mode === "basic-or-public-key"
        ? "Invalid public key in Bearer authorization"
        : "This route needs Basic auth with the public and secret key; Bearer is accepted only for POST /api/public/scores",
      undefined,
      WWW_AUTHENTICATE,
    );
  }
  if (scheme.toLowerCase() !== "basic") {
    throw new HttpError(401, `Unsupported authorization scheme "${scheme}"; use Basic`, undefined, WWW_AUTHENTICATE);
  }
  const decoded = Buffer.from(token, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const publicKey = colon < 0 ? decoded : decoded.slice(0, colon);
  const secretKey = colon < 0 ? "" : decoded.slice(colon + 1);
  if (!same(publicKey, keys.publicKey) || !same(secretKey, keys.secretKey)) {
    throw new HttpError(
      401,
      "Invalid credentials: unknown public key or wrong secret key",
      undefined,
      WWW_AUTHENTICATE,
    );
  }
}
