// Compile-time checks of the SvcClient surface, run by `pnpm typecheck` (not a vitest file).
// Every `@ts-expect-error` line must fail to compile, or tsc reports the directive as unused.
import {
  type ChatPromptClient,
  DatasetManager,
  type FetchedDataset,
  ScoreManager,
  SvcApi,
  SvcApiClient,
  type SvcClient,
  type TextPromptClient,
} from "@svc/client";

// @ts-expect-error the request runtime is internal to the client
export type RequestRuntimeIsInternal = import("@svc/client").RequestRuntime;
// @ts-expect-error the media uploader is internal to the client
export type MediaUploaderIsInternal = import("@svc/client").MediaUploader;

declare const svc: SvcClient;

export async function managersAreTyped(): Promise<void> {
  const chat: ChatPromptClient = await svc.prompt.get("p", { type: "chat" });
  const text: TextPromptClient = await svc.prompt.get("p", { type: "text", fallback: "Hi" });
  chat.compile({ a: 1 }, { history: [] });
  text.compile({ a: 1 });
  const dataset: FetchedDataset = await svc.dataset.get("d");
  dataset.items.map((item) => item.input);
  svc.score.create({ name: "n", value: 1 });
  // @ts-expect-error dataset items have no link() in v6
  dataset.items[0]?.link;
  // @ts-expect-error a score value is a number or a string
  svc.score.create({ name: "n", value: true });
}

export function removedAliasesDoNotCompile(): void {
  // @ts-expect-error removed: use svc.prompt.get
  svc.getPrompt;
  // @ts-expect-error removed: use svc.prompt.create
  svc.createPrompt;
  // @ts-expect-error removed: use svc.prompt.update
  svc.updatePrompt;
  // @ts-expect-error removed: use svc.dataset.get
  svc.getDataset;
  // @ts-expect-error removed: use svc.dataset.createItem
  svc.createDatasetItem;
  // @ts-expect-error removed: use svc.media.resolveReferences
  svc.resolveMediaReferences;
  // @ts-expect-error removed: use svc.api.datasets.create
  svc.createDataset;
  // @ts-expect-error removed: use svc.api.datasetItems.get
  svc.getDatasetItem;
  // @ts-expect-error removed: use svc.api.media.get
  svc.fetchMedia;
  // @ts-expect-error removed: use svc.api.observations.getMany
  svc.fetchTrace;
  // @ts-expect-error removed: use svc.api.observations.getMany
  svc.fetchTraces;
  // @ts-expect-error removed: use svc.api.observations.getMany
  svc.fetchObservation;
  // @ts-expect-error removed: use svc.api.observations.getMany
  svc.fetchObservations;
  // @ts-expect-error removed: use svc.api.observations.getMany
  svc.fetchSessions;
  // @ts-expect-error removed: use svc.api.experiments.list and listItems
  svc.getDatasetRun;
  // @ts-expect-error removed: use svc.api.experiments.list
  svc.getDatasetRuns;
}

// The 6.0 name of the REST client's class is the class.
export function oldNameIsTheClass(svc: SvcClient): SvcApi {
  const api: SvcApiClient = svc.api;
  return api instanceof SvcApi ? api : svc.api;
}

// What SvcClient makes stays out of users' hands: no public constructor takes the request runtime or the uploader.
export function internalsAreNotConstructed(api: SvcApiClient): void {
  // @ts-expect-error svc.api is made by SvcClient only
  new SvcApiClient(api);
  // @ts-expect-error the 6.0 name of the class, kept as a deprecated alias, constructs nothing either
  new SvcApi(api);
  // @ts-expect-error svc.score is made by SvcClient only
  new ScoreManager({});
  // @ts-expect-error svc.dataset is made by SvcClient only
  new DatasetManager(api, {});
}
