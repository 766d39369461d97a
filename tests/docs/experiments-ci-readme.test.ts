import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "../support/packages.ts";

// The README's "Run experiments in CI" project is tests/fixtures/experiments-ci, which tests/e2e/experiments-ci.test.ts
// runs with vitest: each file the README shows (a `ts` block whose first line names it) must be that file.

const README = readFileSync(join(ROOT, "packages/client/README.md"), "utf8");
const FIXTURE = join(ROOT, "tests/fixtures/experiments-ci");

function section(): string {
  const start = README.indexOf("## Run experiments in CI");
  if (start < 0) throw new Error('the client README has no "## Run experiments in CI"');
  const end = README.indexOf("\n## ", start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

/** The `ts` blocks of the section that start with `// <file name>`, by file name, without that line. */
function shownFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const [, body = ""] of section().matchAll(/```ts\n([\s\S]*?)```/g)) {
    const [first = "", ...rest] = body.split("\n");
    const name = /^\/\/ ([\w.-]+\.ts)$/.exec(first)?.[1];
    if (name) files.set(name, rest.join("\n"));
  }
  return files;
}

it("shows every file of the fixture project but the app under test, each as the project has it", () => {
  const shown = shownFiles();
  const project = readdirSync(FIXTURE).filter((f) => f !== "answer.ts");

  expect([...shown.keys()].sort()).toEqual(project.sort());
  for (const [name, text] of shown) expect(text, name).toBe(readFileSync(join(FIXTURE, name), "utf8"));
});

it("names the subpaths and the install line the project needs", () => {
  const text = section();
  expect(text).toContain("npm install --save-dev vitest @svc/client @svc/otel @opentelemetry/sdk-trace-node");
  expect(text).toContain("`@svc/client/node-test`");
});
