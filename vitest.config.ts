import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const { version } = JSON.parse(readFileSync(here("./packages/tracing/package.json"), "utf8")) as { version: string };

// Tests import the packages' sources through these aliases; the packaging tests use the built tarballs.
const alias = [
  { find: /^@svc\/core$/, replacement: here("./packages/core/src/index.ts") },
  { find: /^@svc\/tracing$/, replacement: here("./packages/tracing/src/index.ts") },
  { find: /^@svc\/otel\/testing$/, replacement: here("./packages/otel/src/testing/index.ts") },
  { find: /^@svc\/otel$/, replacement: here("./packages/otel/src/index.ts") },
  { find: /^@svc\/client\/browser$/, replacement: here("./packages/client/src/browser.ts") },
  { find: /^@svc\/client\/vitest$/, replacement: here("./packages/client/src/vitest.ts") },
  { find: /^@svc\/client$/, replacement: here("./packages/client/src/index.ts") },
  { find: /^@svc\/langchain$/, replacement: here("./packages/langchain/src/index.ts") },
];

export default defineConfig({
  resolve: { alias },
  define: { __SVC_SDK_VERSION__: JSON.stringify(version) },
  test: {
    // SDK log lines are printed only for failing tests; tests that expect lines capture and assert them.
    setupFiles: ["tests/support/held-logs.ts"],
    // A stray rejection anywhere (in the SDK or a test) is an uncaught error that fails the run.
    execArgv: ["--unhandled-rejections=strict"],
    dangerouslyIgnoreUnhandledErrors: false,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["tests/**/*.test.ts"],
          exclude: ["tests/e2e/**", "tests/packaging/**", "**/node_modules/**"],
          testTimeout: 20_000,
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.test.ts"],
          testTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: "packaging",
          include: ["tests/packaging/**/*.test.ts"],
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
