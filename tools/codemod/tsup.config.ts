import { defineConfig } from "tsup";

// One ESM entry, the command; ts-morph stays a dependency (it carries the TypeScript compiler).
export default defineConfig({
  entry: { cli: "src/cli.ts" },
  format: ["esm"],
  target: "node22",
  platform: "node",
  sourcemap: true,
  clean: true,
  splitting: false,
});
