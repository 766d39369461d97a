import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SvcOtelSpanAttributes } from "@svc/tracing";
import { Project } from "ts-morph";
import { describe, expect, it } from "vitest";
import {
  API_CHANGES,
  apiChangeOf,
  CLIENT_ALIASES,
  REQUEST_OPTIONS_PLACEHOLDER,
  V5_API_CLASSES,
} from "../../tools/codemod/src/tables/api.ts";
import { ATTRIBUTE_KEYS, ATTRIBUTE_PREFIXES } from "../../tools/codemod/src/tables/attributes.ts";
import { CORE_API_TYPES, CORE_EXPORTS } from "../../tools/codemod/src/tables/core-exports.ts";
import { ENV_NAMES } from "../../tools/codemod/src/tables/env.ts";
import { fateOf, type V5Package } from "../../tools/codemod/src/tables/exports.ts";
import { SECTIONS } from "../../tools/codemod/src/tables/sections.ts";
import { V6_EXPORTS } from "../../tools/codemod/src/tables/v6-exports.ts";
import { ROOT } from "../support/packages.ts";

// The codemod's tables against the real packages on both sides: the v5 declarations (devDependencies of
// tools/codemod) and the v6 API reports and sources of this repository. A v6 surface change that the tables do not
// follow fails here.

const V5_DIR = join(ROOT, "tools", "codemod", "node_modules", "@langfuse");
const project = new Project({ compilerOptions: { skipLibCheck: true } });
const v5File = (pkg: V5Package) => project.addSourceFileAtPath(join(V5_DIR, pkg, "dist", "index.d.ts"));

function v5Exports(pkg: V5Package): string[] {
  return [...v5File(pkg).getExportedDeclarations().keys()].sort();
}

/** The names each v6 entry point exports, from its API report, and the members of each exported class. */
function v6Surface(folder: string) {
  const report = readFileSync(join(ROOT, "packages", folder, "api-report", `${folder}.api.md`), "utf8");
  const names = new Set<string>();
  const members = new Map<string, string[]>();
  let current: string | undefined;
  for (const line of report.split("\n")) {
    const declaration =
      /^export (?:declare )?(?:abstract )?(?:class|function|const|type|interface|enum|namespace) (\w+)/.exec(line);
    if (declaration?.[1]) {
      names.add(declaration[1]);
      current = line.includes(" class ") ? declaration[1] : undefined;
      if (current) members.set(current, []);
    } else if (current && /^ {4}\w/.test(line)) {
      members.get(current)?.push(line.trim());
    } else if (line.startsWith("}")) {
      current = undefined;
    }
  }
  return { names, members };
}

const V6 = {
  "@svc/client": v6Surface("client"),
  "@svc/tracing": v6Surface("tracing"),
  "@svc/otel": v6Surface("otel"),
  "@svc/langchain": v6Surface("langchain"),
};

/** The members of the `SvcAPI` namespace of @svc/client (the REST API types), from the generated source. */
const SVC_API = new Set(
  [
    ...readFileSync(join(ROOT, "packages", "client", "src", "api", "generated", "types.ts"), "utf8")
      .split("export declare namespace SvcAPI {")[1]!
      .split("\n}\n")[0]!
      .matchAll(/^ {2}export (?:interface|type) (\w+)/gm),
  ].map((match) => match[1]),
);

/** The v6 method at an `api` path (`unstable.dashboards.get` -> the `get` member of `UnstableDashboardsApi`). */
function v6Method(path: string): string | undefined {
  const segments = path.split(".");
  const method = segments.pop() ?? "";
  const className = `${segments.map((s) => s[0]!.toUpperCase() + s.slice(1)).join("")}Api`;
  return V6["@svc/client"].members.get(className)?.find((member) => member.startsWith(`${method}(`));
}

describe("the codemod's export tables", () => {
  it.each(["client", "tracing", "otel", "langchain"] as const)(
    "give every export of @langfuse/%s a v6 export that exists, or mark it removed",
    (pkg) => {
      const removed: string[] = [];
      for (const name of v5Exports(pkg)) {
        const fate = fateOf(pkg, name);
        if (fate.kind === "removed") removed.push(name);
        else if (fate.kind === "export")
          expect(V6[fate.module].names.has(fate.name), `${pkg}: ${name} -> ${fate.name}`).toBe(true);
        else throw new Error(`${pkg}: ${name} maps to a REST type`);
      }
      const expected: Record<string, string[]> = {
        client: ["LinkDatasetItemFunction"],
        tracing: ["LangfuseTraceAttributes", "createTraceAttributes"],
      };
      expect(removed.sort()).toEqual((expected[pkg] ?? []).sort());
    },
  );

  it.each(Object.keys(V6) as (keyof typeof V6)[])("list exactly the names %s exports (its API report)", (module) => {
    expect([...V6_EXPORTS[module]].sort()).toEqual([...V6[module].names].sort());
  });

  it("give every export of @langfuse/core a v6 export or SvcAPI type that exists, or mark it removed", () => {
    const counts = { export: 0, "api-type": 0, removed: 0 };
    for (const name of v5Exports("core")) {
      const fate = fateOf("core", name);
      counts[fate.kind]++;
      if (fate.kind === "export") expect(V6[fate.module].names.has(fate.name), `${name} -> ${fate.name}`).toBe(true);
      if (fate.kind === "api-type") expect(SVC_API.has(fate.name), `${name} -> SvcAPI.${fate.name}`).toBe(true);
    }
    // The REST types of the removed routes (traces, sessions, v1 observations, ingestion, dataset runs) and internals.
    expect(counts).toEqual({ export: 40, "api-type": 170, removed: 135 });
    const exported = new Set(v5Exports("core"));
    for (const name of [...Object.keys(CORE_EXPORTS), ...Object.keys(CORE_API_TYPES)]) {
      expect(exported.has(name), `${name} is no export of @langfuse/core`).toBe(true);
    }
  });

  it("rename every environment variable to one the v6 packages read", () => {
    const sources = ["client", "core", "otel", "tracing"].flatMap((folder) => {
      const dir = join(ROOT, "packages", folder, "src");
      return readdirSync(dir, { recursive: true })
        .filter((file) => String(file).endsWith(".ts"))
        .map((file) => readFileSync(join(dir, String(file)), "utf8"));
    });
    for (const name of Object.values(ENV_NAMES)) {
      expect(
        sources.some((source) => new RegExp(`\\b${name}\\b`).test(source)),
        name,
      ).toBe(true);
    }
  });
});

describe("the codemod's span attribute keys", () => {
  const v5Keys = v5File("core")
    .getEnumOrThrow("LangfuseOtelSpanAttributes")
    .getMembers()
    .map((member) => String(member.getValue()));
  const v6Keys = new Set<string>(Object.values(SvcOtelSpanAttributes));

  it("rewrite every langfuse.* key of the v5 enum", () => {
    const prefixed = v5Keys.filter((key) => key.startsWith("langfuse."));
    expect(prefixed.length).toBeGreaterThan(30);
    for (const key of prefixed) expect(Object.hasOwn(ATTRIBUTE_KEYS, key), key).toBe(true);
  });

  it("to keys of v6's SvcOtelSpanAttributes, or the bare svc.metadata the server also reads", () => {
    for (const [v5, v6] of Object.entries(ATTRIBUTE_KEYS)) {
      expect(v6Keys.has(v6) || v6 === "svc.metadata", `${v5} -> ${v6}`).toBe(true);
    }
    for (const prefix of ATTRIBUTE_PREFIXES) {
      const v6 = `svc.${prefix.slice("langfuse.".length, -1)}`;
      expect(v6Keys.has(v6) || v6 === "svc.metadata", prefix).toBe(true);
    }
  });
});

describe("the codemod's REST tables", () => {
  /** Every v5 REST method, by path, with its parameters, read from the classes of the v5 declarations. */
  const v5Methods = new Map<string, string[]>();
  for (const declaration of v5File("core").getClasses()) {
    const namespace = V5_API_CLASSES[declaration.getName()?.replace(/\$\d+$/, "") ?? ""];
    for (const method of declaration.getMethods()) {
      const params = method.getParameters().map((p) => p.getName());
      if (!params.includes("requestOptions")) continue;
      if (namespace) v5Methods.set(`${namespace}.${method.getName()}`, params);
      else throw new Error(`class ${declaration.getName()} is missing from V5_API_CLASSES`);
    }
  }

  it("know all 115 v5 REST methods by their class", () => {
    expect(v5Methods.size).toBe(115);
  });

  it("list as placeholder methods exactly the v5 methods that take no request and still exist in v6", () => {
    const withoutRequest = [...v5Methods]
      .filter(([, params]) => !params.includes("request"))
      .filter(([path]) => apiChangeOf(path)?.kind !== "removed" && apiChangeOf(path)?.kind !== "rewrite")
      .map(([path, params]) => [path, params.length - 1]);
    expect(Object.fromEntries(withoutRequest)).toEqual(REQUEST_OPTIONS_PLACEHOLDER);
  });

  it("point every placeholder method at a v6 method that takes the empty request, 41 with the new one", () => {
    const v6Paths = Object.keys(REQUEST_OPTIONS_PLACEHOLDER).map((path) => {
      const change = apiChangeOf(path);
      return change?.kind === "move" ? change.to : path;
    });
    v6Paths.push("unstable.skills.deleteVersion");
    expect(new Set(v6Paths).size).toBe(41);
    for (const path of v6Paths)
      expect(v6Method(path), path).toContain("request?: EmptyRequest, options?: RequestOptions");
  });

  it("name only v5 methods, and move them to v6 methods that exist", () => {
    for (const [key, change] of Object.entries(API_CHANGES)) {
      const paths = key.endsWith(".*") ? [...v5Methods.keys()].filter((p) => p.startsWith(key.slice(0, -1))) : [key];
      expect(paths.length, key).toBeGreaterThan(0);
      for (const path of paths) {
        expect(v5Methods.has(path), path).toBe(true);
        const resolved = apiChangeOf(path);
        if (resolved?.kind === "move") expect(v6Method(resolved.to), `${path} -> ${resolved.to}`).toBeDefined();
      }
      if (change.kind === "rewrite") expect(v5Methods.has(key), key).toBe(true);
    }
  });

  it("replace every v5 client shortcut, and by a v6 method that exists", () => {
    const v5Client = v5File("client").getClassOrThrow("LangfuseClient");
    const shortcuts = v5Client
      .getProperties()
      .filter((p) => /typeof \w+\.prototype\./.test(p.getTypeNode()?.getText() ?? ""))
      .map((p) => p.getName());
    expect(shortcuts.sort()).toEqual(Object.keys(CLIENT_ALIASES).sort());
    const managers: Record<string, string> = {
      prompt: "PromptManager",
      dataset: "DatasetManager",
      media: "MediaManager",
    };
    for (const [name, target] of Object.entries(CLIENT_ALIASES)) {
      if ("manager" in target) {
        const [manager = "", method = ""] = target.manager.split(".");
        const members = V6["@svc/client"].members.get(managers[manager] ?? "") ?? [];
        expect(
          members.some((m) => m.startsWith(`${method}(`) || m.startsWith(`${method}<`)),
          name,
        ).toBe(true);
      } else {
        expect(v5Methods.has(target.api), name).toBe(true);
      }
    }
  });
});

describe("the v5 declarations the tests read", () => {
  it("are those of 5.10.1, the release the tables were made from", () => {
    for (const pkg of ["client", "core", "tracing", "otel", "langchain"]) {
      const manifest = JSON.parse(readFileSync(join(V5_DIR, pkg, "package.json"), "utf8")) as { version: string };
      expect(manifest.version, pkg).toBe("5.10.1");
    }
  });
});

describe("MIGRATION-v6.md", () => {
  const text = readFileSync(join(ROOT, "MIGRATION-v6.md"), "utf8");

  it("begins with the codemod command: its first section runs the codemod, and its first block is the command", () => {
    const firstBlock = text.split("```sh\n")[1]?.split("```")[0] ?? "";
    const firstSection = text.indexOf("\n## 1. Run the codemod\n");
    expect(firstSection).toBe(text.indexOf("\n## "));
    expect(text.indexOf("```sh")).toBeGreaterThan(firstSection);
    expect(text.indexOf("```sh")).toBeLessThan(text.indexOf("\n## ", firstSection + 1));
    expect(firstBlock).toContain("npx @svc/codemod@6 --dry-run .");
  });

  it("has a section for every anchor the codemod's comments point to", () => {
    // GitHub's anchors: lower case, punctuation dropped, spaces to dashes.
    const anchors = [...text.matchAll(/^## (.+)$/gm)].map(([, title]) =>
      (title ?? "")
        .toLowerCase()
        .replace(/[^\w\s-]/g, "")
        .trim()
        .replace(/\s/g, "-"),
    );
    for (const section of Object.values(SECTIONS)) expect(anchors, section).toContain(section);
  });
});
