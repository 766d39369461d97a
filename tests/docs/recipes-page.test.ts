import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { runChild } from "../support/child-process.ts";
import { useDevServer } from "../support/dev-server.ts";
import { startServer } from "../support/http-server.ts";
import { sentryDsn, svcTraces } from "../support/recipes.ts";

const PAGE = readFileSync(join(import.meta.dirname, "..", "..", "docs", "other-opentelemetry-users.md"), "utf8");

/** The first ts block under the heading `## <heading>`, as written on the page. */
function recipe(heading: string): string {
  const section = PAGE.slice(PAGE.indexOf(`## ${heading}\n`));
  const block = section.match(/```ts\n([\s\S]*?)```/);
  if (!block?.[1]) throw new Error(`docs/other-opentelemetry-users.md has no ts block under ## ${heading}`);
  return block[1];
}

/** The app of every recipe: 100 requests, each an svc trace (inside a Sentry span where Sentry is set up). */
const APP = `
for (let i = 0; i < 100; i++) {
  const { startActiveObservation } = await import("@svc/tracing");
  const work = () => startActiveObservation("svc-trace-" + i, async (obs) => obs.update({ input: { i } }));
  await (typeof Sentry === "undefined" ? work() : Sentry.startSpan({ name: "request-" + i }, work));
}
`;

describe.each(["NodeSDK", "An app with its own exporter", "Sentry 11", "@vercel/otel"])(
  "the recipe %s of the page With other OpenTelemetry users",
  (heading) => {
    it("runs as written and delivers 100 of 100 svc traces without a warning", async () => {
      const svc = await useDevServer();
      const vendor = await startServer();
      onTestFinished(() => vendor.close());
      const code = recipe(heading);
      expect(code).toContain("// ... the app ...");

      const result = await runChild(code.replace("// ... the app ...", APP), {
        env: {
          SVC_BASE_URL: svc.url,
          SVC_PUBLIC_KEY: svc.publicKey,
          SVC_SECRET_KEY: svc.secretKey,
          SENTRY_DSN: sentryDsn(vendor),
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${vendor.url}/v1/traces`,
          OTEL_METRICS_EXPORTER: "none",
        },
        external: ["@sentry/node", "@vercel/otel"],
        timeoutMs: 60_000,
      });

      expect(result.code).toBe(0);
      expect(svcTraces(svc)).toBe(100);
      expect(result.stdout + result.stderr).not.toContain("without SvcSpanProcessor");
    });
  },
);

/** Version of a package as installed in the repository, which the test above runs the recipes with. */
function installedVersion(name: string): string {
  const manifest = join(import.meta.dirname, "..", "..", "node_modules", name, "package.json");
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

describe.each(["An app with its own exporter", "Sentry 11"])(
  "the recipe %s, which imports 2.x SDK packages",
  (heading) => {
    it("says it is for the OpenTelemetry 2.x line and installs every OpenTelemetry package it imports on that line", () => {
      const section = PAGE.slice(PAGE.indexOf(`## ${heading}\n`));
      const prose = section.slice(0, section.indexOf("```ts"));
      const install = /^npm install (.+)$/m.exec(prose)?.[1]?.split(" ") ?? [];
      const imported = [...recipe(heading).matchAll(/from "(@opentelemetry\/[^"]+)"/g)].map((m) => m[1] as string);

      expect(prose).toContain("OpenTelemetry 2.x line");
      expect(install).toContain("@opentelemetry/api@~1.9.0");
      expect(installedVersion("@opentelemetry/api")).toMatch(/^1\.9\./);
      for (const name of imported) {
        const spec = install.find((s) => s.startsWith(`${name}@`));
        expect(spec, name).toBeDefined();
        // `^2`: the major version; `0.223`: that prefix.
        const range = (spec as string).slice(name.length + 1);
        const prefix = range.startsWith("^") ? `${range.slice(1).split(".")[0]}.` : range;
        expect(installedVersion(name).startsWith(prefix), `${name} ${installedVersion(name)}`).toBe(true);
      }
    });
  },
);
