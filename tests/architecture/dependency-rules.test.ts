import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../support/packages.ts";

const run = promisify(execFile);
const CHECK = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> })
  .scripts["check:arch"];

/** Runs `pnpm check:arch`'s command in `cwd`; returns its exit code and one `rule from -> to` line per violation. */
async function checkArch(cwd: string): Promise<{ code: number; violations: string[] }> {
  const env = {
    ...process.env,
    PATH: `${join(ROOT, "node_modules", ".bin")}${delimiter}${process.env.PATH}`,
    NO_COLOR: "1",
  };
  const { code, stdout } = await run("sh", ["-c", CHECK ?? "false"], { cwd, env, timeout: 60_000 }).then(
    (out) => ({ code: 0, stdout: out.stdout }),
    (error: { code?: number; stdout?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? "" }),
  );
  // "  error <rule>: <from> → <to>", or for a cycle "  error no-circular: <from> → " and the cycle below it.
  const violations = [...stdout.matchAll(/^\s*(?:error|warn|info) ([\w-]+): (\S+) → ?(\S*)$/gm)].map(
    ([, rule, from, to]) => `${rule} ${from} -> ${to || "(cycle)"}`,
  );
  return { code, violations: violations.sort() };
}

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** A copy of what the check reads: its config, the tsconfigs, every package's sources and workspace links, bench, scripts. */
function copyRepository(into: string): void {
  for (const file of [".dependency-cruiser.mjs", "package.json", "tsconfig.json", "tsconfig.base.json"]) {
    cpSync(join(ROOT, file), join(into, file));
  }
  const skip = (source: string) => !/[\\/](node_modules|results|dist)$/.test(source);
  for (const dir of ["bench", "scripts", "tools"]) {
    if (existsSync(join(ROOT, dir))) cpSync(join(ROOT, dir), join(into, dir), { recursive: true, filter: skip });
  }
  for (const name of readdirSync(join(ROOT, "packages"))) {
    const from = join(ROOT, "packages", name);
    cpSync(join(from, "src"), join(into, "packages", name, "src"), { recursive: true });
    cpSync(join(from, "package.json"), join(into, "packages", name, "package.json"));
    const links = join(from, "node_modules", "@svc");
    if (existsSync(links)) {
      cpSync(links, join(into, "packages", name, "node_modules", "@svc"), { recursive: true, verbatimSymlinks: true });
    }
  }
  symlinkSync(join(ROOT, "node_modules"), join(into, "node_modules"));
}

describe("pnpm check:arch", () => {
  const temporary: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-arch-"));
    temporary.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("fails on a copy of this repository once a cycle (of types too) or an import into another package's files is added", async () => {
    const repo = tempDir();
    copyRepository(repo);
    write(repo, {
      "packages/otel/src/internal/probe-cycle-a.ts":
        'import { b } from "./probe-cycle-b.js";\nexport const a = () => b;\n',
      "packages/otel/src/internal/probe-cycle-b.ts":
        'import { a } from "./probe-cycle-a.js";\nexport const b = () => a;\n',
      "bench/probe-cycle-a.ts": 'import { b } from "./probe-cycle-b.ts";\nexport const a = () => b;\n',
      "bench/probe-cycle-b.ts": 'import { a } from "./probe-cycle-a.ts";\nexport const b = () => a;\n',
      "tools/probe-cycle-a.ts": 'import { b } from "./probe-cycle-b.ts";\nexport const a = () => b;\n',
      "tools/probe-cycle-b.ts": 'import { a } from "./probe-cycle-a.ts";\nexport const b = () => a;\n',
      "packages/client/src/probe-type-cycle-a.ts":
        'import type { B } from "./probe-type-cycle-b.js";\nexport interface A { b?: B }\n',
      "packages/client/src/probe-type-cycle-b.ts":
        'import type { A } from "./probe-type-cycle-a.js";\nexport interface B { a?: A }\n',
      "packages/langchain/src/probe-reach-in.ts": 'export * as tracing from "@svc/tracing/src/index.js";\n',
      "packages/client/src/probe-relative.ts": 'export * as otel from "../../otel/src/index.js";\n',
    });

    const { code, violations } = await checkArch(repo);

    expect(violations).toEqual([
      "no-circular bench/probe-cycle-a.ts -> (cycle)",
      "no-circular packages/client/src/probe-type-cycle-a.ts -> (cycle)",
      "no-circular packages/otel/src/internal/probe-cycle-a.ts -> (cycle)",
      "no-circular tools/probe-cycle-a.ts -> (cycle)",
      "no-relative-import-into-another-package packages/client/src/probe-relative.ts -> packages/otel/src/index.ts",
      "published-package-by-its-name packages/langchain/src/probe-reach-in.ts -> packages/tracing/src/index.ts",
    ]);
    expect(code).not.toBe(0);
    // dependency-cruiser reads the whole copy: 20 s is too short on a loaded machine.
  }, 60_000);

  it("holds @svc/core, @svc/tracing, the codemod and product code to their imports, and allows @svc/core subpaths", async () => {
    const root = tempDir();
    cpSync(join(ROOT, ".dependency-cruiser.mjs"), join(root, ".dependency-cruiser.mjs"));
    const paths = Object.fromEntries(
      ["tracing", "otel", "client", "langchain", "core"].map((name) => [
        `@svc/${name}`,
        [`./packages/${name}/src/index.ts`],
      ]),
    );
    write(root, {
      "tsconfig.json": JSON.stringify({
        compilerOptions: {
          module: "Preserve",
          moduleResolution: "Bundler",
          allowImportingTsExtensions: true,
          paths: {
            ...paths,
            "@svc/core/*": ["./packages/core/src/*"],
            "@svc/client/browser": ["./packages/client/src/browser.ts"],
          },
        },
      }),
      "packages/core/src/index.ts": "export const core = 1;\n",
      "packages/core/src/queue.ts": "export const queue = 1;\n",
      "packages/core/src/uses-tracing.ts": 'export { tracing } from "@svc/tracing";\n',
      "packages/tracing/src/index.ts":
        'export { core } from "@svc/core";\nexport { queue } from "@svc/core/queue.js";\nexport const tracing = 1;\n',
      "packages/tracing/src/uses-otel.ts": 'export { otel } from "@svc/otel";\n',
      "packages/otel/src/index.ts":
        'export { tracing } from "@svc/tracing";\nexport { queue } from "@svc/core/queue.js";\nexport const otel = 1;\n',
      "packages/client/src/index.ts": 'export { tracing } from "@svc/tracing";\nexport const client = 1;\n',
      "packages/client/src/browser.ts": "export const browser = 1;\n",
      "packages/client/src/uses-tests.ts": 'export { helper } from "../../../tests/support/helper.ts";\n',
      "packages/langchain/src/index.ts":
        'export { client } from "@svc/client";\nexport { browser } from "@svc/client/browser";\n',
      "packages/langchain/src/unknown-name.ts": 'export { nothing } from "@svc/nothing";\n',
      "tests/support/helper.ts": "export const helper = 1;\n",
      "tools/codemod/src/uses-client.ts": 'export { client } from "@svc/client";\n',
      "tools/codemod/src/uses-dev-server.ts": 'export { server } from "../../dev-server/src/server.ts";\n',
      "tools/codemod/src/own.ts": 'export { edits } from "./edits.ts";\n',
      "tools/codemod/src/edits.ts": "export const edits = 1;\n",
      "tools/dev-server/src/server.ts": "export const server = 1;\n",
      "tools/dev-server/src/uses-core.ts": 'export { core } from "@svc/core";\n',
      "tools/dev-server/src/uses-reader.ts":
        'export { reader } from "../../../packages/core/src/genai-attributes.ts";\n',
      "tools/dev-server/src/uses-observations.ts":
        'export { observations } from "../../../packages/core/src/read-observation-attributes.ts";\n',
      "packages/core/src/genai-attributes.ts": "export const reader = 1;\n",
      "packages/core/src/attributes.ts": "export const keys = 1;\n",
      "packages/core/src/read-observation-attributes.ts":
        'export { keys } from "./attributes.ts";\nexport { reader } from "./genai-attributes.ts";\n' +
        'export { queue } from "./queue.ts";\nexport const observations = 1;\n',
    });

    const { code, violations } = await checkArch(root);

    expect(violations).toEqual([
      "codemod-stands-alone tools/codemod/src/uses-client.ts -> packages/client/src/index.ts",
      "codemod-stands-alone tools/codemod/src/uses-dev-server.ts -> tools/dev-server/src/server.ts",
      "core-imports-no-published-package packages/core/src/uses-tracing.ts -> packages/tracing/src/index.ts",
      "dev-server-reads-only-shared-readers tools/dev-server/src/uses-core.ts -> packages/core/src/index.ts",
      "product-code-imports-no-tooling packages/client/src/uses-tests.ts -> tests/support/helper.ts",
      "published-package-root-only packages/langchain/src/index.ts -> packages/client/src/browser.ts",
      "shared-readers-stand-alone packages/core/src/read-observation-attributes.ts -> packages/core/src/queue.ts",
      "svc-name-resolves packages/langchain/src/unknown-name.ts -> @svc/nothing",
      "tracing-imports-only-core packages/tracing/src/uses-otel.ts -> packages/otel/src/index.ts",
    ]);
    expect(code).not.toBe(0);
  });
});
