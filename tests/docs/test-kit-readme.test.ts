import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "../support/packages.ts";

// The tracing README's page on testing shows a complete user test of the app of its first trace; both run in this
// repository as tests/tracing/answer.ts and tests/tracing/answer.test.ts, which must be what the README shows.

const README = readFileSync(join(ROOT, "packages/tracing/README.md"), "utf8");

/** The first `ts` block after a heading of the README. */
function blockAfter(heading: string): string {
  const at = README.indexOf(heading);
  if (at < 0) throw new Error(`the tracing README has no "${heading}"`);
  return README.slice(at).match(/```ts\n([\s\S]*?)```/)?.[1] ?? "";
}

/** A file of the repository without its first line (which says where it comes from). */
function withoutFirstLine(path: string): string {
  return readFileSync(join(ROOT, path), "utf8").split("\n").slice(1).join("\n");
}

it("shows the app under test as tests/tracing/answer.ts has it (whose stub marks its unused parameter)", () => {
  const app = withoutFirstLine("tests/tracing/answer.ts").replace("async (_query: string)", "async (query: string)");
  expect(app).toBe(blockAfter("## A first trace with a generation"));
});

// The README leads with the 3.x line, which npm installs by default; this repository tests on the 2.x line. The one
// line that differs is the import the README gives for the 2.x line.
const IMPORT_3X = 'import { TracerProvider } from "@opentelemetry/sdk-trace";';
const IMPORT_2X = 'import { BasicTracerProvider as TracerProvider } from "@opentelemetry/sdk-trace-base";';

it("shows the test as tests/tracing/answer.test.ts has it, on the 3.x line, and the import for the 2.x line", () => {
  const shown = blockAfter("## Testing your instrumentation");
  expect(shown.startsWith(`// answer.test.ts\n${IMPORT_3X}\n`)).toBe(true);
  expect(README).toContain(`only the first import changes, to\n\`${IMPORT_2X}\``);
  expect(withoutFirstLine("tests/tracing/answer.test.ts")).toBe(
    shown.slice("// answer.test.ts\n".length).replace(IMPORT_3X, IMPORT_2X),
  );
});

it("gives an install line for each OpenTelemetry line before the test, the default line first", () => {
  const section = README.slice(README.indexOf("## Testing your instrumentation"));
  const install = section.match(/```sh\n([\s\S]*?)```/)?.[1] ?? "";
  expect(install.split("\n").filter((line) => line.startsWith("npm install"))).toEqual([
    "npm install --save-dev @opentelemetry/sdk-trace vitest",
    "npm install --save-dev @opentelemetry/sdk-trace-base@^2 vitest",
  ]);
  expect(section.indexOf("```sh")).toBeLessThan(section.indexOf("```ts"));
});
