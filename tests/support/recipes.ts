import type { DevServer } from "@svc/dev-server";
import type { TestServer } from "./http-server.ts";

/** Observations named `svc-trace-<n>` (one per request of the app) that reached the dev server. */
export function svcTraces(server: DevServer): number {
  const names = new Set<string>();
  for (const span of server.store.spans.values()) if (span.name.startsWith("svc-trace-")) names.add(span.name);
  return names.size;
}

/** Names of the spans in every Sentry envelope the sink received (span v2 items, and transactions with their spans). */
export function sentrySpanNames(sink: TestServer): string[] {
  const names: string[] = [];
  for (const request of sink.seen) {
    if (!request.path.endsWith("/envelope/")) continue;
    const lines = request.body.toString("utf8").split("\n").filter(Boolean);
    for (let i = 1; i + 1 < lines.length; i += 2) {
      const header = JSON.parse(lines[i] as string) as { type?: string };
      const item = JSON.parse(lines[i + 1] as string) as {
        transaction?: string;
        spans?: { description?: string }[];
        items?: { name?: string }[];
      };
      if (header.type === "span") for (const span of item.items ?? []) if (span.name) names.push(span.name);
      if (header.type === "transaction") {
        if (item.transaction) names.push(item.transaction);
        for (const span of item.spans ?? []) if (span.description) names.push(span.description);
      }
    }
  }
  return names;
}

/** A Sentry DSN that sends to the loopback sink. */
export function sentryDsn(sink: TestServer): string {
  const { host } = new URL(sink.url);
  return `http://sentrypublickey@${host}/42`;
}

/**
 * The OpenTelemetry packages of the serverless guide's recipes (the 2.x line), as the guide's install command names
 * them and as the runtime matrix installs them next to the packed packages.
 */
export const SERVERLESS_OTEL_PACKAGES = ["@opentelemetry/api@~1.9.0", "@opentelemetry/sdk-trace-base@^2"];
