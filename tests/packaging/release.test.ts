import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { manifestChecks } from "../support/manifest-checks.ts";
import { PACKAGE_DIRS, ROOT, removeDir } from "../support/packages.ts";

// The release procedure of CONTRIBUTING.md, dry-run: `changeset version` on a throwaway copy of the workspace's
// manifests and changesets (the "Version packages" change, with one more patch so that there is always a bump), then
// the packaging checks that depend on the version on that copy, and `pnpm pack --dry-run` for the files each package
// ships.

type Manifest = { name: string; version: string; private?: boolean };
const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
const CHANGESET_BIN = join(ROOT, "node_modules", "@changesets", "cli", "bin.js");

/** Folders of every workspace package, relative to the root (packages/*, tools/*, examples/*, bench). */
function workspaceFolders(): string[] {
  const under = (folder: string) =>
    readdirSync(join(ROOT, folder), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, folder, entry.name, "package.json")))
      .map((entry) => join(folder, entry.name));
  return [...under("packages"), ...under("tools"), ...under("examples"), "bench"];
}

/** A copy of what `changeset version` reads and writes: the manifests, changelogs, workspace file and changesets. */
function throwawayWorkspace(): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-release-"));
  for (const file of ["package.json", "pnpm-workspace.yaml"]) cpSync(join(ROOT, file), join(dir, file));
  cpSync(join(ROOT, ".changeset"), join(dir, ".changeset"), { recursive: true });
  for (const folder of workspaceFolders()) {
    for (const file of ["package.json", "CHANGELOG.md"]) {
      const from = join(ROOT, folder, file);
      if (!existsSync(from)) continue;
      mkdirSync(dirname(join(dir, folder, file)), { recursive: true });
      cpSync(from, join(dir, folder, file));
    }
  }
  return dir;
}

describe("changeset version on a throwaway copy of the workspace", () => {
  const dir = throwawayWorkspace();
  afterAll(() => removeDir(dir));
  const before = Object.fromEntries(PACKAGE_DIRS.map((name) => [name, manifest(join(ROOT, "packages", name))]));
  // A patch of one package alone: the fixed group must still move all four together.
  writeFileSync(
    join(dir, ".changeset", "release-dry-run.md"),
    '---\n"@svc/otel": patch\n---\n\nA change to one package only, for the release dry run.\n',
  );
  execFileSync(process.execPath, [CHANGESET_BIN, "version"], { cwd: dir, stdio: "pipe" });
  const after = Object.fromEntries(PACKAGE_DIRS.map((name) => [name, manifest(join(dir, "packages", name))]));

  it("gives the four packages one next version, above the current one", () => {
    const versions = new Set(Object.values(after).map((m) => m.version));
    expect(versions.size).toBe(1);
    const [next] = [...versions];
    const [major, minor, patch] = (next ?? "").split(".").map(Number);
    const [curMajor, curMinor, curPatch] = (before.otel?.version ?? "").split(".").map(Number);
    expect([major, minor, patch]).not.toEqual([curMajor, curMinor, curPatch]);
    expect(major).toBe(curMajor);
    expect(minor! > curMinor! || (minor === curMinor && patch! > curPatch!)).toBe(true);
  });

  it("opens that version's section at the top of each package's changelog, with the changes it carries", () => {
    const version = after.otel?.version;
    for (const name of PACKAGE_DIRS) {
      const changelog = readFileSync(join(dir, "packages", name, "CHANGELOG.md"), "utf8");
      expect(
        changelog.split("\n").find((line) => line.startsWith("## ")),
        name,
      ).toBe(`## ${version}`);
    }
    const otel = readFileSync(join(dir, "packages", "otel", "CHANGELOG.md"), "utf8");
    expect(otel.slice(0, otel.indexOf(`## ${before.otel?.version}`))).toContain(
      "A change to one package only, for the release dry run.",
    );
  });

  it("uses up the changesets and leaves the private packages alone", () => {
    expect(readdirSync(join(dir, ".changeset")).filter((file) => file.endsWith(".md"))).toEqual(["README.md"]);
    for (const folder of workspaceFolders().filter((f) => manifest(join(ROOT, f)).private)) {
      expect(manifest(join(dir, folder)).version, folder).toBe(manifest(join(ROOT, folder)).version);
    }
  });
  describe("then the manifest checks, on the versioned copy", () => manifestChecks(dir));
});

/**
 * What each package ships: its build output (run `pnpm build` first; the declarations two entries of a package
 * share are one chunk, named with a content hash; code that entries share is in `chunk-<hash>` files, as many as the
 * bundler makes; a module loaded on first use with a dynamic `import()` is a chunk named after it), its manifest and
 * its README.
 */
const SHIPPED: Record<string, string[]> = {
  tracing: [
    "README.md",
    "package.json",
    "internal/package.json",
    ...built("index"),
    ...built("internal"),
    "dist/<shared>-<hash>.d.cts",
    "dist/<shared>-<hash>.d.ts",
    ...chunk("chunk"),
    ...chunk("otlp-protobuf"),
    ...chunk("upload-once"),
  ],
  otel: [
    "README.md",
    "package.json",
    "testing/package.json",
    ...built("index"),
    ...built("testing"),
    "dist/<shared>-<hash>.d.cts",
    "dist/<shared>-<hash>.d.ts",
    ...chunk("chunk"),
  ],
  client: [
    "README.md",
    "bin/svc.js",
    "browser/package.json",
    "node-test/package.json",
    "package.json",
    "vitest/package.json",
    ...built("index"),
    ...built("browser"),
    ...built("cli"),
    ...built("node-test"),
    ...built("vitest"),
    "dist/<shared>-<hash>.d.cts",
    "dist/<shared>-<hash>.d.ts",
    ...chunk("chunk"),
    ...chunk("client-doctor"),
    ...chunk("run-experiment"),
  ],
  langchain: ["README.md", "package.json", ...built("index")],
};

function built(entry: string): string[] {
  return [".cjs", ".cjs.map", ".d.cts", ".d.ts", ".js", ".js.map"].map((suffix) => `dist/${entry}${suffix}`);
}

/** The files of a code chunk, in both formats, its content hash left out. */
function chunk(name: string): string[] {
  return [".cjs", ".cjs.map", ".js", ".js.map"].map((suffix) => `dist/${name}-<hash>${suffix}`);
}

describe("pnpm pack --dry-run", () => {
  it.each(PACKAGE_DIRS)("lists exactly the files @svc/%s ships", (name) => {
    const output = execFileSync("pnpm", ["pack", "--dry-run", "--json"], {
      cwd: join(ROOT, "packages", name),
      encoding: "utf8",
      stdio: "pipe",
    });
    const packed = JSON.parse(output) as { files: { path: string }[] };
    // Declarations shared by two entry points land in one chunk, named by the bundler after one of its modules.
    const paths = packed.files.map((file) =>
      file.path
        .replace(/^dist\/[\w.-]+-[\w-]{8}\.d\.(c?ts)$/, "dist/<shared>-<hash>.d.$1")
        // Code chunks: shared by entry points (`chunk-`), or a module loaded on first use (named after it).
        .replace(/^dist\/([a-z][\w-]*)-[A-Z0-9]{8}\.(c?js(\.map)?)$/, "dist/$1-<hash>.$2"),
    );

    expect([...new Set(paths)].sort()).toEqual(SHIPPED[name]?.sort());
  });
});

describe("the release workflow", () => {
  const workflow = parse(readFileSync(join(ROOT, ".github", "workflows", "release.yml"), "utf8")) as {
    on: { push: { branches: string[] } };
    permissions: Record<string, string>;
    jobs: { release: { steps: { uses?: string; run?: string; with?: Record<string, unknown>; env?: object }[] } };
  };
  const steps = workflow.jobs.release.steps;
  const release = steps.find((step) => step.uses?.startsWith("changesets/action@"));

  it("runs the whole CI before the changesets action versions or publishes, on pushes to main", () => {
    expect(workflow.on.push.branches).toEqual(["main"]);
    expect(steps.findIndex((step) => step.run === "bash .ci/run")).toBeLessThan(steps.indexOf(release!));
    expect(release?.with).toMatchObject({
      version: "bash scripts/dev.sh pnpm version-packages",
      publish: "bash scripts/dev.sh pnpm release",
    });
  });

  it("publishes with npm provenance", () => {
    expect(workflow.permissions["id-token"]).toBe("write");
    expect(release?.env).toMatchObject({ NPM_CONFIG_PROVENANCE: "true" });
    for (const name of PACKAGE_DIRS) {
      const published = JSON.parse(readFileSync(join(ROOT, "packages", name, "package.json"), "utf8")) as {
        publishConfig: { access: string; provenance: boolean };
      };
      expect(published.publishConfig, name).toEqual({ access: "public", provenance: true });
    }
  });
});
