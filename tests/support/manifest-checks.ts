import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { entryPoints } from "../../scripts/api-report.ts";
import { PACKAGE_DIRS } from "./packages.ts";

type Manifest = {
  name: string;
  version: string;
  engines?: { node?: string };
  sideEffects?: boolean;
  files?: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};
type CodemodManifest = Manifest & {
  bin?: Record<string, string>;
  exports?: Record<string, unknown>;
  devDependencies?: Record<string, string>;
};

/**
 * The checks of the published manifests (the four SDK packages and the codemod), on the workspace at `root`: the
 * repository itself, or a copy that `changeset version` has given the next version (so that a release is known to
 * pass them before it is made). The manifests are read when the checks run.
 */
export function manifestChecks(root: string): void {
  const read = <T>(folder: string) => JSON.parse(readFileSync(join(root, folder, "package.json"), "utf8")) as T;
  let manifests: Manifest[] = [];
  let codemod: CodemodManifest = { name: "", version: "" };
  const codemodDir = join(root, "tools", "codemod");
  beforeAll(() => {
    manifests = PACKAGE_DIRS.map((dir) => read<Manifest>(join("packages", dir)));
    codemod = read<CodemodManifest>(join("tools", "codemod"));
  });

  describe("package manifests", () => {
    it("share one 6.x version", () => {
      const versions = new Set(manifests.map((m) => m.version));
      expect(versions.size).toBe(1);
      expect([...versions][0]).toMatch(/^6\.\d+\.\d+(-[\w.]+)?$/);
    });

    it("are kept in lockstep by a changesets fixed group naming all four", () => {
      const config = JSON.parse(readFileSync(join(root, ".changeset", "config.json"), "utf8")) as { fixed: string[][] };
      expect(config.fixed).toContainEqual(expect.arrayContaining(manifests.map((m) => m.name)));
    });

    it("are, with the codemod, the only workspace packages that can be published; the dev server and others stay private", () => {
      const projects = JSON.parse(
        execFileSync("pnpm", ["ls", "--recursive", "--depth", "-1", "--json"], { cwd: root, encoding: "utf8" }),
      ) as { name: string; private?: boolean }[];
      const publishable = projects.filter((p) => !p.private).map((p) => p.name);

      expect(publishable.sort()).toEqual([...manifests.map((m) => m.name), codemod.name].sort());
      expect(projects.find((p) => p.name === "@svc/dev-server")?.private).toBe(true);
    });

    it("require Node 22, ship only dist (and a folder per subpath entry for old resolvers, and one for the command) and have no side effects", () => {
      const subpaths: Record<string, string[]> = {
        "@svc/client": ["browser", "vitest", "node-test", "bin"],
        "@svc/otel": ["testing"],
        "@svc/tracing": ["internal"],
      };
      for (const m of manifests) {
        expect(m.engines?.node, m.name).toBe(">=22");
        expect(m.files, m.name).toEqual(["dist", ...(subpaths[m.name] ?? [])]);
        expect(m.sideEffects, m.name).toBe(false);
      }
    });

    it("need only the OpenTelemetry API and, past @svc/tracing, the very same @svc/tracing (which serves them the core); never name the core", () => {
      const tracing = manifests.find((m) => m.name === "@svc/tracing");
      const otel = manifests.find((m) => m.name === "@svc/otel");
      expect(tracing?.dependencies ?? {}).toEqual({});
      expect(otel?.dependencies ?? {}).toEqual({ "@svc/tracing": "workspace:*" });
      expect(Object.keys(tracing?.peerDependencies ?? {})).toEqual(["@opentelemetry/api"]);
      for (const name of ["@svc/client", "@svc/langchain"]) {
        // Published as the exact version: `@svc/tracing/internal` is a contract between packages of one release.
        expect(manifests.find((m) => m.name === name)?.dependencies?.["@svc/tracing"], name).toBe("workspace:*");
      }
      for (const m of manifests) expect(JSON.stringify(m), m.name).not.toContain("@svc/core");
      const langchain = manifests.find((m) => m.name === "@svc/langchain");
      expect(langchain?.peerDependencies?.["@langchain/core"]).toBe("^1.0.0");
    });
  });

  describe("the codemod's manifest (@svc/codemod, a command run with npx)", () => {
    it("is versioned on its own, outside the fixed group of the four packages", () => {
      const config = JSON.parse(readFileSync(join(root, ".changeset", "config.json"), "utf8")) as { fixed: string[][] };
      expect(config.fixed.flat()).not.toContain(codemod.name);
      expect(codemod.version).toMatch(/^6\.\d+\.\d+(-[\w.]+)?$/);
    });

    it("adds nothing to what users of the four packages install: none depends on it or on its dependencies", () => {
      for (const m of manifests) {
        const all = { ...m.dependencies, ...m.peerDependencies };
        expect(Object.keys(all), m.name).not.toContain(codemod.name);
        for (const dependency of Object.keys(codemod.dependencies ?? {}))
          expect(Object.keys(all), m.name).not.toContain(dependency);
      }
      expect(Object.keys(codemod.dependencies ?? {})).toEqual(["ts-morph"]);
      expect(JSON.stringify(codemod.dependencies)).not.toContain("@svc/");
    });

    it("ships only dist, with one command and no module to import (so it has no API report)", () => {
      expect(codemod.files).toEqual(["dist"]);
      expect(codemod.bin).toEqual({ "svc-codemod": "./dist/cli.js" });
      expect(codemod.exports).toEqual({ "./package.json": "./package.json" });
      expect(entryPoints(codemodDir, "codemod")).toEqual([]);
      expect(codemod.engines?.node).toBe(">=22");
    });

    it("pins the v5 packages its tests read to the release its tables were made from", () => {
      for (const name of ["client", "core", "tracing", "otel", "langchain"]) {
        expect(codemod.devDependencies?.[`@langfuse/${name}`], name).toBe("5.10.1");
      }
    });
  });
}
