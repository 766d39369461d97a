import type { HrTime, SpanContext } from "@opentelemetry/api";
import {
  SvcOtelSpanAttributes as A,
  apiHeaders,
  describeFailure,
  encodeTraces,
  failureHint,
  type HttpMethod,
  type HttpResult,
  httpRequest,
  KEYS_HINT,
  OTLP_CONTENT_TYPES,
  OTLP_TRACES_PATH,
  otlpHeaders,
  type ReadableSpan,
  randomHex,
  SDK_VERSION,
  SVC_TRACER_NAME,
} from "@svc/core";
import { parseBody } from "../api/errors.js";
import type { DoctorCheck } from "./report.js";
import type { DoctorTarget } from "./setup-checks.js";

/** The oldest server version SDK v6 supports. */
const MIN_SERVER_VERSION = "4.59.0";
/** Beyond this difference between the local clock and the server's, the clock check fails. */
const MAX_CLOCK_SKEW_MS = 60_000;
/** Beyond this difference, the clock check warns. */
const CLOCK_WARN_MS = 5_000;

/** A conversation with the server: its deadline, and what earlier checks learned. */
export interface ServerSession {
  target: DoctorTarget;
  /** Time limit of each request. */
  timeoutMs: number;
  /** When every request must be over (epoch ms). */
  deadline: number;
  /** Whether the server answered at all (any status): a connection that fails or stays silent is no answer. */
  answered?: boolean;
  /** The server's `Date` and the local time halfway through the request that carried it. */
  serverTime?: { server: number; local: number };
}

interface Answer {
  result: HttpResult;
  ms: number;
}

async function call(
  session: ServerSession,
  method: HttpMethod,
  path: string,
  { auth = false, body, headers = {} }: { auth?: boolean; body?: Uint8Array; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const { publicKey, secretKey, baseUrl } = session.target;
  const started = Date.now();
  const result = await httpRequest({
    method,
    url: `${baseUrl}${path}`,
    headers: { ...apiHeaders(publicKey, auth ? secretKey : undefined), accept: "application/json", ...headers },
    body,
    attemptTimeoutMs: Math.max(1, Math.min(session.timeoutMs, session.deadline - started)),
    deadline: session.deadline,
    maxRetries: 0,
  });
  const ended = Date.now();
  if (result.ok || result.failure.kind === "status") session.answered = true;
  const date = result.ok ? result.response.headers.date : undefined;
  const server = date === undefined ? Number.NaN : Date.parse(date);
  if (!Number.isNaN(server)) session.serverTime = { server, local: (started + ended) / 2 };
  return { result, ms: ended - started };
}

/** A failed request as a failed check: what happened (status or code, host and path) and what to do. */
function failed(name: string, answer: Answer, method: string, fix?: string): DoctorCheck {
  if (answer.result.ok) return { name, status: "pass", detail: "" };
  const { failure, url } = answer.result;
  const hint = fix ?? failureHint(failure, url, { delivery: true });
  return { name, status: "fail", detail: describeFailure(failure, method, url), ...(hint ? { fix: hint } : {}) };
}

/** The status of the server's answer, when it answered with an error status. */
function errorStatus({ result }: Answer): number | undefined {
  return !result.ok && result.failure.kind === "status" ? result.failure.status : undefined;
}

function json(result: HttpResult): unknown {
  return result.ok ? parseBody(new TextDecoder().decode(result.response.body)) : undefined;
}

/** The health route answers as an svc server of a version SDK v6 supports. */
export async function checkServer(session: ServerSession): Promise<DoctorCheck> {
  const name = "server";
  const answer = await call(session, "GET", "/api/public/health");
  if (!answer.result.ok) {
    const notFound = errorStatus(answer) === 404;
    const fix = notFound ? "check that the base URL is the address of the svc server (no extra path)" : undefined;
    return failed(name, answer, "GET", fix);
  }
  const body = json(answer.result) as { status?: unknown; version?: unknown } | undefined;
  if (typeof body?.status !== "string")
    return {
      name,
      status: "fail",
      detail: `${new URL(answer.result.url).host} answered GET /api/public/health, but not as an svc server does`,
      fix: "check that the base URL is the address of the svc server, not of a proxy's login page or another service",
    };
  const version = typeof body.version === "string" ? body.version : undefined;
  const found = `reachable (${answer.ms} ms)${version ? `, server version ${version}` : ""}`;
  if (version && olderThan(version, MIN_SERVER_VERSION))
    return {
      name,
      status: "fail",
      detail: `${found}, older than ${MIN_SERVER_VERSION}, the oldest server SDK v6 supports`,
      fix: "upgrade the server, or use SDK v5 with it",
    };
  return { name, status: "pass", detail: found };
}

/** The server accepts the keys and names their project. */
export async function checkCredentials(session: ServerSession): Promise<DoctorCheck> {
  const name = "credentials";
  const answer = await call(session, "GET", "/api/public/projects", { auth: true });
  if (!answer.result.ok) {
    const refused = errorStatus(answer) === 401 || errorStatus(answer) === 403;
    const fix = refused ? `${KEYS_HINT} Keys of one server (or region) are not valid on another.` : undefined;
    return failed(name, answer, "GET", fix);
  }
  const projects = (json(answer.result) as { data?: { id?: unknown; name?: unknown }[] } | undefined)?.data;
  const project = projects?.[0];
  if (typeof project?.id !== "string")
    return {
      name,
      status: "fail",
      detail: "the server accepted the keys but named no project",
      fix: "create the API keys in the settings of a project",
    };
  const label = typeof project.name === "string" ? `"${project.name}" (${project.id})` : project.id;
  return { name, status: "pass", detail: `accepted for project ${label}` };
}

/** The local clock is close to the server's, as the `Date` header of an earlier answer tells. */
export function checkClock(session: ServerSession): DoctorCheck {
  const name = "clock";
  const times = session.serverTime;
  if (times === undefined) return { name, status: "skip", detail: "the server sent no Date header" };
  // The header has whole seconds: up to one second of the difference is its rounding.
  const skewMs = times.local - times.server;
  const abs = Math.abs(skewMs);
  const seconds = Math.round(abs / 1000);
  const way = skewMs > 0 ? "ahead of" : "behind";
  if (abs <= CLOCK_WARN_MS)
    return { name, status: "pass", detail: `within ${Math.max(1, seconds)} s of the server's clock` };
  const detail = `the local clock is ${describeDuration(abs)} ${way} the server's`;
  const fix =
    "synchronise the clock (NTP): observations carry local times and would show up at the wrong time, outside the time range the web app shows";
  return { name, status: abs > MAX_CLOCK_SKEW_MS ? "fail" : "warn", detail, fix };
}

/** The OTLP endpoint accepts a test span, sent with the span processor's encoder, compression and headers. */
export async function checkOtlp(session: ServerSession): Promise<DoctorCheck> {
  const name = "OTLP endpoint";
  const { publicKey, secretKey, compression, compressionSource, protocol, protocolSource } = session.target;
  const traceId = randomHex(16);
  const span = doctorTestSpan(traceId);
  const { bytes, gzipped } = await encodeTraces([{ span, attributes: span.attributes }], protocol, compression);
  const answer = await call(session, "POST", OTLP_TRACES_PATH, {
    body: bytes,
    headers: {
      ...otlpHeaders(publicKey, secretKey),
      "content-type": OTLP_CONTENT_TYPES[protocol],
      ...(gzipped ? { "content-encoding": "gzip" } : {}),
    },
  });
  const gzip = gzipped ? "gzip" : "uncompressed";
  const how =
    protocolSource === compressionSource
      ? `${protocol}, ${gzip} (${protocolSource})`
      : `${protocol} (${protocolSource}), ${gzip} (${compressionSource})`;
  if (answer.result.ok)
    return {
      name,
      status: "pass",
      detail: `accepted a test span, ${how}: trace ${traceId} in environment ${DOCTOR_ENVIRONMENT}`,
    };
  const status = errorStatus(answer);
  let fix: string | undefined;
  if (status === 401 || status === 403) fix = KEYS_HINT;
  else if (status === 404 || status === 405)
    fix = "the server has no OTLP endpoint at this address: check the base URL, or upgrade a self-hosted server";
  else if (status === 413) fix = "a proxy in front of the server limits the request size; raise its limit";
  else if (gzipped && (status === 400 || status === 415))
    fix = 'a proxy may refuse compressed requests: set SVC_OTEL_COMPRESSION=none (or compression: "none")';
  else if (protocol === "http/protobuf" && status === 415)
    fix =
      'the server or a proxy refuses OTLP/protobuf: leave OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL unset (or protocol: "http/json")';
  return failed(name, answer, "POST", fix);
}

/** Whether version `a` (`4.40.1`) is older than `b`; false when either cannot be read. */
function olderThan(a: string, b: string): boolean {
  const parse = (v: string) =>
    v
      .match(/^v?(\d+)\.(\d+)\.(\d+)/)
      ?.slice(1)
      .map(Number);
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return false;
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  return false;
}

function describeDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
}

/** The environment the doctor's test span is recorded in, apart from the application's data. */
const DOCTOR_ENVIRONMENT = "sdk-doctor";

/**
 * The doctor's test span: one short span of the svc tracer in the environment `sdk-doctor`, ended, as the span
 * processor hands spans to the encoder.
 */
function doctorTestSpan(traceId: string): ReadableSpan {
  const context: SpanContext = { traceId, spanId: randomHex(8), traceFlags: 1 };
  const now = Date.now();
  return {
    name: "svc doctor test span",
    kind: 0,
    spanContext: () => context,
    parentSpanContext: undefined,
    startTime: hrTime(now - 1),
    endTime: hrTime(now),
    duration: [0, 1_000_000],
    status: { code: 0 },
    attributes: {
      [A.OBSERVATION_TYPE]: "span",
      [A.ENVIRONMENT]: DOCTOR_ENVIRONMENT,
      [A.OBSERVATION_INPUT]: "a test span sent by svc doctor",
    },
    links: [],
    events: [],
    ended: true,
    resource: { attributes: { "service.name": "svc-doctor" } },
    instrumentationScope: { name: SVC_TRACER_NAME, version: SDK_VERSION },
  };
}

function hrTime(ms: number): HrTime {
  return [Math.floor(ms / 1000), (ms % 1000) * 1_000_000];
}
