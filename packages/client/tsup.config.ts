import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsup-preset.ts";

// The server client (`@svc/client`), the browser score client (`@svc/client/browser`) and the `svc` command.
export default defineConfig(
  packageBuild(import.meta.dirname, { index: "src/index.ts", browser: "src/browser.ts", cli: "src/cli.ts" }),
);
