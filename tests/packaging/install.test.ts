import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installApp, packAll, removeDir } from "../support/packages.ts";

// Each package's first export, to prove the module loads and carries real values.
const PROBES: Record<string, string> = {
  "@svc/tracing": "createTraceId",
  "@svc/otel": "isDefaultExportSpan",
  "@svc/client": "SvcClient",
  "@svc/client/browser": "SvcBrowserClient",
  "@svc/langchain": "CallbackHandler",
};

describe("packed packages in a fresh app", () => {
  let packDir = "";
  let appDir = "";

  beforeAll(() => {
    const packed = packAll();
    packDir = packed.dir;
    const deps = Object.fromEntries(Object.entries(packed.tarballs).map(([name, file]) => [name, `file:${file}`]));
    appDir = installApp({ ...deps, "@opentelemetry/api": "1.9.1", "@langchain/core": "^1.0.0" }).dir;
  });

  afterAll(() => {
    removeDir(packDir);
    removeDir(appDir);
  });

  it("loads every package with import on Node 22", () => {
    const script = Object.entries(PROBES)
      .map(
        ([name, probe]) =>
          `{ const m = await import(${JSON.stringify(name)}); if (typeof m.${probe} !== "function") throw new Error("${name}: ${probe} missing"); }`,
      )
      .join("\n");
    writeFileSync(join(appDir, "esm.mjs"), `${script}\nconsole.log("esm ok");\n`);
    expect(execFileSync("node", ["esm.mjs"], { cwd: appDir, encoding: "utf8" })).toContain("esm ok");
  });

  it("loads every package with require on Node 22", () => {
    const script = Object.entries(PROBES)
      .map(
        ([name, probe]) =>
          `{ const m = require(${JSON.stringify(name)}); if (typeof m.${probe} !== "function") throw new Error("${name}: ${probe} missing"); }`,
      )
      .join("\n");
    writeFileSync(join(appDir, "cjs.cjs"), `${script}\nconsole.log("cjs ok");\n`);
    expect(execFileSync("node", ["cjs.cjs"], { cwd: appDir, encoding: "utf8" })).toContain("cjs ok");
  });
});
