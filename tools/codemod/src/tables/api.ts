import type { Note } from "./exports.ts";
import { own } from "./own.ts";
import { SECTIONS } from "./sections.ts";

/**
 * The classes of the v5 generated REST client (declared in @langfuse/core), by their path under `api`. The codemod
 * recognizes a call by the class that declares the method when the v5 types are installed.
 */
export const V5_API_CLASSES: Record<string, string> = {
  AnnotationQueues: "annotationQueues",
  BlobStorageIntegrations: "blobStorageIntegrations",
  Comments: "comments",
  DatasetItems: "datasetItems",
  DatasetRunItems: "datasetRunItems",
  Datasets: "datasets",
  Experiments: "experiments",
  Feedback: "feedback",
  Health: "health",
  Ingestion: "ingestion",
  LlmConnections: "llmConnections",
  Media: "media",
  Metrics: "metrics",
  MetricsV1: "legacy.metricsV1",
  Models: "models",
  Observations: "observations",
  ObservationsV1: "legacy.observationsV1",
  Opentelemetry: "opentelemetry",
  Organizations: "organizations",
  Projects: "projects",
  PromptVersion: "promptVersion",
  Prompts: "prompts",
  Scim: "scim",
  ScoreConfigs: "scoreConfigs",
  ScoreV1: "legacy.scoreV1",
  Scores: "scores",
  ScoresV3: "scoresV3",
  Sessions: "sessions",
  Trace: "trace",
  DashboardWidgets: "unstable.dashboardWidgets",
  Dashboards: "unstable.dashboards",
  EvaluationRules: "unstable.evaluationRules",
  Evaluators: "unstable.evaluators",
};

/**
 * The v5 methods that take no request object and now take `{}` before the request options (the 41 of v6 less the
 * new `unstable.skills.deleteVersion`), by v5 path, with the number of path arguments before the options.
 */
export const REQUEST_OPTIONS_PLACEHOLDER: Record<string, number> = {
  "annotationQueues.deleteQueueItem": 2,
  "annotationQueues.getQueue": 1,
  "annotationQueues.getQueueItem": 2,
  "blobStorageIntegrations.deleteBlobStorageIntegration": 1,
  "blobStorageIntegrations.getBlobStorageIntegrationStatus": 1,
  "blobStorageIntegrations.getBlobStorageIntegrations": 0,
  "comments.getById": 1,
  "datasetItems.delete": 1,
  "datasetItems.get": 1,
  "datasets.get": 1,
  "health.health": 0,
  "legacy.scoreV1.delete": 1,
  "llmConnections.delete": 1,
  "media.get": 1,
  "models.delete": 1,
  "models.get": 1,
  "organizations.getOrganizationApiKeys": 0,
  "organizations.getOrganizationMemberships": 0,
  "organizations.getOrganizationProjects": 0,
  "organizations.getProjectMemberships": 1,
  "projects.delete": 1,
  "projects.deleteApiKey": 2,
  "projects.get": 0,
  "projects.getApiKeys": 1,
  "scim.deleteUser": 1,
  "scim.getResourceTypes": 0,
  "scim.getSchemas": 0,
  "scim.getServiceProviderConfig": 0,
  "scim.getUser": 1,
  "scoreConfigs.getById": 1,
  "trace.delete": 1,
  "unstable.dashboardWidgets.delete": 1,
  "unstable.dashboardWidgets.get": 1,
  "unstable.dashboards.delete": 1,
  "unstable.dashboards.deletePlacement": 2,
  "unstable.dashboards.get": 1,
  "unstable.evaluationRules.delete": 1,
  "unstable.evaluationRules.get": 1,
  "unstable.evaluators.delete": 1,
  "unstable.evaluators.get": 1,
};

/** How the codemod rewrites a call of a v5 REST method that v6 moved, changed or removed. */
export type ApiChange =
  /** Same arguments, another path (`scoresV3.getManyV3` -> `scores.getMany`); `review` when the result differs. */
  | { kind: "move"; to: string; review?: Note }
  /** A rewrite of the arguments too, done by the named handler of the api-calls rule. */
  | { kind: "rewrite"; handler: ApiRewrite }
  /** No v6 form: the call is left as it is and marked. */
  | { kind: "removed"; note: Note };

/** The rewrites that change arguments, not only the path. */
export type ApiRewrite =
  | "readTrace"
  | "listTraces"
  | "readSession"
  | "readObservation"
  | "createScore"
  | "readScoresV2"
  | "readScore";

const DATASET_RUNS: Note = {
  message: "dataset runs are experiments in v6: read them with api.experiments.list() and api.experiments.listItems()",
  section: SECTIONS.datasetRuns,
};

/** Changed v5 REST methods, by v5 path (`legacy.scoreV1.create`), and for whole namespaces by `<path>.*`. */
export const API_CHANGES: Record<string, ApiChange> = {
  "trace.get": { kind: "rewrite", handler: "readTrace" },
  "trace.list": { kind: "rewrite", handler: "listTraces" },
  "sessions.get": { kind: "rewrite", handler: "readSession" },
  "sessions.list": {
    kind: "removed",
    note: {
      message:
        "api.sessions.list() was removed; read a session's observations with api.observations.getMany({ sessionId })",
      section: SECTIONS.reading,
    },
  },
  "legacy.observationsV1.get": { kind: "rewrite", handler: "readObservation" },
  "legacy.observationsV1.getMany": {
    kind: "move",
    to: "observations.getMany",
    review: {
      message: "reads observations v2: cursor paging instead of page, field groups (fields), other items",
      section: SECTIONS.reading,
    },
  },
  "legacy.metricsV1.metrics": {
    kind: "move",
    to: "metrics.metrics",
    review: { message: "reads metrics v2, whose query names other views and fields", section: SECTIONS.restMethods },
  },
  "legacy.scoreV1.create": { kind: "rewrite", handler: "createScore" },
  "legacy.scoreV1.delete": { kind: "move", to: "scores.delete" },
  "scores.create": { kind: "rewrite", handler: "createScore" },
  "scores.getMany": { kind: "rewrite", handler: "readScoresV2" },
  "scores.getById": { kind: "rewrite", handler: "readScore" },
  "scoresV3.getManyV3": { kind: "move", to: "scores.getMany" },
  "datasetRunItems.create": {
    kind: "removed",
    note: {
      message: "dataset run items are no longer created: dataset.runExperiment() records the run",
      section: SECTIONS.datasetRuns,
    },
  },
  "datasetRunItems.list": { kind: "removed", note: DATASET_RUNS },
  "datasets.getRun": { kind: "removed", note: DATASET_RUNS },
  "datasets.getRuns": { kind: "removed", note: DATASET_RUNS },
  "datasets.deleteRun": {
    kind: "removed",
    note: {
      message:
        "datasets.deleteRun() was removed: list the experiment's items, then api.trace.deleteMultiple({ traceIds })",
      section: SECTIONS.datasetRuns,
    },
  },
  "ingestion.batch": {
    kind: "removed",
    note: {
      message: "api.ingestion.batch() was removed: trace with OpenTelemetry, send scores with api.scores.create([...])",
      section: SECTIONS.restMethods,
    },
  },
  "unstable.evaluationRules.*": { kind: "move", to: "evaluationRules.*" },
  "unstable.evaluators.*": { kind: "move", to: "evaluators.*" },
};

/** The change of the v5 REST method at `path`, if it changed. */
export function apiChangeOf(path: string): ApiChange | undefined {
  const exact = own(API_CHANGES, path);
  if (exact) return exact;
  const namespace = path.slice(0, path.lastIndexOf("."));
  const whole = own(API_CHANGES, `${namespace}.*`);
  if (whole?.kind !== "move") return whole;
  return { ...whole, to: whole.to.replace("*", path.slice(namespace.length + 1)) };
}

/** The top-level shortcuts of the v5 `LangfuseClient`: a manager method (`prompt.get`) or a REST method (`api` path). */
export const CLIENT_ALIASES: Record<string, { manager: string } | { api: string }> = {
  getPrompt: { manager: "prompt.get" },
  createPrompt: { manager: "prompt.create" },
  updatePrompt: { manager: "prompt.update" },
  getDataset: { manager: "dataset.get" },
  createDatasetItem: { manager: "dataset.createItem" },
  resolveMediaReferences: { manager: "media.resolveReferences" },
  createDataset: { api: "datasets.create" },
  getDatasetItem: { api: "datasetItems.get" },
  fetchMedia: { api: "media.get" },
  fetchTrace: { api: "trace.get" },
  fetchTraces: { api: "trace.list" },
  fetchObservation: { api: "legacy.observationsV1.get" },
  fetchObservations: { api: "observations.getMany" },
  fetchSessions: { api: "sessions.get" },
  getDatasetRun: { api: "datasets.getRun" },
  getDatasetRuns: { api: "datasets.getRuns" },
};
