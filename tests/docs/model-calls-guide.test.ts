import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { MODEL_CALL_CASES } from "../support/model-calls.ts";
import { ROOT } from "../support/packages.ts";

// The guide "Tracing your model calls" shows the recipes the model-call matrix runs
// (tests/packaging/model-calls.test.ts): each block marked `<!-- recipe: set-up/file -->` must be that file of
// docs/model-calls/, every file must be shown, and every file must be run by a case of the matrix.

const GUIDE = readFileSync(join(ROOT, "docs/model-calls.md"), "utf8");
const RECIPES = join(ROOT, "docs/model-calls");

function recipeFiles(): string[] {
  return readdirSync(RECIPES).flatMap((setup) =>
    readdirSync(join(RECIPES, setup))
      .filter((file) => file !== "package.json")
      .map((file) => `${setup}/${file}`),
  );
}

it("shows every recipe exactly as the matrix runs it", () => {
  const shown = new Map<string, string>();
  for (const match of GUIDE.matchAll(/<!-- recipe: ([\w./-]+) -->\n```js\n([\s\S]*?)```/g))
    shown.set(match[1] as string, match[2] as string);

  expect([...shown.keys()].sort()).toEqual(recipeFiles().sort());
  for (const [file, code] of shown) expect(code, file).toBe(readFileSync(join(RECIPES, file), "utf8"));
});

it("runs every recipe in the matrix, each set-up at the versions its install command names", () => {
  const run = new Set(MODEL_CALL_CASES.flatMap((c) => [`${c.setup}/${c.instrumentation}`, `${c.setup}/${c.app}`]));
  expect(recipeFiles().filter((file) => !run.has(file))).toEqual([]);
  for (const setup of readdirSync(RECIPES)) {
    const { dependencies } = JSON.parse(readFileSync(join(RECIPES, setup, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    for (const [name, version] of Object.entries(dependencies)) {
      if (name.startsWith("@opentelemetry/api") || name === "@opentelemetry/sdk-node") continue;
      // The guide's install line names the major (or major.minor below 1) the pinned version is in.
      const [major = "", minor = ""] = version.split(".");
      const range = major === "0" ? `${major}.${minor}` : major;
      expect(GUIDE, `${setup}: ${name}@${version}`).toMatch(new RegExp(`${name}@${range.replace(".", "\\.")}\\b`));
    }
  }
});

it("has the section the codemod links to, and is linked from the READMEs", () => {
  expect(GUIDE).toContain("\n## Coming from observeOpenAI\n");
  expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain("(docs/model-calls.md)");
  expect(readFileSync(join(ROOT, "packages/otel/README.md"), "utf8")).toContain("(../../docs/model-calls.md)");
});
