import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { onTestFinished } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const OUT_DIR = join(ROOT, ".tmp", "children");
const SOURCES: Record<string, string> = {
  "@svc/core": "packages/core/src/index.ts",
  "@svc/tracing": "packages/tracing/src/index.ts",
  "@svc/otel": "packages/otel/src/index.ts",
  "@svc/otel/testing": "packages/otel/src/testing/index.ts",
  "@svc/client": "packages/client/src/index.ts",
  "@svc/client/node-test": "packages/client/src/node-test.ts",
};

/** How a child process ended, with what it wrote. */
export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Milliseconds from the start of the process to its end. */
  ms: number;
}

/** A running child: its process, a promise of how it ended, and a way to wait for a line it writes. */
export interface Child {
  process: ChildProcess;
  done: Promise<ChildResult>;
  /** Resolves once stdout holds a line matching `pattern`; rejects if the child ends first. */
  waitFor(pattern: RegExp): Promise<void>;
}

/**
 * Bundles a TypeScript program (which may import `@svc/*` from the sources, and OpenTelemetry) with esbuild and
 * runs it in a fresh `node` process, with only the environment given. The child is killed when the test ends,
 * and after `timeoutMs` at the latest, so that no wait is unbounded.
 */
export async function startChild(
  source: string,
  { env = {}, timeoutMs = 30_000, args = [], nodeArgs = [], external = [], node = process.execPath }: ChildOptions = {},
): Promise<Child> {
  const file = await bundle(source, external);
  const started = Date.now();
  const child = spawn(node, [...nodeArgs, file, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const listeners = new Set<() => void>();
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    for (const listener of listeners) listener();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const done = new Promise<ChildResult>((resolve) => {
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      for (const listener of listeners) listener();
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  const waitFor = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (pattern.test(stdout)) {
          listeners.delete(check);
          resolve();
        } else if (child.exitCode !== null || child.signalCode !== null) {
          listeners.delete(check);
          reject(new Error(`the child ended before writing ${pattern}:\n${stdout}\n${stderr}`));
        }
      };
      listeners.add(check);
      check();
    });
  return { process: child, done, waitFor };
}

/** How a child runs: its environment (nothing else is passed on), its time limit and its arguments. */
export interface ChildOptions {
  env?: Record<string, string>;
  timeoutMs?: number;
  args?: string[];
  /** Options of `node` itself, before the program (`--expose-gc`). */
  nodeArgs?: string[];
  /** The `node` binary that runs the program. @defaultValue the one running the tests (Node 22) */
  node?: string;
  /**
   * Packages left out of the bundle and loaded from the repository's node_modules at run time, as an application
   * loads them (`@sentry/node` hooks module loading). `@opentelemetry/*` is then external too, so that one copy of the
   * OpenTelemetry API serves both.
   */
  external?: string[];
}

/** Runs a program to its end (see {@link startChild}). */
export async function runChild(source: string, options: ChildOptions = {}): Promise<ChildResult> {
  return (await startChild(source, options)).done;
}

const bundled = new Map<string, Promise<string>>();

function bundle(source: string, external: readonly string[]): Promise<string> {
  const hash = createHash("sha256").update(source).update(external.join(",")).digest("hex").slice(0, 16);
  let file = bundled.get(hash);
  if (file === undefined) {
    file = (async () => {
      const result = await build({
        stdin: { contents: source, resolveDir: ROOT, loader: "ts", sourcefile: "child.ts" },
        bundle: true,
        write: false,
        platform: "node",
        format: "esm",
        target: "node22",
        logLevel: "silent",
        external: external.length > 0 ? [...external, "@opentelemetry/*"] : [],
        alias: Object.fromEntries(Object.entries(SOURCES).map(([name, path]) => [name, join(ROOT, path)])),
        define: { __SVC_SDK_VERSION__: '"0.0.0-test"' },
        // Bundled CommonJS dependencies may call require(); give them one.
        banner: {
          js: 'import { createRequire as __svcRequire } from "node:module"; const require = __svcRequire(import.meta.url);',
        },
      });
      mkdirSync(OUT_DIR, { recursive: true });
      const path = join(OUT_DIR, `${hash}.mjs`);
      writeFileSync(path, result.outputFiles[0]?.text ?? "");
      return path;
    })();
    bundled.set(hash, file);
  }
  return file;
}
