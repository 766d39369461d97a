// Measurements that need no sink: cold import time, install size of a fresh install, gzipped bundle of an entry.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { type BuildOptions, build } from "esbuild";

const HERE = import.meta.dirname;
const ROOT = join(HERE, "..");

/**
 * The packages each contender's users import, in import order. Every contender needs a tracer provider from
 * sdk-trace-base; the previous major imports it itself, the others list it.
 */
export const IMPORTS: Record<string, string[]> = {
  otel: ["@opentelemetry/api", "@opentelemetry/sdk-trace-base", "@opentelemetry/exporter-trace-otlp-http"],
  v5: ["@langfuse/tracing", "@langfuse/otel", "@langfuse/client", "@opentelemetry/sdk-trace-base"],
  svc: ["@svc/tracing", "@svc/otel", "@svc/client", "@opentelemetry/sdk-trace-base"],
  langsmith: ["langsmith", "langsmith/traceable"],
  openinference: [
    "@opentelemetry/api",
    "@opentelemetry/sdk-trace-base",
    "@opentelemetry/exporter-trace-otlp-proto",
    "@arizeai/openinference-semantic-conventions",
  ],
};

/** Milliseconds to import the contender's packages in a fresh Node process (startup excluded). */
export function coldImportMs(contender: string): number {
  const specs = IMPORTS[contender]!;
  const script = `const t = performance.now(); ${specs.map((s) => `await import(${JSON.stringify(s)});`).join(" ")} console.log(performance.now() - t);`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: HERE,
    encoding: "utf8",
    timeout: 60_000,
  });
  return Number(out.trim());
}

/**
 * Bytes of the contender's typical service entry, bundled and minified by esbuild, then gzipped. Code that the packages
 * load with a dynamic `import()` on first use goes to chunks of its own, as bundlers for applications (esbuild with
 * splitting, Rollup, Vite, webpack) put it: `gzipped` counts what the application loads when it starts (the entry and
 * the chunks it imports statically, gzipped together), `lazyGzipped` the chunks loaded only when a rarely used part
 * is first called, and `oneFileGzipped` everything bundled into one file, as esbuild does without splitting.
 */
export async function bundleGzipBytes(
  contender: string,
): Promise<{ minified: number; gzipped: number; lazyGzipped: number; oneFileGzipped: number }> {
  const entry = join(HERE, "entries", `${contender}.mjs`);
  const options: BuildOptions = {
    entryPoints: [entry],
    bundle: true,
    minify: true,
    platform: "node",
    format: "esm",
    target: "es2022",
    write: false,
    logLevel: "silent",
    // The packages as users install them (their built files), not the sources the repository's tsconfig paths name.
    tsconfigRaw: "{}",
  };
  const oneFile = (await build(options)).outputFiles![0]!.contents;
  const outdir = join(tmpdir(), "svc-bench-bundle");
  const split = await build({ ...options, splitting: true, outdir, metafile: true });
  const outputs = split.metafile!.outputs;
  const contents = new Map(split.outputFiles!.map((file) => [file.path, file.contents]));
  const root = Object.keys(outputs).find((path) => outputs[path]!.entryPoint?.endsWith(`entries/${contender}.mjs`));
  const atStart = new Set<string>();
  for (const stack = root ? [root] : []; stack.length > 0; ) {
    const path = stack.pop()!;
    if (atStart.has(path)) continue;
    atStart.add(path);
    for (const imported of outputs[path]!.imports)
      if (imported.kind === "import-statement" && outputs[imported.path]) stack.push(imported.path);
  }
  const joined = (paths: string[]) => Buffer.concat(paths.map((path) => contents.get(resolve(path))!));
  const startup = joined([...atStart]);
  const lazy = joined(Object.keys(outputs).filter((path) => !atStart.has(path)));
  return {
    minified: startup.length,
    gzipped: gzipSync(startup, { level: 9 }).length,
    lazyGzipped: lazy.length === 0 ? 0 : gzipSync(lazy, { level: 9 }).length,
    oneFileGzipped: gzipSync(oneFile, { level: 9 }).length,
  };
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += dirBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

function npmInstall(dependencies: Record<string, string>): number {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-install-"));
  try {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app", private: true, dependencies }));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefer-offline"], {
      cwd: dir,
      stdio: "pipe",
      timeout: 240_000,
    });
    return dirBytes(join(dir, "node_modules"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const OTEL_PINS: Record<string, string> = {
  "@opentelemetry/api": "1.9.1",
  "@opentelemetry/core": "2.12.1",
  "@opentelemetry/sdk-trace-base": "2.12.1",
  "@opentelemetry/exporter-trace-otlp-http": "0.223.0",
};

function packSvc(dir: string): Record<string, string> {
  const deps: Record<string, string> = {};
  for (const name of ["tracing", "otel", "client"]) {
    const pkgDir = join(ROOT, "packages", name);
    execFileSync("pnpm", ["pack", "--pack-destination", dir], { cwd: pkgDir, stdio: "pipe" });
    const file = readdirSync(dir).find((f) => f.startsWith(`svc-${name}-`) && f.endsWith(".tgz"));
    if (!file) throw new Error(`pnpm pack wrote no tarball for @svc/${name}`);
    deps[`@svc/${name}`] = `file:${join(dir, file)}`;
    const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as {
      peerDependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    for (const peer of Object.keys(manifest.peerDependencies ?? {})) {
      if (manifest.peerDependenciesMeta?.[peer]?.optional) continue;
      deps[peer] = OTEL_PINS[peer] ?? manifest.peerDependencies![peer]!;
    }
  }
  return deps;
}

/** Bytes in node_modules after `npm install` of what a user installs for the contender, with its peers. */
export function installBytes(contender: string): number {
  if (contender === "otel") {
    const { "@opentelemetry/core": _core, ...floor } = OTEL_PINS;
    return npmInstall(floor);
  }
  if (contender === "langsmith") return npmInstall({ langsmith: "0.12.0" });
  if (contender === "openinference") {
    return npmInstall({
      "@opentelemetry/api": OTEL_PINS["@opentelemetry/api"]!,
      "@opentelemetry/sdk-trace-base": OTEL_PINS["@opentelemetry/sdk-trace-base"]!,
      "@opentelemetry/exporter-trace-otlp-proto": "0.223.0",
      "@arizeai/openinference-semantic-conventions": "2.12.0",
    });
  }
  if (contender === "v5") {
    return npmInstall({
      "@langfuse/tracing": "5.9.1",
      "@langfuse/otel": "5.9.1",
      "@langfuse/client": "5.9.1",
      ...OTEL_PINS,
    });
  }
  const packDir = mkdtempSync(join(tmpdir(), "svc-bench-pack-"));
  try {
    // The provider a v6 user registers the processor on comes from sdk-trace-base, as for the other contenders.
    return npmInstall({
      "@opentelemetry/sdk-trace-base": OTEL_PINS["@opentelemetry/sdk-trace-base"]!,
      ...packSvc(packDir),
    });
  } finally {
    rmSync(packDir, { recursive: true, force: true });
  }
}
