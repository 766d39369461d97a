import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { OptionSpec } from "@svc/core";
import { describe, expect, it } from "vitest";
import { BROWSER_CLIENT_SPECS } from "../../packages/client/src/browser-client.ts";
import { CLIENT_SPECS, SCORE_SPECS } from "../../packages/client/src/config.ts";
import { DEFAULT_BASE_URL } from "../../packages/core/src/config/connection.ts";
import type { EnvSource } from "../../packages/core/src/config/options.ts";
import { PROCESSOR_SPECS } from "../../packages/otel/src/config.ts";
import { ROOT } from "../support/packages.ts";

// The option table of each class in its package README, checked against the specs the constructor resolves with:
// the same option names, the same environment variables in the same order (milliseconds marked), the same defaults,
// a unit for every number, and every option where 0 means "not set" named as such above the table.

interface Row {
  option: string;
  env: string;
  defaultValue: string;
  unit: string;
}

interface Table {
  intro: string;
  rows: Row[];
}

/** The first option table after `marker`, and the text between the marker and the table. */
function optionTable(readmePath: string, marker: string): Table {
  const text = readFileSync(join(ROOT, readmePath), "utf8");
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${readmePath} has no "${marker}"`);
  const tableAt = text.indexOf("| Option |", at);
  const lines = text.slice(tableAt).split("\n");
  const end = lines.findIndex((line) => !line.startsWith("|"));
  const rows = lines.slice(2, end).map((line) => {
    const [option = "", env = "", defaultValue = "", unit = ""] = line
      .slice(1, -1)
      .split("|")
      .map((cell) => cell.trim());
    return { option: option.replaceAll("`", ""), env, defaultValue, unit };
  });
  return { intro: text.slice(at, tableAt), rows };
}

const backticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? "");
const variables = (cell: string) => backticked(cell).filter((token) => /^[A-Z][A-Z0-9_]+$/.test(token));

type Specs = Record<string, OptionSpec<unknown>>;

/** The address and keys of the server-side classes, read by the shared connection resolver. */
const SERVER_CONNECTION = {
  publicKey: { env: ["SVC_PUBLIC_KEY"] },
  secretKey: { env: ["SVC_SECRET_KEY"] },
  baseUrl: { env: ["SVC_BASE_URL", "SVC_BASEURL"], fallback: DEFAULT_BASE_URL },
};

const CASES: {
  name: string;
  readme: string;
  marker: string;
  specs: Specs;
  /** Options read outside the specs (address and keys, header variables) and their variables. */
  others: Record<string, { env: string[]; fallback?: string }>;
}[] = [
  {
    name: "SvcSpanProcessor",
    readme: "packages/otel/README.md",
    marker: "## Options",
    specs: PROCESSOR_SPECS,
    others: SERVER_CONNECTION,
  },
  {
    name: "SvcClient",
    readme: "packages/client/README.md",
    marker: "`new SvcClient(options)`",
    specs: { ...CLIENT_SPECS, ...SCORE_SPECS },
    others: SERVER_CONNECTION,
  },
  {
    name: "SvcBrowserClient",
    readme: "packages/client/README.md",
    marker: "`new SvcBrowserClient(options)`",
    specs: BROWSER_CLIENT_SPECS,
    others: { publicKey: { env: [] }, baseUrl: { env: [], fallback: DEFAULT_BASE_URL } },
  },
];

const HEADER_VARIABLES = ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"];

describe.each(CASES)("the README option table of $name", ({ readme, marker, specs, others }) => {
  const table = optionTable(readme, marker);
  const row = (option: string) => table.rows.find((r) => r.option === option);

  it("lists exactly the options the constructor reads", () => {
    expect(table.rows.map((r) => r.option).sort()).toEqual([...Object.keys(specs), ...Object.keys(others)].sort());
  });

  it("names each option's environment variables in the order they apply, marking those in milliseconds", () => {
    for (const [name, spec] of Object.entries(specs)) {
      const sources = (spec.env ?? []).map((e) => (typeof e === "string" ? { name: e } : e)) as EnvSource[];
      const readFromEnv = spec.parseEnv === undefined ? [] : sources.map((s) => s.name);
      const documented = variables(row(name)?.env ?? "").filter((v) => !HEADER_VARIABLES.includes(v));
      expect(documented, name).toEqual(readFromEnv);
      for (const source of sources.filter((s) => s.scale === 0.001))
        expect(row(name)?.env, name).toContain(`\`${source.name}\` (ms)`);
    }
    for (const [name, other] of Object.entries(others))
      expect(variables(row(name)?.env ?? ""), name).toEqual(other.env);
  });

  it("gives each option's default as the code has it, and a unit for every number", () => {
    for (const [name, spec] of Object.entries(specs)) {
      const cell = row(name)?.defaultValue ?? "";
      const fallback = spec.fallback;
      if (typeof fallback === "number" || typeof fallback === "string" || typeof fallback === "boolean")
        expect(backticked(cell)[0], name).toBe(String(fallback));
      else if (fallback === undefined) expect(cell, name).toBe("–");
      if (typeof fallback === "number") expect(row(name)?.unit, name).not.toBe("");
    }
    for (const [name, other] of Object.entries(others))
      expect(backticked(row(name)?.defaultValue ?? "")[0], name).toBe(other.fallback);
  });

  it('names every option whose 0 means "not set" above the table', () => {
    for (const [name, spec] of Object.entries(specs))
      if (spec.zeroIsUnset) expect(table.intro, name).toContain(`\`${name}\``);
  });
});
