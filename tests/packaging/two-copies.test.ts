import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/packages.ts";

const run = promisify(execFile);

// The ES module and CommonJS builds of a package each carry their own copy of the core: a process that loads both
// (an application in one format, a dependency in the other) holds two copies, which share state only through the
// global registry (ARCHITECTURE.md, "The global registry").
const PROGRAM = `
import { createRequire } from "node:module";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
const esm = await import(${JSON.stringify(join(ROOT, "packages/tracing/dist/index.js"))});
const cjs = createRequire(import.meta.url)(${JSON.stringify(join(ROOT, "packages/tracing/dist/index.cjs"))});

esm.configureGlobalLogger({ level: esm.LogLevel.ERROR });
cjs.getGlobalLogger().warn("a warning below the level set through the other copy");
cjs.getGlobalLogger().error("an error at the level set through the other copy");

const provider = new BasicTracerProvider();
cjs.setSvcTracerProvider(provider);

const registry = globalThis[Symbol.for("svc.registry")];
console.log(JSON.stringify({
  twoCopies: esm.getGlobalLogger !== cjs.getGlobalLogger,
  sameProvider: esm.getSvcTracerProvider() === provider,
  registries: Object.getOwnPropertySymbols(globalThis).filter((key) => key.description === "svc.registry").length,
  version: registry.version,
}));
`;

describe("two copies of the built package in one process", () => {
  it("share the log level and the tracer provider through one registry", async () => {
    const { stdout, stderr } = await run(process.execPath, ["--input-type=module", "-e", PROGRAM], {
      cwd: join(ROOT, "packages", "tracing"),
      timeout: 30_000,
    });

    expect(JSON.parse(stdout.trim())).toEqual({ twoCopies: true, sameProvider: true, registries: 1, version: 1 });
    expect(stderr).toContain("[Svc SDK] an error at the level set through the other copy");
    expect(stderr).not.toContain("a warning below the level");
    expect(stderr).not.toContain("Symbol.for(");
  });
});
