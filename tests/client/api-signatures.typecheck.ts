// Compile-time checks of the generated method signatures, run by `pnpm typecheck` (not a vitest file).
// Every `@ts-expect-error` line must fail to compile, or tsc reports the directive as unused.
import type {
  ChatMessageType,
  CreateScoresResponse,
  Evaluator,
  ExperimentItem,
  RequestOptions,
  SvcAPI,
  SvcClient,
} from "@svc/client";
import type { ObservationLevel } from "@svc/tracing";

declare const svc: SvcClient;
declare const options: RequestOptions;

export async function emptyRequestBeforeOptions(): Promise<void> {
  await svc.api.projects.get();
  await svc.api.projects.get({}, { timeoutInSeconds: 5, maxRetries: 1 });
  await svc.api.datasets.get("ds", {}, options);
  await svc.api.unstable.skills.deleteVersion("skill", "3", {}, { abortSignal: AbortSignal.abort() });

  // @ts-expect-error request options in the old position
  await svc.api.projects.get({ timeoutInSeconds: 5 });
  // @ts-expect-error request options in the old position
  await svc.api.projects.get(options);
  // @ts-expect-error request options in the old position
  await svc.api.datasets.get("ds", { maxRetries: 1 });
  // @ts-expect-error request options in the old position
  await svc.api.annotationQueues.getQueueItem("q", "i", options);
  // @ts-expect-error request options in the old position
  await svc.api.unstable.dashboards.deletePlacement("d", "p", { headers: {} });
}

export async function otherMethodsKeepTheirSignature(): Promise<void> {
  await svc.api.prompts.get("greeting", { label: "production" }, { timeoutInSeconds: 5 });
  await svc.api.observations.getMany({ traceId: "t", fields: "core,io" }, options);
  await svc.api.trace.deleteMultiple({ traceIds: ["t-1"] }, options);
  await svc.api.experiments.listItems({ fromStartTime: new Date(), datasetId: "d", cursor: "c" });
}

export async function scoresV6(): Promise<void> {
  const response: CreateScoresResponse = await svc.api.scores.create([{ name: "accuracy", value: 1, traceId: "t" }]);
  // @ts-expect-error the batch response carries no score id
  void response.id;
  // @ts-expect-error create takes an array of scores
  await svc.api.scores.create({ name: "accuracy", value: 1 });
  await svc.api.scores.getMany({ traceId: "t", fields: "details", id: "s" });
}

export function removedSurface(): void {
  // @ts-expect-error removed in v6
  void svc.api.legacy;
  // @ts-expect-error removed in v6
  void svc.api.scoresV3;
  // @ts-expect-error removed in v6
  void svc.api.sessions;
  // @ts-expect-error removed in v6
  void svc.api.datasetRunItems;
  // @ts-expect-error removed in v6
  void svc.api.ingestion;
  // @ts-expect-error removed in v6
  void svc.api.trace.get;
  // @ts-expect-error removed in v6
  void svc.api.trace.list;
  // @ts-expect-error removed in v6
  void svc.api.datasets.getRuns;
  // @ts-expect-error removed in v6
  void svc.api.scores.getById;
}

export function apiTypesKeepTheirNamesInTheNamespace(
  page: SvcAPI.ExperimentItemsResponse,
  evaluator: SvcAPI.Evaluator,
): void {
  // A generated type whose name a hand-written export also uses is reached through `SvcAPI`, under its own name.
  const item: SvcAPI.ExperimentItem | undefined = page.data[0];
  const traceId: string | undefined = item?.traceId;
  const kind: "llm_as_judge" | "code" = evaluator.type;
  // @ts-expect-error the runner's Evaluator is a function, not the API's evaluator
  const runnerEvaluator: Evaluator = evaluator;
  // @ts-expect-error the runner's ExperimentItem is not the API's experiment item (it has no traceId)
  const runnerItemTraceId: ExperimentItem["traceId"] = traceId;
  const tag: SvcAPI.ChatMessageType = "chatmessage";
  // @ts-expect-error the prompt enum ChatMessageType is not the API's string tag
  const promptKind: ChatMessageType = tag;
  void [kind, runnerEvaluator, runnerItemTraceId, promptKind];
}

// Checks that A and B are the same type: each is assignable to the other, and neither is `any`.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? (0 extends 1 & A ? false : true) : false) : false;

export function observationLevelIsDefinedOnce(level: SvcAPI.ObservationLevel): ObservationLevel {
  // The REST API's ObservationLevel and the one of @svc/tracing are interchangeable (the generated one is an alias).
  const same: Same<SvcAPI.ObservationLevel, ObservationLevel> = true;
  const observation: SvcAPI.ObservationV2["level"] = level;
  void [same, observation];
  return level;
}

// The example of the REST types in the client README, as written there.
export async function readmeRestTypes(): Promise<void> {
  const page: SvcAPI.ObservationsV2Response = await svc.api.observations.getMany({ traceId: "trace-1" });
  const failed: SvcAPI.ObservationV2[] = page.data.filter((o) => o.level === "ERROR");
  void failed;
}
