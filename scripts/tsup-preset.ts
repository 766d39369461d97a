import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Options } from "tsup";

/** The build every package shares: ES2022, ESM + CJS, declarations, source maps. */
export function packageBuild(dir: string, entry: Record<string, string> = { index: "src/index.ts" }): Options {
  const { version } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string };
  return {
    entry,
    format: ["esm", "cjs"],
    target: "es2022",
    platform: "node",
    // The private core is bundled: its declarations are inlined too, found through its sources.
    dts: { compilerOptions: { paths: { "@svc/core": [join(dir, "../core/src/index.ts")] } } },
    sourcemap: true,
    clean: true,
    treeshake: true,
    splitting: false,
    define: { __SVC_SDK_VERSION__: JSON.stringify(version) },
  };
}
