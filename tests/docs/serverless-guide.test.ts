import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "../support/packages.ts";

// The serverless guide shows the recipes the runtime matrix runs (tests/packaging/runtimes.test.ts): each block
// marked `<!-- recipe: file -->` must be that file of tests/packaging/runtimes/, and every file must be shown.

const GUIDE = readFileSync(join(ROOT, "docs/serverless.md"), "utf8");
const RECIPES = join(ROOT, "tests/packaging/runtimes");

function shownRecipes(): Map<string, string> {
  const shown = new Map<string, string>();
  for (const match of GUIDE.matchAll(/<!-- recipe: ([\w.-]+) -->\n```js\n([\s\S]*?)```/g))
    shown.set(match[1] as string, match[2] as string);
  return shown;
}

it("shows every recipe of the runtime matrix exactly as the matrix runs it", () => {
  const shown = shownRecipes();
  expect([...shown.keys()].sort()).toEqual(readdirSync(RECIPES).sort());
  for (const [file, code] of shown) expect(code, file).toBe(readFileSync(join(RECIPES, file), "utf8"));
});

it("is linked from the repository README and from the READMEs of the span processor and the client", () => {
  expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain("(docs/serverless.md)");
  expect(readFileSync(join(ROOT, "packages/otel/README.md"), "utf8")).toContain("(../../docs/serverless.md)");
  expect(readFileSync(join(ROOT, "packages/client/README.md"), "utf8")).toContain("(../../docs/serverless.md)");
});
