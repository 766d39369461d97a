import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { OBSERVATION_FIELD_GROUPS } from "../../tools/dev-server/src/observations.ts";
import { ROOT } from "../support/packages.ts";

// The client README's part on reading a trace back: its function is tests/e2e/read-trace.ts (run in the e2e suite)
// and its table of field groups is the one the dev server serves, as the server's API reference lists them.

const README = readFileSync(join(ROOT, "packages/client/README.md"), "utf8");
const SECTION = README.slice(README.indexOf("**Reading a trace back.**"));

it("shows the function of tests/e2e/read-trace.ts", () => {
  const shown = SECTION.match(/```ts\n([\s\S]*?)```/)?.[1] ?? "";
  const file = readFileSync(join(ROOT, "tests/e2e/read-trace.ts"), "utf8").split("\n").slice(1).join("\n");
  expect(shown).toBe(file);
});

it("lists every field group with its fields", () => {
  const rows = [...SECTION.matchAll(/^\| `(\w+)`(?: \(always\))? \| (.+) \|$/gm)].map((m) => [
    m[1],
    [...(m[2] ?? "").matchAll(/`(\w+)`/g)].map((f) => f[1]),
  ]);
  expect(Object.fromEntries(rows)).toEqual(OBSERVATION_FIELD_GROUPS);
});

it("is what the TSDoc of the generated method says, group by group", () => {
  const generated = readFileSync(join(ROOT, "packages/client/src/api/generated/observations.ts"), "utf8");
  for (const group of Object.keys(OBSERVATION_FIELD_GROUPS)) expect(generated).toContain(`* - \`${group}\``);
});
