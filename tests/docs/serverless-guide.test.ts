import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "../support/packages.ts";
import { SERVERLESS_OTEL_PACKAGES } from "../support/recipes.ts";

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

it("says the OpenTelemetry line of the shared module and installs what it imports, as the runtime matrix does", () => {
  const scenario = shownRecipes().get("scenario.mjs") ?? "";
  const before = GUIDE.slice(0, GUIDE.indexOf("<!-- recipe: scenario.mjs -->"));
  const install = [...before.matchAll(/^npm install (.+)$/gm)].at(-1)?.[1]?.split(" ") ?? [];
  const imported = [...scenario.matchAll(/from "(@opentelemetry\/[^"]+)"/g)].map((m) => m[1]);

  expect(before).toContain("OpenTelemetry 2.x line");
  for (const spec of SERVERLESS_OTEL_PACKAGES) expect(install).toContain(spec);
  for (const name of imported)
    expect(
      install.some((spec) => spec.startsWith(`${name}@`)),
      name,
    ).toBe(true);
});

it("imports the shared module by the file name the guide gives it, in every code block", () => {
  const imports = [...GUIDE.matchAll(/import \{[^}]*\bcreateSvc\b[^}]*\} from "([^"]+)"/g)].map((m) => m[1]);

  expect(imports.length).toBeGreaterThan(5);
  for (const from of imports) expect(from).toMatch(/(^|\/)scenario\.mjs$/);
});

it("creates, in a recipe it shows, every prompt the shared module reads", () => {
  const shown = [...shownRecipes().values()].join("\n");
  const read = [...shown.matchAll(/prompt\.get\("([^"]+)"/g)].map((m) => m[1]);
  const created = [...shown.matchAll(/prompt\.create\(\{\s*name: "([^"]+)"/g)].map((m) => m[1]);

  expect(read.length).toBeGreaterThan(0);
  for (const name of read) expect(created).toContain(name);
});
