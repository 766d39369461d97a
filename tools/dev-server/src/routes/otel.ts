import { HttpError, parseJsonBody } from "../http.ts";
import { decodeOtlpJson } from "../otlp/decode-json.ts";
import { decodeOtlpProtobuf } from "../otlp/decode-protobuf.ts";
import { OtlpDecodeError, type OtlpSpan } from "../otlp/span.ts";
import type { Route, RouteContext } from "../route.ts";

/** The highest `x-svc-ingestion-version` the server understands. */
export const MAX_INGESTION_VERSION = 4;

function checkIngestionVersion(ctx: RouteContext): void {
  const raw = ctx.headers["x-svc-ingestion-version"] ?? ctx.headers.x_svc_ingestion_version;
  if (raw === undefined) return;
  const value = String(raw).trim();
  if (!/^-?\d+$/.test(value) || Number(value) > MAX_INGESTION_VERSION) {
    throw new HttpError(
      400,
      `Unsupported x-svc-ingestion-version: "${value}". Maximum supported: "${MAX_INGESTION_VERSION}".`,
    );
  }
}

function decode(ctx: RouteContext): OtlpSpan[] {
  const contentType = String(ctx.headers["content-type"] ?? "").toLowerCase();
  try {
    if (contentType.includes("application/json")) return decodeOtlpJson(parseJsonBody(ctx.rawBody) ?? {});
    if (contentType.includes("application/x-protobuf")) return decodeOtlpProtobuf(ctx.rawBody);
  } catch (error) {
    if (error instanceof OtlpDecodeError) throw new HttpError(400, `Invalid OTLP export: ${error.message}`);
    throw error;
  }
  throw new HttpError(
    400,
    `Invalid content type "${contentType}": send application/json or application/x-protobuf`,
    "Invalid content type",
  );
}

/** `POST /api/public/otel/v1/traces`: OTLP/HTTP trace export, JSON or protobuf, gzip or identity. */
export const otelRoutes: Route[] = [
  {
    method: "POST",
    path: "/api/public/otel/v1/traces",
    auth: "basic",
    body: "raw",
    handle(ctx) {
      checkIngestionVersion(ctx);
      const spans = decode(ctx);
      ctx.store.addSpans(spans, new Date().toISOString());
      return { status: 200, body: {} };
    },
  },
];
