/**
 * OpenTelemetry span attribute keys that the svc server reads.
 * Values are the wire names; never change one without a server that reads the new name.
 */
export const SvcOtelSpanAttributes = {
  // Trace level
  TRACE_NAME: "svc.trace.name",
  TRACE_USER_ID: "user.id",
  TRACE_SESSION_ID: "session.id",
  TRACE_TAGS: "svc.trace.tags",
  TRACE_PUBLIC: "svc.trace.public",
  TRACE_METADATA: "svc.trace.metadata",
  TRACE_INPUT: "svc.trace.input",
  TRACE_OUTPUT: "svc.trace.output",

  // Observation level
  OBSERVATION_TYPE: "svc.observation.type",
  OBSERVATION_INPUT: "svc.observation.input",
  OBSERVATION_OUTPUT: "svc.observation.output",
  OBSERVATION_METADATA: "svc.observation.metadata",
  OBSERVATION_LEVEL: "svc.observation.level",
  OBSERVATION_STATUS_MESSAGE: "svc.observation.status_message",
  OBSERVATION_MODEL: "svc.observation.model.name",
  OBSERVATION_MODEL_PARAMETERS: "svc.observation.model.parameters",
  OBSERVATION_USAGE_DETAILS: "svc.observation.usage_details",
  OBSERVATION_COST_DETAILS: "svc.observation.cost_details",
  OBSERVATION_COMPLETION_START_TIME: "svc.observation.completion_start_time",
  OBSERVATION_PROMPT_NAME: "svc.observation.prompt.name",
  OBSERVATION_PROMPT_VERSION: "svc.observation.prompt.version",

  // General
  ENVIRONMENT: "svc.environment",
  RELEASE: "svc.release",
  VERSION: "svc.version",

  // Internal
  AS_ROOT: "svc.internal.as_root",
  IS_APP_ROOT: "svc.internal.is_app_root",

  // Experiments
  EXPERIMENT_ID: "svc.experiment.id",
  EXPERIMENT_NAME: "svc.experiment.name",
  EXPERIMENT_DESCRIPTION: "svc.experiment.description",
  EXPERIMENT_METADATA: "svc.experiment.metadata",
  EXPERIMENT_DATASET_ID: "svc.experiment.dataset.id",
  EXPERIMENT_ITEM_ID: "svc.experiment.item.id",
  EXPERIMENT_ITEM_VERSION: "svc.experiment.item.version",
  EXPERIMENT_ITEM_METADATA: "svc.experiment.item.metadata",
  EXPERIMENT_ITEM_ROOT_OBSERVATION_ID: "svc.experiment.item.root_observation_id",
  EXPERIMENT_ITEM_EXPECTED_OUTPUT: "svc.experiment.item.expected_output",
} as const;

/** One of the attribute keys in {@link SvcOtelSpanAttributes}. */
export type SvcOtelSpanAttribute = (typeof SvcOtelSpanAttributes)[keyof typeof SvcOtelSpanAttributes];

/** Name and instrumentation scope of the tracer the SDK creates its spans with. */
export const SVC_TRACER_NAME = "svc-sdk";
