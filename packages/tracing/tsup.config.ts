import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsup-preset.ts";

// The tracing API, and the core the other svc packages share (`@svc/tracing/internal`).
export default defineConfig(
  packageBuild(import.meta.dirname, { index: "src/index.ts", internal: "src/internal.ts" }, { core: "bundle" }),
);
