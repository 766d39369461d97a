import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/packages.ts";

// The built entry points; a class that refers to itself is renamed by the bundler (`class _X`), and then prints,
// logs and reports its constructor under the wrong name.
const ENTRIES = [
  "tracing/dist/index",
  "otel/dist/index",
  "client/dist/index",
  "client/dist/browser",
  "langchain/dist/index",
];

function isClass(value: unknown): value is abstract new (...args: never[]) => unknown {
  return typeof value === "function" && /^class\b/.test(Function.prototype.toString.call(value));
}

/** Classes exported under a name that is not their own; a deprecated alias is fine when the own name is exported too. */
function misnamed(module: Record<string, unknown>): string[] {
  return Object.entries(module)
    .filter(([, value]) => isClass(value))
    .filter(([name, value]) => (value as { name: string }).name !== name)
    .filter(([, value]) => module[(value as { name: string }).name] !== value)
    .map(([name, value]) => `${name} is named ${(value as { name: string }).name}`);
}

describe("built packages", () => {
  it.each(ENTRIES)("keep the name of every exported class in %s (ESM and CommonJS)", async (entry) => {
    const file = join(ROOT, "packages", entry);
    const esm = (await import(pathToFileURL(`${file}.js`).href)) as Record<string, unknown>;
    const cjs = createRequire(import.meta.url)(`${file}.cjs`) as Record<string, unknown>;

    expect(Object.values(esm).filter(isClass).length).toBeGreaterThan(0);
    expect(misnamed(esm)).toEqual([]);
    expect(misnamed(cjs)).toEqual([]);
  });
});
