export type { DeliveryHealth, DropReason, MediaReferenceParts } from "@svc/core";
export {
  AccessDeniedError,
  BadRequestError,
  ConflictError,
  MethodNotAllowedError,
  NotFoundError,
  ServerError,
  SvcAPIError,
  SvcAPITimeoutError,
  TooManyRequestsError,
  UnauthorizedError,
} from "./api/errors.js";
// The classes of the namespaces of `svc.api`, and `SvcAPI`: every type of the REST API, under its name in the
// definition (`SvcAPI.ObservationV2`, `SvcAPI.Evaluator`).
export type {
  AnnotationQueuesApi,
  BlobStorageIntegrationsApi,
  CommentsApi,
  DatasetItemsApi,
  DatasetsApi,
  EvaluationRulesApi,
  EvaluatorsApi,
  ExperimentsApi,
  FeedbackApi,
  HealthApi,
  LlmConnectionsApi,
  MediaApi,
  MetricsApi,
  ModelsApi,
  ObservationsApi,
  OpentelemetryApi,
  OrganizationsApi,
  ProjectsApi,
  PromptsApi,
  PromptVersionApi,
  ScimApi,
  ScoreConfigsApi,
  ScoresApi,
  SvcAPI,
  TraceApi,
  UnstableApi,
  UnstableDashboardsApi,
  UnstableDashboardWidgetsApi,
  UnstableSkillsApi,
} from "./api/generated/index.js";

import { SvcApiClient } from "./api/generated/index.js";

export { SvcApiClient };
/**
 * The REST client's class under its name of 6.0, beside which the types' namespace `SvcAPI` differed only in case.
 * @deprecated Use {@link SvcApiClient}; `SvcApi` goes in the next major.
 */
export const SvcApi = SvcApiClient;
/**
 * The type of the REST client under its name of 6.0.
 * @deprecated Use {@link SvcApiClient}; `SvcApi` goes in the next major.
 */
export type SvcApi = SvcApiClient;
// Also by plain name: the REST types that the hand-written API takes or returns, and the score types of the interface.
export type {
  BasePrompt,
  ChatMessage,
  ChatPrompt,
  CreateChatPromptRequest,
  CreateDatasetItemRequest,
  CreateScoreBatchResponse,
  CreateScoreBatchResults,
  CreateScoreRequest,
  CreateScoreSource,
  CreateScoresResponse,
  CreateTextPromptRequest,
  Dataset,
  DatasetItem,
  GetScoresV3Request,
  GetScoresV3Response,
  MediaContentType,
  PlaceholderMessage,
  Prompt,
  ScoreBody,
  TextPrompt,
} from "./api/generated/types.js";
export type { ApiPromise, EmptyRequest, RequestOptions, WithRawResponse } from "./api/request-runtime.js";
export { SvcClient } from "./client.js";
export type { ScoreManagerConfig, ScoreParams, SvcClientConfig, SvcClientParams } from "./config.js";
export type {
  DatasetDecorator,
  DatasetGetOptions,
  DatasetWithItems,
  FetchedDataset,
} from "./dataset/dataset-manager.js";
export { DatasetManager } from "./dataset/dataset-manager.js";
export type { DoctorOptions } from "./doctor/doctor.js";
export type { DoctorCheck, DoctorReport, DoctorStatus } from "./doctor/report.js";
export { createEvaluatorFromAutoevals } from "./experiment/autoevals.js";
export { ExperimentManager } from "./experiment/experiment-manager.js";
export type {
  GateApi,
  GateBaseline,
  GateFlip,
  GateOptions,
  GateResult,
  GateScore,
} from "./experiment/gate/types.js";
export type {
  RegressionErrorMessageOptions,
  RegressionErrorMetricOptions,
  RegressionErrorOptions,
} from "./experiment/regression-error.js";
export { RegressionError } from "./experiment/regression-error.js";
export type { RunnerContextExperimentParams, RunnerContextOptions } from "./experiment/runner-context.js";
export { RunnerContext } from "./experiment/runner-context.js";
export type {
  DeleteExperimentDataParams,
  DeleteExperimentDataResult,
  Evaluation,
  EvaluationFailure,
  Evaluator,
  EvaluatorParams,
  ExperimentDataApi,
  ExperimentItem,
  ExperimentItemResult,
  ExperimentItemStatus,
  ExperimentManagerDeps,
  ExperimentMetadata,
  ExperimentParams,
  ExperimentProgress,
  ExperimentResult,
  ExperimentScoreBody,
  ExperimentTask,
  ExperimentTaskContext,
  ExperimentTaskParams,
  ExperimentTrialResult,
  FormatOptions,
  ProgressStream,
  RunEvaluator,
  RunEvaluatorParams,
  RunExperimentOnDataset,
  RunExperimentOnDatasetParams,
  ScoreSummary,
} from "./experiment/types.js";
export { DEFAULT_EXPERIMENT_MAX_CONCURRENCY } from "./experiment/types.js";
export type { MediaHealth, PromptHealth, RequestHealth, SvcClientHealth } from "./health.js";
export type { ParsedMediaReference, SvcMediaResolveMediaReferencesParams } from "./media/media-manager.js";
export { MediaManager } from "./media/media-manager.js";
export { SvcMediaReference, type SvcMediaReferenceParams } from "./media/media-reference.js";
export { SvcMedia, type SvcMediaParams } from "./media/svc-media.js";
export type {
  ChatMessageOrPlaceholder,
  ChatMessageWithType,
  CreateChatPromptBodyWithPlaceholders,
  CreateTextPromptBody,
  LangchainMessagesPlaceholder,
  PromptClient,
  PromptPlaceholders,
  PromptVariables,
} from "./prompt/prompt-clients.js";
export { ChatMessageType, ChatPromptClient, TextPromptClient } from "./prompt/prompt-clients.js";
export type { ChatPromptGetOptions, PromptGetOptions, TextPromptGetOptions } from "./prompt/prompt-manager.js";
export { PromptManager } from "./prompt/prompt-manager.js";
export { type ScoreForSpan, ScoreManager } from "./score/score-manager.js";
