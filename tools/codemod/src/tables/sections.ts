/** The sections of MIGRATION-v6.md (at the root of the SDK repository) that the codemod's comments point to. */
export const SECTIONS = {
  packages: "package-names-and-exports",
  env: "environment-variables",
  aliases: "removed-client-shortcuts",
  reading: "reading-traces-sessions-and-observations",
  requestOptions: "request-options-placeholder",
  restMethods: "moved-and-removed-rest-methods",
  scores: "scores",
  datasetRuns: "dataset-runs",
  traceIO: "trace-input-and-output",
  v4: "coming-from-v4",
  mocks: "tests-that-mock-the-packages",
  attributes: "span-attributes-written-by-hand",
} as const;

/** One section of MIGRATION-v6.md. */
export type Section = (typeof SECTIONS)[keyof typeof SECTIONS];

/** Where a comment or a summary line sends the reader: `MIGRATION-v6.md#<section>`. */
export function migrationLink(section: Section): string {
  return `MIGRATION-v6.md#${section}`;
}
