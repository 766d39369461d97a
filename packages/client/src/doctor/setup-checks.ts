import {
  type Connection,
  compressionOption,
  type Env,
  isLocalHost,
  type OtlpProtocol,
  type ProcessorProbe,
  parseHttpUrl,
  protocolOption,
  redactSecrets,
  resolveOptions,
  SOURCES,
} from "@svc/core";
import type { DoctorCheck } from "./report.js";

/** Where and as whom the doctor talks to the server, and how it sends its test span (each with where it came from). */
export interface DoctorTarget extends Connection {
  compression: "gzip" | "none";
  compressionSource: string;
  protocol: OtlpProtocol;
  protocolSource: string;
}

/** The connection given, with the protocol and compression of this process's span processor, else the environment's. */
export function doctorTarget(connection: Connection, env: Env, processor?: ProcessorProbe): DoctorTarget {
  if (processor) {
    const asSent = "as SvcSpanProcessor sends";
    const { compression, protocol } = processor;
    return { ...connection, compression, compressionSource: asSent, protocol, protocolSource: asSent };
  }
  // No processor in this process: read the environment as a processor would.
  const specs = { compression: compressionOption(), protocol: protocolOption() };
  const { compression, protocol, [SOURCES]: from } = resolveOptions("svc doctor", specs, {}, env);
  return { ...connection, compression, compressionSource: from.compression, protocol, protocolSource: from.protocol };
}

const KEYS_FIX =
  "set SVC_PUBLIC_KEY and SVC_SECRET_KEY (or pass publicKey and secretKey) to the API keys of your project, from its settings in the web app";

/** The keys are set, and each looks like a key of its kind (`pk-...`, `sk-...`), without spaces or quotes. */
export function checkKeys(target: DoctorTarget): DoctorCheck {
  const { publicKey, secretKey, sources } = target;
  const name = "keys";
  if (!publicKey || !secretKey) {
    const missing = [publicKey ? "" : "public key (SVC_PUBLIC_KEY)", secretKey ? "" : "secret key (SVC_SECRET_KEY)"];
    return { name, status: "fail", detail: `no ${missing.filter(Boolean).join(" and no ")}`, fix: KEYS_FIX };
  }
  if (publicKey.startsWith("sk-") || secretKey.startsWith("pk-"))
    return {
      name,
      status: "fail",
      detail:
        "the keys are swapped: the public key holds a secret key (sk-...) or the secret key a public key (pk-...)",
      fix: "put the key that starts with pk- in SVC_PUBLIC_KEY and the one that starts with sk- in SVC_SECRET_KEY",
    };
  if ([publicKey, secretKey].some((key) => /\s|^["'<]|["'>]$/.test(key)))
    return {
      name,
      status: "fail",
      detail: "a key contains spaces, quotes or angle brackets",
      fix: "set the keys without quotes, brackets or spaces around them (as the web app shows them)",
    };
  const found = `public key ${publicKey} (${sources.publicKey}), secret key set (${sources.secretKey})`;
  if (!publicKey.startsWith("pk-") || !secretKey.startsWith("sk-"))
    return {
      name,
      status: "warn",
      detail: `${found}; the keys of svc start with pk- and sk-`,
      fix: "check that these are the API keys of your project",
    };
  return { name, status: "pass", detail: found };
}

/** The base URL is an http(s) URL, uses https unless the host is local, and does not repeat the API path. */
export function checkBaseUrl(target: DoctorTarget): DoctorCheck {
  const name = "base URL";
  const shown = `${redactSecrets(target.baseUrl)} (${target.sources.baseUrl})`;
  const setIt = "set SVC_BASE_URL (or pass baseUrl) to the address of the server, such as https://cloud.svc.dev";
  if (target.baseUrlProblem) return { name, status: "fail", detail: target.baseUrlProblem, fix: setIt };
  const url = parseHttpUrl(target.baseUrl);
  if (typeof url === "string") return { name, status: "fail", detail: url, fix: setIt };
  if (target.baseUrlWithApiPath !== undefined)
    return {
      name,
      status: "warn",
      detail: `${redactSecrets(target.baseUrlWithApiPath)} (${target.sources.baseUrl}) ends with /api/public, which the SDK adds itself; it is used without it`,
      fix: `set the base URL without it: ${redactSecrets(target.baseUrl)}`,
    };
  if (/\/api(\/public)?$/.test(url.pathname))
    return {
      name,
      status: "fail",
      detail: `${shown} ends with ${url.pathname}, which the SDK adds itself`,
      fix: `set the base URL without it: ${redactSecrets(url.origin)}${url.pathname.replace(/\/api(\/public)?$/, "")}`,
    };
  if (url.protocol === "http:" && !isLocalHost(url.hostname))
    return {
      name,
      status: "fail",
      detail: `${shown} uses plain http to a host that is not local: keys and data would travel unencrypted`,
      fix: `use https://${url.host}${url.pathname === "/" ? "" : url.pathname}`,
    };
  const how = url.protocol === "https:" ? "https" : "plain http to a local host";
  return { name, status: "pass", detail: `${shown}, ${how}` };
}
