import { currentRuntime, describeRuntime, detectRuntime, SDK_VERSION, userAgent } from "@svc/core";
import { describe, expect, it } from "vitest";

// What each runtime's globals look like; the runtime matrix (tests/packaging/runtimes.test.ts) checks the real ones.
const nodeProcess = { versions: { node: "22.23.3" }, release: { name: "node" }, platform: "linux", arch: "x64" };

describe("which runtime the SDK runs in", () => {
  it("names Node with its version, operating system and CPU", () => {
    expect(describeRuntime(detectRuntime({ process: nodeProcess }))).toBe("node 22.23.3; linux x64");
  });

  it("names Bun, although it offers Node's process object", () => {
    const g = { Bun: { version: "1.4.5" }, process: { ...nodeProcess, versions: { node: "24.3.0", bun: "1.4.5" } } };
    expect(describeRuntime(detectRuntime(g))).toBe("bun 1.4.5; linux x64");
  });

  it("names Deno, although it offers Node's process object", () => {
    const g = { Deno: { version: { deno: "2.9.6" }, build: { os: "linux", arch: "x86_64" } }, process: nodeProcess };
    expect(describeRuntime(detectRuntime(g))).toBe("deno 2.9.6; linux x86_64");
  });

  it("names Cloudflare Workers, with nodejs_compat too", () => {
    const g = { navigator: { userAgent: "Cloudflare-Workers" }, process: nodeProcess };
    expect(detectRuntime(g)).toEqual({ kind: "cloudflare-workers" });
    expect(detectRuntime({ navigator: { userAgent: "Cloudflare-Workers" } })).toEqual({ kind: "cloudflare-workers" });
  });

  it("names Vercel Edge", () => {
    expect(detectRuntime({ EdgeRuntime: "edge-runtime", process: nodeProcess })).toEqual({ kind: "vercel-edge" });
  });

  it("names a browser when no server or edge runtime is recognised", () => {
    expect(detectRuntime({ navigator: { userAgent: "Mozilla/5.0" } })).toEqual({ kind: "browser" });
  });

  it("puts this process's runtime in the user agent", () => {
    expect(currentRuntime()).toMatchObject({ kind: "node", version: process.versions.node });
    expect(userAgent()).toBe(
      `svc-sdk-js/${SDK_VERSION} (node ${process.versions.node}; ${process.platform} ${process.arch})`,
    );
  });
});
