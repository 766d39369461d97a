import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { type DevServer, startDevServer } from "@svc/dev-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPECTED } from "../fixtures/model-calls/expected.ts";
import { type MockProviders, startMockProviders } from "../support/mock-providers.ts";
import {
  canonical,
  fixturePath,
  fromDevServer,
  MODEL_CALL_CASES,
  type ModelCallCase,
  readByTestKit,
  summarize,
} from "../support/model-calls.ts";
import { npmEnv, packAll, ROOT, removeDir } from "../support/packages.ts";

// The model-call matrix: each recipe of docs/model-calls/ (the guide docs/model-calls.md shows them) run as a user
// runs it, with the real LLM client and instrumentation at the versions its package.json pins, the packed svc
// tarballs and DEFAULT SvcSpanProcessor options, against loopback mock providers (tests/support/mock-providers.ts)
// and the dev server. Per case it compares what the dev server stored, and what the test kit reads from the exported
// spans, with the hand-written golden expectations (tests/fixtures/model-calls/expected.ts).
// Each set-up folder is installed once into .tmp/model-calls/<set-up> and kept while its package.json and the
// tarballs are unchanged. MODEL_CALLS_RECORD_FIXTURES=1 also writes the spans each library made (before the export
// filter) to tests/fixtures/model-calls/<case>.spans.json, which the fixture test reads without the network.

const run = promisify(execFile);
const RECIPES = join(ROOT, "docs", "model-calls");
const WORK = join(ROOT, ".tmp", "model-calls");
const RECORDER = join(import.meta.dirname, "model-calls", "record.mjs");
const RECORD_FIXTURES = process.env.MODEL_CALLS_RECORD_FIXTURES === "1";

let packed: { dir: string; tarballs: Record<string, string> };
let server: DevServer;
let mock: MockProviders;
const installed = new Map<string, string>();
/** Per case: spans made, spans stored, and the summary the dev server gave; printed at the end. */
const figures: Record<string, unknown> = {};

beforeAll(async () => {
  packed = packAll();
  server = await startDevServer({ port: 0 });
  mock = await startMockProviders();
  await installSetUps([...new Set(MODEL_CALL_CASES.map((c) => c.setup))]);
});

afterAll(async () => {
  await mock?.close();
  await server?.close();
  if (packed) removeDir(packed.dir);
  if (Object.keys(figures).length > 0) writeFileSync(join(WORK, "figures.json"), JSON.stringify(figures, null, 1));
});

/**
 * Makes the app folder of a set-up, installed when its dependencies or the tarballs changed since the last install.
 * Set-ups install side by side (npm mostly waits on the registry), a few at a time.
 */
async function installSetUps(setups: string[], parallel = 3): Promise<void> {
  const queue = [...setups];
  const worker = async () => {
    for (let setup = queue.shift(); setup !== undefined; setup = queue.shift())
      installed.set(setup, await setUp(setup));
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

async function setUp(setup: string): Promise<string> {
  const dir = join(WORK, setup);
  mkdirSync(dir, { recursive: true });
  const manifest = readFileSync(join(RECIPES, setup, "package.json"), "utf8");
  const npmInstall = (args: string[]) =>
    run("npm", ["install", "--no-audit", "--no-fund", ...args], { cwd: dir, env: npmEnv(), timeout: 240_000 });
  const tarballs = ["@svc/tracing", "@svc/otel"].map((name) => packed.tarballs[name] as string);
  const hash = createHash("sha256");
  for (const tarball of tarballs) hash.update(readFileSync(tarball));
  const svc = hash.digest("hex");
  // The recipe's dependencies and the tarballs in one install when the dependencies change; the tarballs alone when
  // only they change (npm keeps an installed file: package of the same version, so it is removed first).
  const depsStamp = join(dir, ".installed");
  const svcStamp = join(dir, ".installed-svc");
  const depsChanged = !existsSync(depsStamp) || readFileSync(depsStamp, "utf8") !== manifest;
  if (depsChanged || !existsSync(svcStamp) || readFileSync(svcStamp, "utf8") !== svc) {
    if (depsChanged) writeFileSync(join(dir, "package.json"), manifest);
    for (const tarball of tarballs) copyFileSync(tarball, join(dir, basename(tarball)));
    rmSync(join(dir, "node_modules", "@svc"), { recursive: true, force: true });
    await npmInstall(tarballs.map((tarball) => `./${basename(tarball)}`));
    writeFileSync(depsStamp, manifest);
    writeFileSync(svcStamp, svc);
  }
  for (const file of readdirSync(join(RECIPES, setup)))
    if (file !== "package.json") copyFileSync(join(RECIPES, setup, file), join(dir, file));
  copyFileSync(RECORDER, join(dir, "record.mjs"));
  return dir;
}

interface OtlpRequest {
  resourceSpans: { scopeSpans: { scope: { name: string }; spans: { traceId: string; spanId: string }[] }[] }[];
}

/** Runs a case's recipe; returns the spans it made (as recorded before the export filter). */
async function runRecipe(c: ModelCallCase): Promise<OtlpRequest> {
  const dir = installed.get(c.setup) as string;
  const record = join(dir, `${c.id}.spans.json`);
  const { stderr } = await run(
    process.execPath,
    ["--import", "./record.mjs", c.load, `./${c.instrumentation}`, c.app],
    {
      cwd: dir,
      timeout: 60_000,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        SVC_BASE_URL: server.url,
        SVC_PUBLIC_KEY: server.publicKey,
        SVC_SECRET_KEY: server.secretKey,
        OPENAI_API_KEY: "sk-test-key",
        OPENAI_BASE_URL: `${mock.url}/v1`,
        ANTHROPIC_API_KEY: "sk-ant-test-key",
        ANTHROPIC_BASE_URL: mock.url,
        MODEL_CALLS_RECORD: record,
        ...c.env,
      },
    },
  );
  expect(stderr.split("\n").filter((line) => /error/i.test(line))).toEqual([]);
  const made = JSON.parse(readFileSync(record, "utf8")) as OtlpRequest;
  if (RECORD_FIXTURES) copyFileSync(record, fixturePath(c.id));
  return made;
}

async function storedObservations(traceIds: Set<string>) {
  const auth = `Basic ${Buffer.from(`${server.publicKey}:${server.secretKey}`).toString("base64")}`;
  const out: Record<string, unknown>[] = [];
  for (const traceId of traceIds) {
    const answer = await fetch(
      `${server.url}/api/public/v2/observations?traceId=${traceId}&fields=core,basic,io,model,usage&limit=1000`,
      { headers: { authorization: auth } },
    );
    out.push(...((await answer.json()) as { data: Record<string, unknown>[] }).data);
  }
  return out;
}

describe("model calls of each LLM library, default SvcSpanProcessor options, read as the server reads them", () => {
  it.each(MODEL_CALL_CASES)(
    "$id: every span exported; each call's type, model and usage as the mock answered",
    async (c) => {
      const made = await runRecipe(c);
      const spans = made.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
      const traceIds = new Set(spans.map((s) => s.traceId));
      const stored = [...traceIds].flatMap((id) => server.store.spansOfTrace(id));
      // The test kit reads the spans that were exported, from the same recording.
      const storedIds = new Set(stored.map((s) => `${s.traceId}:${s.spanId}`));
      const exported = {
        resourceSpans: made.resourceSpans.map((r) => ({
          ...r,
          scopeSpans: r.scopeSpans.map((s) => ({
            ...s,
            spans: s.spans.filter((span) => storedIds.has(`${span.traceId}:${span.spanId}`)),
          })),
        })),
      };
      const kit = await readByTestKit(exported);
      const fromKit = summarize(kit);
      const fromServer = summarize(
        fromDevServer(
          await storedObservations(traceIds),
          kit.map((o) => o.id),
        ),
      );
      figures[c.id] = {
        made: spans.length,
        stored: stored.length,
        scopes: made.resourceSpans.flatMap((r) => r.scopeSpans.map((s) => `${s.scope.name} (${s.spans.length})`)),
        server: fromServer,
        kit: fromKit,
      };

      expect({ made: spans.length, stored: stored.length }).toEqual({ made: spans.length, stored: spans.length });
      expect(fromServer).toEqual(canonical(EXPECTED[c.id] ?? []));
      expect(fromKit).toEqual(canonical(EXPECTED[c.id] ?? []));
    },
  );
});
