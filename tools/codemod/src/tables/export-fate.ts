import type { Section } from "./sections.ts";

/** The v5 packages the codemod rewrites, by the last part of their name (`@langfuse/<name>`). */
export type V5Package = "client" | "tracing" | "otel" | "langchain" | "core";

/** The v6 packages that code imports after the rewrite. */
export type V6Module = "@svc/client" | "@svc/tracing" | "@svc/otel" | "@svc/langchain";

/** A message for the reader and the section of MIGRATION-v6.md that explains it. */
export interface Note {
  message: string;
  section: Section;
  /** Where the reader is sent instead of the section, for guides outside MIGRATION-v6.md. */
  link?: string;
}

/** What becomes of one export of a v5 package. */
export type ExportFate =
  /**
   * A named export of a v6 package; `typeOnly` when v6 exports it as a type only (v5 had a value too), `review` when
   * the replacement behaves differently.
   */
  | { kind: "export"; module: V6Module; name: string; typeOnly?: boolean; review?: Note }
  /** A type of the REST API, in v6 a member of the `SvcAPI` namespace of `@svc/client` (types only). */
  | { kind: "api-type"; name: string; review?: Note }
  /** Gone in v6: the code is left as it is and marked. */
  | { kind: "removed"; note: Note };
