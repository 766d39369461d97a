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

it("shows the test as tests/tracing/answer.test.ts has it", () => {
  const shown = blockAfter("## Testing your instrumentation");
  expect(shown.startsWith("// answer.test.ts\n")).toBe(true);
  expect(withoutFirstLine("tests/tracing/answer.test.ts")).toBe(shown.slice("// answer.test.ts\n".length));
});
