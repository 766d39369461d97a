import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SvcClient } from "@svc/client";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { runChild } from "../support/child-process.ts";
import { useDevServer } from "../support/dev-server.ts";
import { ROOT } from "../support/packages.ts";

// The two outputs the client README shows under "When nothing shows up" are what the doctor prints today, but for
// what changes from run to run: times, the trace id, the port and the versions.

const README = readFileSync(join(ROOT, "packages/client/README.md"), "utf8");

/** The `text` blocks of the README section, in order. */
function shownOutputs(): string[] {
  const section = README.slice(README.indexOf("## When nothing shows up"), README.indexOf("## Health"));
  return [...section.matchAll(/```text\n([\s\S]*?)```/g)].map((m) => (m[1] ?? "").trim());
}

function normalised(text: string): string {
  return text
    .replace(/\d+ ms\)/g, "N ms)")
    .replace(/trace [0-9a-f]{32}/g, "trace ID")
    .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT")
    .replace(/SDK \S+, Node\.js \d+\.\d+\.\d+/, "SDK VERSION, Node.js VERSION");
}

describe("the doctor's output in the client README", () => {
  it("shows a good set-up as the command prints it", async () => {
    const server = await useDevServer();
    const env = { SVC_BASE_URL: server.url, SVC_PUBLIC_KEY: server.publicKey, SVC_SECRET_KEY: server.secretKey };

    const result = await runChild('await import("./packages/client/src/cli.ts");', { args: ["doctor"], env });

    expect(normalised(result.stdout.trim())).toBe(normalised(shownOutputs()[0] ?? ""));
  });

  it("shows an app without a tracer provider and with the secret key of another project as svc.doctor() reports it", async () => {
    const server = await useDevServer();
    vi.stubEnv("SVC_BASE_URL", server.url);
    vi.stubEnv("SVC_PUBLIC_KEY", server.publicKey);
    vi.stubEnv("SVC_SECRET_KEY", "sk-from-another-project");
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const svc = new SvcClient();
    onTestFinished(() => svc.shutdown());

    const report = await svc.doctor();

    expect(normalised(report.toString())).toBe(normalised(shownOutputs()[1] ?? ""));
  });
});
