import { execFile } from "node:child_process";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installApp, packAll, removeDir } from "../support/packages.ts";

// The test kit of @svc/otel in jest, from the packed tarballs: a user's CommonJS test (apps/kit.test.js) runs with
// jest's own module system and sandbox, where the kit must find the SDK's copies and Node's built-ins as in vitest.

const run = promisify(execFile);
/** The jest release the check runs with. */
const JEST = "jest@30.5.2";

let packed: { dir: string; tarballs: Record<string, string> };
let appDir = "";

beforeAll(() => {
  packed = packAll();
  const svc = ["@svc/tracing", "@svc/otel", "@svc/client"].map((name) => packed.tarballs[name] as string);
  const install = [...svc, "@opentelemetry/api@~1.9.0", "@opentelemetry/sdk-trace-base@^2", JEST];
  appDir = installApp({}, { install }).dir;
  copyFileSync(join(import.meta.dirname, "apps", "kit.test.js"), join(appDir, "kit.test.js"));
});

afterAll(() => {
  removeDir(appDir);
  removeDir(packed.dir);
});

describe("@svc/otel/testing under jest", () => {
  it("runs a user's test without a server, and it passes", async () => {
    const jest = join(appDir, "node_modules", "jest", "bin", "jest.js");
    const { stderr } = await run(process.execPath, [jest, "--ci", "--colors=false"], {
      cwd: appDir,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "" },
      timeout: 120_000,
    });

    expect(stderr).toMatch(/Tests: {7}2 passed, 2 total/);
    expect(stderr).not.toMatch(/\[Svc SDK\]/);
  });
});
