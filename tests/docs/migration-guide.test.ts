import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_NAME_LENGTH, MAX_RETRIES_CAP, MAX_SERIALIZED_LENGTH } from "@svc/core";
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_RETRIES } from "../../packages/client/src/api/request-runtime.ts";
import { CLIENT_SPECS, MAX_SCORES_PER_REQUEST, SCORE_SPECS } from "../../packages/client/src/config.ts";
import { DEFAULT_PROMPT_FETCH_TIMEOUT_MS } from "../../packages/client/src/prompt/prompt-manager.ts";
import { MAX_METADATA_KEY_LENGTH } from "../../packages/core/src/metadata.ts";
import { MAX_QUEUE_RETRY_DELAY_MS } from "../../packages/core/src/queue/backoff.ts";
import {
  MAX_RETRY_AFTER_MS,
  MAX_RETRY_DELAY_MS,
  RETRY_BASE_DELAY_MS,
} from "../../packages/core/src/transport/retry.ts";
import { PROCESSOR_SPECS } from "../../packages/otel/src/config.ts";
import { listMethods, loadDefinition, takesEmptyRequest } from "../../scripts/generate-api.ts";
import { codemodCommand } from "../../scripts/pack.ts";
import { ROOT } from "../support/packages.ts";

// MIGRATION-v6.md: a first page (the codemod, the five changes most apps meet, how to check the result), then the
// full reference. The commands it gives and the figures it quotes are checked against the code here.

const GUIDE = readFileSync(join(ROOT, "MIGRATION-v6.md"), "utf8");
const FIRST_PAGE = GUIDE.slice(0, GUIDE.indexOf("\n# Full reference"));
const manifest = (dir: string) =>
  JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8")) as {
    version: string;
    engines: { node: string };
    peerDependencies?: Record<string, string>;
  };
const fallback = (spec: { fallback?: unknown }) => spec.fallback;
/** `100,000` as the guide writes it, as a number. */
const num = (text: string | undefined) => Number((text ?? "").replaceAll(",", ""));

describe("the first page of the migration guide", () => {
  it("comes before the full reference and fits on one page, with its three steps", () => {
    expect(GUIDE).toContain("\n# Full reference\n");
    expect(FIRST_PAGE.split("\n").length).toBeLessThanOrEqual(70);
    expect([...FIRST_PAGE.matchAll(/^## (.+)$/gm)].map((m) => m[1])).toEqual([
      "1. Run the codemod",
      "2. The five changes most apps meet",
      "3. Check the result",
    ]);
  });

  it("lists five changes", () => {
    const changes = FIRST_PAGE.slice(FIRST_PAGE.indexOf("## 2."), FIRST_PAGE.indexOf("## 3."));
    expect([...changes.matchAll(/^(\d)\. \*\*/gm)].map((m) => m[1])).toEqual(["1", "2", "3", "4", "5"]);
  });

  it("gives the codemod command of the published package and the one dev.sh pack prints for a clone", () => {
    const { version } = manifest("tools/codemod");
    const major = version.split(".")[0];
    const tarball = `<clone>/packs/svc-codemod-${version}.tgz`;

    expect(FIRST_PAGE).toContain(`npx @svc/codemod@${major} --dry-run .`);
    expect(FIRST_PAGE).toContain(`npx @svc/codemod@${major} .`);
    expect(FIRST_PAGE).toContain(codemodCommand(tarball));
    expect(FIRST_PAGE).toContain(codemodCommand(tarball, "."));
    expect(FIRST_PAGE).toContain("bash scripts/dev.sh pack");
  });
});

describe("the full reference", () => {
  it("links only to sections it has", () => {
    const slug = (heading: string) =>
      heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, "")
        .replaceAll(" ", "-");
    const anchors = new Set([...GUIDE.matchAll(/^#{1,3} (.+)$/gm)].map((m) => slug(m[1] ?? "")));
    const links = [...GUIDE.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1] ?? "");

    expect(links.length).toBeGreaterThan(20);
    for (const link of links) expect(anchors, link).toContain(link);
  });

  it("says one thing about the environment variables: SVC_* names replace the LANGFUSE_* ones", () => {
    expect(GUIDE).not.toMatch(/variables keep their names/);
    expect(GUIDE).toMatch(/`SVC_\*` names, which replace the `LANGFUSE_\*` ones/);
  });

  it("quotes each flushTimeout with its component and the default the code has", () => {
    const quoted = [...GUIDE.matchAll(/`flushTimeout`\s*\(([^)]*)\)/g)].map((m) => m[1] ?? "");
    expect(quoted.length).toBeGreaterThanOrEqual(3);
    for (const text of quoted) {
      const figures = [...text.matchAll(/(spans|scores):\s+(\d+) s/g)];
      expect(figures.length, text).toBeGreaterThan(0);
      for (const [, component, seconds] of figures)
        expect(num(seconds), text).toBe(
          component === "spans" ? fallback(PROCESSOR_SPECS.flushTimeout) : fallback(SCORE_SPECS.flushTimeout),
        );
    }
  });

  const FIGURES: [RegExp, unknown[]][] = [
    [/one export request may take (\d+) s \(`timeout`/, [fallback(PROCESSOR_SPECS.timeout)]],
    [/up to ([\d,]+) spans wait in\s+the queue \(`maxQueueSize`/, [fallback(PROCESSOR_SPECS.maxQueueSize)]],
    [/`scoreMaxRequestBytes` \((\d+) MiB\)/, [(fallback(SCORE_SPECS.scoreMaxRequestBytes) as number) / 1024 / 1024]],
    [/scores go in batches of up to (\d+)/, [MAX_SCORES_PER_REQUEST]],
    [/up to `maxRetries` \(default (\d+), at most (\d+)\)/, [DEFAULT_MAX_RETRIES, MAX_RETRIES_CAP]],
    [
      /exponential backoff from (\d+) s \(each wait at most (\d+) s\) or the server's `Retry-After` \(at most (\d+) s\)/,
      [RETRY_BASE_DELAY_MS / 1000, MAX_RETRY_DELAY_MS / 1000, MAX_RETRY_AFTER_MS / 1000],
    ],
    [/\(backoff\s+from (\d+) s to (\d+) s/, [RETRY_BASE_DELAY_MS / 1000, MAX_QUEUE_RETRY_DELAY_MS / 1000]],
    [/`fetchTimeoutMs` \((\d+) s\)/, [DEFAULT_PROMPT_FETCH_TIMEOUT_MS / 1000]],
    [/\(seconds per attempt, default (\d+)\)/, [fallback(CLIENT_SPECS.timeout)]],
    [
      /text over ([\d,]+) UTF-16 code units, a span name over ([\d,]+), a metadata key over ([\d,]+)/,
      [MAX_SERIALIZED_LENGTH, MAX_NAME_LENGTH, MAX_METADATA_KEY_LENGTH],
    ],
    [
      /\| Node\.js \| 20 \| \*\*(\d+)\*\* or later/,
      [Number(manifest("packages/client").engines.node.replace(">=", ""))],
    ],
  ];

  it.each(FIGURES)("quotes %s as the code has it", (pattern, expected) => {
    const matches = [...GUIDE.matchAll(new RegExp(pattern, "g"))];
    expect(matches.length, String(pattern)).toBeGreaterThan(0);
    for (const match of matches) expect(match.slice(1).map(num)).toEqual(expected);
  });

  it("counts the generated methods that take `{}` before the request options as the generator makes them", () => {
    const count = listMethods(loadDefinition()).filter(takesEmptyRequest).length;
    const quoted = [...GUIDE.matchAll(/(\d+) (?:generated|REST) methods/g)].map((m) => Number(m[1]));
    expect(quoted.length).toBeGreaterThanOrEqual(3);
    expect(new Set(quoted)).toEqual(new Set([count]));
  });

  it("names the peer ranges the packages declare", () => {
    const langchainPeer = manifest("packages/langchain").peerDependencies?.["@langchain/core"];
    const otelPeer = manifest("packages/tracing").peerDependencies?.["@opentelemetry/api"];
    expect(GUIDE).toContain(`| **\`${langchainPeer}\`** |`);
    expect(GUIDE).toContain(`| \`${otelPeer}\`, the only OpenTelemetry peer |`);
  });
});
