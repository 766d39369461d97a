import { describe, expect, it } from "vitest";
import { runChild } from "../support/child-process.ts";

// Each program sets the globals a runtime offers, then loads the SDK in a fresh process and prints the user agent
// its requests carry (`svc-sdk-js/<version> (<runtime>)`); the runtime matrix (tests/packaging/runtimes.test.ts) checks the real runtimes.

/** The runtime the user agent names, in a process whose globals `setup` (a program) changed before the SDK loaded. */
async function runtimeAfter(setup: string): Promise<string> {
  const result = await runChild(`
    ${setup}
    const { apiHeaders } = await import("@svc/core");
    console.log(apiHeaders(undefined)["user-agent"]);
  `);
  expect(result.code, result.stderr).toBe(0);
  const [, runtime] = /^svc-sdk-js\/\S+ \((.*)\)$/.exec(result.stdout.trim()) ?? [];
  return runtime ?? result.stdout;
}

const here = `${process.platform} ${process.arch}`;

describe("which runtime the SDK runs in", () => {
  it("names Node with its version, operating system and CPU", async () => {
    expect(await runtimeAfter("")).toBe(`node ${process.versions.node}; ${here}`);
  });

  it("names Bun, although it offers Node's process object", async () => {
    expect(await runtimeAfter(`globalThis.Bun = { version: "1.4.5" };`)).toBe(`bun 1.4.5; ${here}`);
  });

  it("names Deno, although it offers Node's process object", async () => {
    const deno = `globalThis.Deno = { version: { deno: "2.9.6" }, build: { os: "linux", arch: "x86_64" } };`;
    expect(await runtimeAfter(deno)).toBe(`deno 2.9.6; linux x86_64`);
  });

  it("names Cloudflare Workers, with nodejs_compat too", async () => {
    const workers = `Object.defineProperty(globalThis, "navigator", { value: { userAgent: "Cloudflare-Workers" } });`;
    expect(await runtimeAfter(workers)).toBe(`cloudflare-workers`);
  });

  it("names Vercel Edge", async () => {
    expect(await runtimeAfter(`globalThis.EdgeRuntime = "edge-runtime";`)).toBe(`vercel-edge`);
  });

  it("names a browser when no server or edge runtime is recognised", async () => {
    const browser = `
      Object.defineProperty(globalThis, "navigator", { value: { userAgent: "Mozilla/5.0" } });
      Object.defineProperty(globalThis, "process", { value: undefined });`;
    expect(await runtimeAfter(browser)).toBe(`browser`);
  });
});
