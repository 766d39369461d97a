import { CORE_API_TYPES, CORE_EXPORTS } from "./core-exports.ts";
import type { ExportFate, Note, V5Package, V6Module } from "./export-fate.ts";
import { own } from "./own.ts";
import { SECTIONS } from "./sections.ts";
import { V4_NAMES } from "./v4-names.ts";
import { V6_EXPORTS } from "./v6-exports.ts";

export type { ExportFate, Note, V5Package, V6Module } from "./export-fate.ts";

/** The v6 package that takes the place of each v5 package; `@langfuse/core` has none (its names moved one by one). */
export const PACKAGE_MAP: Record<Exclude<V5Package, "core">, V6Module> = {
  client: "@svc/client",
  tracing: "@svc/tracing",
  otel: "@svc/otel",
  langchain: "@svc/langchain",
};

const V5_PACKAGES = new Set<string>(["client", "tracing", "otel", "langchain", "core"]);

/** The v5 package a module specifier names (`@langfuse/client` -> `client`), `other` for the remaining `@langfuse/*`. */
export function v5PackageOf(specifier: string): V5Package | "other" | undefined {
  const match = /^@langfuse\/([^/]+)$/.exec(specifier);
  if (!match) return specifier.startsWith("@langfuse/") ? "other" : undefined;
  const name = match[1] ?? "";
  return V5_PACKAGES.has(name) ? (name as V5Package) : "other";
}

/** What to say about a @langfuse package that has no v6 version of its own. */
export function otherPackageNote(specifier: string): Note {
  if (specifier === "@langfuse/openai") return OPENAI_NOTE;
  const replacement =
    specifier === "@langfuse/browser" ? ": its score client is SvcBrowserClient of @svc/client/browser" : "";
  return { message: `${specifier} has no v6 package${replacement}`, section: SECTIONS.packages };
}

/** `observeOpenAI()` of @langfuse/openai: v6 has no wrapper package; the guide says what takes its place. */
export const OPENAI_NOTE: Note = {
  message: "@langfuse/openai (observeOpenAI) has no v6 package: trace the model calls as the guide shows",
  section: SECTIONS.packages,
  link: "docs/model-calls.md#coming-from-observeopenai",
};

const TRACE_IO: Note = {
  message: "trace input and output are now those of the root observation",
  section: SECTIONS.traceIO,
};

/** Exports of the four public v5 packages whose v6 name differs, or that v6 no longer has. */
const CHANGED: Record<Exclude<V5Package, "core">, Record<string, ExportFate>> = {
  client: {
    LangfuseClient: { kind: "export", module: "@svc/client", name: "SvcClient" },
    LangfuseClientParams: { kind: "export", module: "@svc/client", name: "SvcClientParams" },
    LangfuseMedia: { kind: "export", module: "@svc/client", name: "SvcMedia" },
    LangfuseMediaParams: { kind: "export", module: "@svc/client", name: "SvcMediaParams" },
    LangfuseMediaReference: { kind: "export", module: "@svc/client", name: "SvcMediaReference" },
    LangfuseMediaReferenceParams: { kind: "export", module: "@svc/client", name: "SvcMediaReferenceParams" },
    LangfuseMediaResolveMediaReferencesParams: {
      kind: "export",
      module: "@svc/client",
      name: "SvcMediaResolveMediaReferencesParams",
    },
    LinkDatasetItemFunction: {
      kind: "removed",
      note: {
        message: "LinkDatasetItemFunction is gone with item.link(); run the items with dataset.runExperiment()",
        section: SECTIONS.datasetRuns,
      },
    },
  },
  tracing: {
    setLangfuseTracerProvider: { kind: "export", module: "@svc/tracing", name: "setSvcTracerProvider" },
    getLangfuseTracerProvider: { kind: "export", module: "@svc/tracing", name: "getSvcTracerProvider" },
    getLangfuseTracer: { kind: "export", module: "@svc/tracing", name: "getSvcTracer" },
    // v6 names the options of startActiveObservation (endOnExit included) StartActiveObservationOpts only.
    StartActiveObservationContext: { kind: "export", module: "@svc/tracing", name: "StartActiveObservationOpts" },
    setActiveTraceIO: { kind: "export", module: "@svc/tracing", name: "updateActiveObservation", review: TRACE_IO },
    createTraceAttributes: {
      kind: "removed",
      note: {
        message: "createTraceAttributes() was removed; set input and output on the root observation",
        section: SECTIONS.traceIO,
      },
    },
    LangfuseTraceAttributes: {
      kind: "removed",
      note: {
        message: "LangfuseTraceAttributes was removed; input and output are observation attributes (SvcSpanAttributes)",
        section: SECTIONS.traceIO,
      },
    },
  },
  otel: {
    isLangfuseSpan: { kind: "export", module: "@svc/otel", name: "isSvcSpan" },
  },
  langchain: {},
};

/** What becomes of the export `name` of the v5 package `pkg`. */
export function fateOf(pkg: V5Package, name: string): ExportFate {
  if (pkg === "core") return coreFate(name);
  const changed = own(CHANGED[pkg], name);
  if (changed) return changed;
  const v4 = own(V4_NAMES, name);
  if (v4) return { kind: "removed", note: v4 };
  // Every other export keeps its place; the product name in it becomes Svc (LangfuseSpan -> SvcSpan).
  const module = PACKAGE_MAP[pkg];
  const renamed = name.replace(/Langfuse/g, "Svc");
  if (V6_EXPORTS[module].has(renamed)) return { kind: "export", module, name: renamed };
  return {
    kind: "removed",
    note: {
      message: `${module} exports no ${renamed}: find what replaced ${name} in the migration guide`,
      section: SECTIONS.packages,
    },
  };
}

function coreFate(name: string): ExportFate {
  const moved = own(CORE_EXPORTS, name);
  if (moved) return moved;
  const apiType = own(CORE_API_TYPES, name);
  if (apiType !== undefined) return { kind: "api-type", name: apiType === "" ? name : apiType };
  return {
    kind: "removed",
    note: {
      message: `${name} of @langfuse/core has no v6 export (@langfuse/core was the SDK's internal package)`,
      section: SECTIONS.packages,
    },
  };
}
