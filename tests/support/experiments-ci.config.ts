import { readFileSync } from "node:fs";
import { join } from "node:path";
import { defineConfig, mergeConfig } from "vitest/config";
import fixture from "../fixtures/experiments-ci/vitest.config.ts";

// The fixture project's own vitest config, with @svc/* read from this repository's sources (as the root config
// does), for running the project in a child process from tests/e2e/experiments-ci.test.ts.

const ROOT = join(import.meta.dirname, "..", "..");
const { version } = JSON.parse(readFileSync(join(ROOT, "packages/tracing/package.json"), "utf8")) as {
  version: string;
};
const source = (path: string) => join(ROOT, path);

export default mergeConfig(
  fixture,
  defineConfig({
    resolve: {
      alias: [
        { find: /^@svc\/core$/, replacement: source("packages/core/src/index.ts") },
        { find: /^@svc\/tracing$/, replacement: source("packages/tracing/src/index.ts") },
        { find: /^@svc\/otel$/, replacement: source("packages/otel/src/index.ts") },
        { find: /^@svc\/client\/vitest$/, replacement: source("packages/client/src/vitest.ts") },
        { find: /^@svc\/client$/, replacement: source("packages/client/src/index.ts") },
      ],
    },
    define: { __SVC_SDK_VERSION__: JSON.stringify(version) },
  }),
);
