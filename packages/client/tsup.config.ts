import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsup-preset.ts";

// The server client (`@svc/client`), the browser score client (`@svc/client/browser`), the experiment suites for
// vitest (`@svc/client/vitest`) and `node:test` (`@svc/client/node-test`), and the `svc` command.
export default defineConfig(
  packageBuild(import.meta.dirname, {
    index: "src/index.ts",
    browser: "src/browser.ts",
    cli: "src/cli.ts",
    vitest: "src/vitest.ts",
    "node-test": "src/node-test.ts",
  }),
);
