import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsup-preset.ts";

// The span processor (`@svc/otel`) and the test kit for users' tests (`@svc/otel/testing`).
export default defineConfig(
  packageBuild(import.meta.dirname, { index: "src/index.ts", testing: "src/testing/index.ts" }),
);
