import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { runChild } from "../support/child-process.ts";
import { startServer } from "../support/http-server.ts";
import { exportedSpans } from "../support/otel.ts";
import { ROOT } from "../support/packages.ts";

// The root README's first example: it runs as the ES module it says it is, and its CommonJS form loads the same names.

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const USING = README.slice(README.indexOf("## Using the SDK"));
const esm = USING.match(/```ts\n([\s\S]*?)```/)?.[1] ?? "";
const cjs = USING.match(/```js\n([\s\S]*?)```/)?.[1] ?? "";

describe("the first example of the README", () => {
  it("says before it that it is an ES module, and how to run it as one", () => {
    const before = USING.slice(0, USING.indexOf("```ts"));
    expect(before).toContain("The example is an ES module");
    expect(before).toContain('`"type": "module"`');
    expect(before).toContain("`app.mjs`");
    expect(before).toContain("Cannot use import statement outside a module");
  });

  it("runs as an ES module: a traced call and a score reach the server", async () => {
    const server = await startServer();
    onTestFinished(server.close);

    const result = await runChild(esm, {
      env: { SVC_BASE_URL: server.url, SVC_PUBLIC_KEY: "pk", SVC_SECRET_KEY: "sk", OTEL_TRACES_EXPORTER: "none" },
    });

    expect(result.code, result.stderr).toBe(0);
    expect(
      exportedSpans(server)
        .map((s) => s.name)
        .sort(),
    ).toEqual(["handle-question", "llm-call"]);
    const scores = server.seen.filter((r) => r.path === "/api/public/scores").flatMap((r) => r.json as object[]);
    expect(scores).toEqual([expect.objectContaining({ name: "helpfulness", value: 0.9 })]);
  });

  it("gives the CommonJS form: the same names from the same packages, with require and no top-level await", () => {
    const imports = [...esm.matchAll(/^import \{ (\w+) \} from "([^"]+)";$/gm)].map((m) => `${m[1]} ${m[2]}`);
    const requires = [...cjs.matchAll(/^const \{ (\w+) \} = require\("([^"]+)"\);$/gm)].map((m) => `${m[1]} ${m[2]}`);

    expect(imports.length).toBeGreaterThan(0);
    expect(requires).toEqual(imports);
    expect(cjs).toMatch(/^async function main\(\) \{$/m);
    expect(cjs.split("\n").filter((line) => line.startsWith("await "))).toEqual([]);
  });
});
