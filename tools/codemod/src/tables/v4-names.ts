import type { Note } from "./export-fate.ts";
import { SECTIONS } from "./sections.ts";

// Names of the v4 packages that v5 had already removed: code still written for v4 meets them. Neither v5 nor v6
// exports them, so the codemod marks each with what replaces it.

const ATTRIBUTES = "propagateAttributes({ traceName, userId, sessionId, version, tags, metadata }, fn)";

/** v4 exports without a v5 or v6 export, by name, with what to do instead. */
export const V4_NAMES: Readonly<Record<string, Note>> = {
  updateActiveTrace: {
    message:
      `updateActiveTrace() (v4) was removed: wrap the work in ${ATTRIBUTES}; input and output are those of the root ` +
      "observation (updateActiveObservation() in the root); public: setActiveTraceAsPublic(); release: the span " +
      "processor's release option",
    section: SECTIONS.v4,
  },
};

/** v4 methods of observations that v5 removed, by name, with what to do instead. */
export const V4_METHODS: Readonly<Record<string, Note>> = {
  updateTrace: {
    message:
      `updateTrace() (v4) was removed: wrap the work in ${ATTRIBUTES}; input and output are those of the root ` +
      "observation (rootSpan.update()); public: span.setTraceAsPublic(); release: the span processor's release option",
    section: SECTIONS.v4,
  },
};
