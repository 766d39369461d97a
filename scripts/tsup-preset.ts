import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Plugin } from "esbuild";
import type { Options } from "tsup";

/** Imports of the private core become imports of `@svc/tracing/internal`, left to the run time. */
const coreFromTracing: Plugin = {
  name: "svc-core-from-tracing",
  setup(build) {
    build.onResolve({ filter: /^@svc\/core$/ }, () => ({ path: "@svc/tracing/internal", external: true }));
  },
};

/** Where a package takes the private core from. */
export interface CoreSource {
  /**
   * `bundle`: the core is built into the package (`@svc/tracing`, which publishes it as `@svc/tracing/internal`).
   * `tracing`: imported from `@svc/tracing/internal` at run time, so an application holds one copy.
   */
  core: "bundle" | "tracing";
}

/** The build every package shares: ES2022, ESM + CJS, declarations, source maps. */
export function packageBuild(
  dir: string,
  entry: Record<string, string> = { index: "src/index.ts" },
  { core }: CoreSource = { core: "tracing" },
): Options {
  const { version } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string };
  return {
    entry,
    format: ["esm", "cjs"],
    target: "es2022",
    platform: "node",
    // The private core's declarations are inlined, found through its sources (its code is in @svc/tracing).
    dts: { compilerOptions: { paths: { "@svc/core": [join(dir, "../core/src/index.ts")] } } },
    sourcemap: true,
    clean: true,
    treeshake: true,
    // Entry points share code through chunks instead of holding a copy each (the core, in @svc/tracing), and a
    // dynamic import() becomes a chunk of its own, loaded on first use.
    splitting: true,
    define: { __SVC_SDK_VERSION__: JSON.stringify(version) },
    ...(core === "tracing" ? { esbuildPlugins: [coreFromTracing] } : {}),
  };
}
