import type { Note } from "./export-fate.ts";
import { SECTIONS } from "./sections.ts";

// The span attribute keys of the previous major, under its product prefix, and the key v6 and the server read for
// each. tests/codemod/tables.test.ts checks them against the v5 key enum (LangfuseOtelSpanAttributes) and v6's
// (SvcOtelSpanAttributes).

/** The keys the v5 SDK wrote (its LangfuseOtelSpanAttributes), without the `langfuse.` prefix. */
const V5_KEYS = [
  "trace.name",
  "trace.tags",
  "trace.public",
  "trace.metadata",
  "trace.input",
  "trace.output",
  "observation.type",
  "observation.input",
  "observation.output",
  "observation.metadata",
  "observation.level",
  "observation.status_message",
  "observation.model.name",
  "observation.model.parameters",
  "observation.usage_details",
  "observation.cost_details",
  "observation.completion_start_time",
  "observation.prompt.name",
  "observation.prompt.version",
  "environment",
  "release",
  "version",
  "internal.as_root",
  "internal.is_app_root",
  "experiment.id",
  "experiment.name",
  "experiment.description",
  "experiment.metadata",
  "experiment.dataset.id",
  "experiment.item.id",
  "experiment.item.metadata",
  "experiment.item.root_observation_id",
  "experiment.item.expected_output",
];

/** v5 keys whose v6 key is not the same key under `svc.`: v6 writes the unprefixed OpenTelemetry names. */
const MOVED: Readonly<Record<string, string>> = {
  "langfuse.user.id": "user.id",
  "langfuse.session.id": "session.id",
  // Older forms the server still reads; v6 writes (and the server prefers) the trace and observation keys.
  "langfuse.tags": "svc.trace.tags",
  "langfuse.public": "svc.trace.public",
  "langfuse.metadata": "svc.metadata",
  "langfuse.prompt.name": "svc.observation.prompt.name",
  "langfuse.prompt.version": "svc.observation.prompt.version",
};

/** v5 attribute key -> v6 key. */
export const ATTRIBUTE_KEYS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(V5_KEYS.map((key) => [`langfuse.${key}`, `svc.${key}`])),
  ...MOVED,
};

/** Prefixes of per-key attributes (`langfuse.trace.metadata.<key>`): the rest of the key stays. */
export const ATTRIBUTE_PREFIXES: readonly string[] = [
  "langfuse.trace.metadata.",
  "langfuse.observation.metadata.",
  "langfuse.experiment.metadata.",
  "langfuse.experiment.item.metadata.",
  "langfuse.metadata.",
];

/** Keys v6 no longer writes: rewritten (the server still reads them) and marked. */
export const NOT_WRITTEN_BY_V6: Readonly<Record<string, Note>> = {
  "langfuse.trace.input": {
    message:
      "v6 does not write svc.trace.input: a trace's input is its root observation's (svc.observation.input on the root span)",
    section: SECTIONS.attributes,
  },
  "langfuse.trace.output": {
    message:
      "v6 does not write svc.trace.output: a trace's output is its root observation's (svc.observation.output on the root span)",
    section: SECTIONS.attributes,
  },
};

/** Run metadata keys the LangChain handler reads (`{ metadata: { langfuseUserId } }`), with their v6 names. */
export const LANGCHAIN_METADATA_KEYS: Readonly<Record<string, string>> = {
  langfuseUserId: "svcUserId",
  langfuseSessionId: "svcSessionId",
  langfusePrompt: "svcPrompt",
};

/** Key families under which a `langfuse.` string that is in no table is an attribute key nobody reads any more. */
export const ATTRIBUTE_FAMILIES = /^langfuse\.(trace|observation|experiment|internal)\.[a-z_.]+$/;
