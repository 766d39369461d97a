import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsup-preset.ts";

// Two entries: the server client (`@svc/client`) and the browser score client (`@svc/client/browser`).
export default defineConfig(packageBuild(import.meta.dirname, { index: "src/index.ts", browser: "src/browser.ts" }));
