import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_DIRS, ROOT } from "../support/packages.ts";

type Manifest = {
  name: string;
  version: string;
  engines?: { node?: string };
  sideEffects?: boolean;
  files?: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};
const manifests: Manifest[] = PACKAGE_DIRS.map(
  (dir) => JSON.parse(readFileSync(join(ROOT, "packages", dir, "package.json"), "utf8")) as Manifest,
);

describe("package manifests", () => {
  it("share one 6.x version", () => {
    const versions = new Set(manifests.map((m) => m.version));
    expect(versions.size).toBe(1);
    expect([...versions][0]).toMatch(/^6\.0\.0(-[\w.]+)?$/);
  });

  it("are kept in lockstep by a changesets fixed group naming all four", () => {
    const config = JSON.parse(readFileSync(join(ROOT, ".changeset", "config.json"), "utf8")) as { fixed: string[][] };
    expect(config.fixed).toContainEqual(expect.arrayContaining(manifests.map((m) => m.name)));
  });

  it("are the only workspace packages that can be published; the dev server and the others stay private", () => {
    const projects = JSON.parse(
      execFileSync("pnpm", ["ls", "--recursive", "--depth", "-1", "--json"], { cwd: ROOT, encoding: "utf8" }),
    ) as { name: string; private?: boolean }[];
    const publishable = projects.filter((p) => !p.private).map((p) => p.name);

    expect(publishable.sort()).toEqual(manifests.map((m) => m.name).sort());
    expect(projects.find((p) => p.name === "@svc/dev-server")?.private).toBe(true);
  });

  it("require Node 22, ship only dist (and the browser entry's folder for old resolvers) and have no side effects", () => {
    for (const m of manifests) {
      expect(m.engines?.node, m.name).toBe(">=22");
      expect(m.files, m.name).toEqual(m.name === "@svc/client" ? ["dist", "browser"] : ["dist"]);
      expect(m.sideEffects, m.name).toBe(false);
    }
  });

  it("need only the OpenTelemetry API, @svc/tracing where they use the observation API, and never name the core", () => {
    const tracing = manifests.find((m) => m.name === "@svc/tracing");
    const otel = manifests.find((m) => m.name === "@svc/otel");
    expect(tracing?.dependencies ?? {}).toEqual({});
    expect(otel?.dependencies ?? {}).toEqual({});
    expect(Object.keys(tracing?.peerDependencies ?? {})).toEqual(["@opentelemetry/api"]);
    for (const name of ["@svc/client", "@svc/langchain"]) {
      expect(manifests.find((m) => m.name === name)?.dependencies?.["@svc/tracing"], name).toBeDefined();
    }
    for (const m of manifests) expect(JSON.stringify(m), m.name).not.toContain("@svc/core");
    const langchain = manifests.find((m) => m.name === "@svc/langchain");
    expect(langchain?.peerDependencies?.["@langchain/core"]).toBe("^1.0.0");
  });
});
