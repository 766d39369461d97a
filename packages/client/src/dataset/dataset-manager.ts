import { getGlobalLogger, isObject, isPlainObject, type MediaUploader, mapLimit } from "@svc/core";
import type { SvcApiClient } from "../api/generated/client.js";
import type { CreateDatasetItemRequest, Dataset, DatasetItem } from "../api/generated/types.js";
import type { RequestOptions } from "../api/request-runtime.js";
import type { RunExperimentOnDataset } from "../experiment/types.js";
import { SvcMediaReference } from "../media/media-reference.js";
import { SVC_MEDIA, type SvcMedia } from "../media/svc-media.js";

/** Default number of items fetched per page by {@link DatasetManager.get}. */
const DEFAULT_DATASET_ITEMS_PAGE_SIZE = 50;
/** Most item pages one `get` reads, whatever the server reports. */
const MAX_DATASET_ITEM_PAGES = 10_000;
/** Nesting depth up to which `createItem` looks for media. */
const DATASET_MEDIA_MAX_DEPTH = 20;
const MEDIA_FIELDS = ["input", "expectedOutput", "metadata"] as const;

/** A dataset with all its items; items are plain data. */
export type DatasetWithItems = Dataset & {
  /**
   * Every item, all pages, in the server's order (newest first), with the media it lists as {@link SvcMediaReference}
   * objects in `input`, `expectedOutput` and `metadata`.
   */
  items: DatasetItem[];
  /** The version the items were read at, when `get` was given one. */
  version?: string;
};

/** A dataset as returned by {@link DatasetManager.get}: its items, and `runExperiment` to run a task on them. */
export type FetchedDataset = DatasetWithItems & {
  /** Runs an experiment on the dataset's items, recording the dataset version the items were read at. */
  runExperiment: RunExperimentOnDataset;
};

/** Options of {@link DatasetManager.get}. */
export interface DatasetGetOptions {
  /** Items per page request. @defaultValue 50 */
  fetchItemsPageSize?: number;
  /** Read the items as they were at this time (ISO 8601). */
  version?: string;
  /** Options of each REST call. */
  requestOptions?: RequestOptions;
}

/** Adds methods to a fetched dataset (the experiment runner adds `runExperiment` this way). */
export type DatasetDecorator = (dataset: DatasetWithItems) => FetchedDataset;

/** Makes the dataset manager of a client (`svc.dataset`); set by the class, whose constructor is private. */
export let createDatasetManager: (
  api: SvcApiClient,
  uploader: MediaUploader,
  decorate: DatasetDecorator,
) => DatasetManager;

/** Reads datasets with their items and adds items. */
export class DatasetManager {
  static {
    // `this`, not the class name: a class that names itself inside is renamed by the bundler.
    createDatasetManager = (api, uploader, decorate) => new this(api, uploader, decorate);
  }

  /** Uploads the media found in new items. */
  readonly #uploader: MediaUploader;
  /** Adds methods to each fetched dataset (`runExperiment`). */
  readonly #decorate: DatasetDecorator;

  // Private, so that the published declarations name no media uploader: `svc.dataset` is made by the client.
  private constructor(
    private readonly api: SvcApiClient,
    uploader: MediaUploader,
    decorate: DatasetDecorator,
  ) {
    this.#uploader = uploader;
    this.#decorate = decorate;
  }

  /**
   * Fetches a dataset and all its items, page by page; the media references an item lists become
   * {@link SvcMediaReference} objects (one that cannot be placed stays a string, logged).
   * @throws {@link SvcAPIError} (for example {@link NotFoundError}) when a request fails.
   */
  async get(name: string, options: DatasetGetOptions = {}): Promise<FetchedDataset> {
    const limit = options.fetchItemsPageSize ?? DEFAULT_DATASET_ITEMS_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit <= 0) {
      throw new TypeError(`DatasetManager.get: fetchItemsPageSize must be a positive whole number, got ${limit}`);
    }
    const dataset = await this.api.datasets.get(name, {}, options.requestOptions);
    const items: DatasetItem[] = [];
    for (let page = 1; page <= MAX_DATASET_ITEM_PAGES; page++) {
      const result = await this.api.datasetItems.list(
        { datasetName: name, page, limit, version: options.version },
        options.requestOptions,
      );
      items.push(...result.data);
      if (result.data.length === 0 || result.meta.totalPages <= page) break;
    }
    resolveItemMediaReferences(items);
    return this.#decorate({
      ...dataset,
      items,
      ...(options.version === undefined ? {} : { version: options.version }),
    });
  }

  /**
   * Adds an item to a dataset (or replaces the item with the same `id`). {@link SvcMedia} values in `input`,
   * `expectedOutput` or `metadata` are uploaded first and replaced by their reference strings;
   * {@link SvcMediaReference} values (from `get`) are stored as their reference strings.
   * @throws {@link SvcAPIError} when a request fails, or an `Error` when a media is invalid or its upload fails.
   */
  async createItem(request: CreateDatasetItemRequest, options?: RequestOptions): Promise<DatasetItem> {
    const found = new Map<SvcMedia, string>();
    for (const field of MEDIA_FIELDS)
      mapMedia(request[field], (media) => {
        if (!found.has(media)) found.set(media, field);
      });
    if (found.size === 0) return this.api.datasetItems.create(request, options);

    if ([...found.keys()].some((item) => item.contentBytes === undefined))
      throw new Error("DatasetManager.createItem: an SvcMedia is invalid (see the warning logged when it was made)");
    const id = request.id || crypto.randomUUID();
    const dataset = await this.api.datasets.get(request.datasetName, {}, options);
    const uploaded = await mapLimit([...found], 4, async ([item, field]) => {
      const [sha256Hash, mediaId, tag] = await Promise.all([item.getSha256Hash(), item.getId(), item.getTag()]);
      if (!sha256Hash || !mediaId || !tag || !item.contentBytes || !item.contentType)
        throw new Error("DatasetManager.createItem: an SvcMedia has no content");
      const result = await this.#uploader.upload({
        mediaId,
        sha256Hash,
        contentType: item.contentType,
        bytes: item.contentBytes,
        target: { field, datasetId: dataset.id, datasetItemId: id },
      });
      if (!result.ok) throw new Error(`media upload failed (mediaId=${mediaId}): ${result.reason}`);
      return [item, tag] as const;
    });
    const byMedia = new Map(uploaded);
    const body: CreateDatasetItemRequest = { ...request, id };
    for (const field of MEDIA_FIELDS) {
      if (request[field] !== undefined) body[field] = mapMedia(request[field], (media) => byMedia.get(media) ?? media);
    }
    return this.api.datasetItems.create(body, options);
  }
}

/**
 * `value` rebuilt with each {@link SvcMedia} in its plain objects and arrays replaced by what `swap` returns for it, up
 * to {@link DATASET_MEDIA_MAX_DEPTH} levels deep; a cycle and anything else are kept as they are.
 */
function mapMedia(value: unknown, swap: (media: SvcMedia) => unknown): unknown {
  const onPath = new Set<object>();
  const rebuild = (node: unknown, depth: number): unknown => {
    if (isSvcMedia(node)) return swap(node);
    if (depth > DATASET_MEDIA_MAX_DEPTH || !(Array.isArray(node) || isPlainObject(node)) || onPath.has(node))
      return node;
    onPath.add(node);
    const out = Array.isArray(node)
      ? node.map((child) => rebuild(child, depth + 1))
      : Object.fromEntries(Object.entries(node).map(([key, child]) => [key, rebuild(child, depth + 1)]));
    onPath.delete(node);
    return out;
  };
  return rebuild(value, 0);
}

function isSvcMedia(value: unknown): value is SvcMedia {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[SVC_MEDIA] === true;
}

/**
 * The segments of a JSON path in the server's normalized bracket form: `$`, then `['<key>']` (a key, unescaped:
 * it ends at the first `']`) or `[<index>]`. `[]` for `$` itself; undefined when the text is not of that form.
 */
function parseJsonPath(path: string): (string | number)[] | undefined {
  if (typeof path !== "string" || !path.startsWith("$")) return undefined;
  const segments: (string | number)[] = [];
  let at = 1;
  while (at < path.length) {
    if (path[at] !== "[") return undefined;
    if (path[at + 1] === "'") {
      const end = path.indexOf("']", at + 2);
      if (end < 0) return undefined;
      segments.push(path.slice(at + 2, end));
      at = end + 2;
    } else {
      const index = /^\[(\d+)\]/.exec(path.slice(at));
      if (!index) return undefined;
      segments.push(Number(index[1]));
      at += index[0].length;
    }
  }
  return segments;
}

/**
 * Replaces in place the reference strings each item lists in `mediaReferences` by {@link SvcMediaReference} objects;
 * one whose path cannot be parsed or does not lead to that string stays, counted in one warning.
 */
function resolveItemMediaReferences(items: readonly DatasetItem[]): void {
  let left = 0;
  let firstProblem = "";
  for (const item of items) {
    const references: unknown = (item as { mediaReferences?: unknown }).mediaReferences;
    if (!Array.isArray(references)) continue;
    for (const reference of references) {
      const problem = place(item as unknown as Record<string, unknown>, reference);
      if (problem === undefined) continue;
      left++;
      firstProblem ||= `item ${item.id}: ${problem}`;
    }
  }
  if (left > 0)
    getGlobalLogger().warn(
      `DatasetManager.get: ${left} media reference(s) left as reference strings; the first: ${firstProblem}`,
    );
}

/** Puts one media reference in place; returns why it could not, or undefined. */
function place(item: Record<string, unknown>, reference: unknown): string | undefined {
  // Arrays pass as objects here (unlike the core's isObject): what they lack is reported below, not kept silently.
  if (typeof reference !== "object" || reference === null) return "a media reference that is not an object";
  const { field, jsonPath, referenceString, media } = reference as Record<string, unknown>;
  // A reference the server could not resolve to a stored media record stays a string, as stored.
  if (typeof media !== "object" || media === null) return undefined;
  const stored = media as Record<string, unknown>;
  if (typeof field !== "string" || !(MEDIA_FIELDS as readonly string[]).includes(field))
    return `unknown field ${JSON.stringify(String(field))}`;
  const where = `${field} ${JSON.stringify(String(jsonPath).slice(0, 200))}`;
  const path = parseJsonPath(jsonPath as string);
  if (path === undefined) return `the path ${where} cannot be parsed`;
  if (typeof referenceString !== "string" || typeof stored.mediaId !== "string" || typeof stored.url !== "string")
    return `the reference at ${where} lacks its reference string, media id or URL`;
  const resolved = new SvcMediaReference({
    mediaId: stored.mediaId,
    contentType: String(stored.contentType),
    url: stored.url,
    ...(typeof stored.urlExpiry === "string" ? { urlExpiry: stored.urlExpiry } : {}),
    ...(typeof stored.contentLength === "number" ? { contentLength: stored.contentLength } : {}),
    referenceString,
  });
  let parent: unknown = item;
  let key: string | number = field;
  for (const segment of path) {
    parent = childOf(parent, key);
    key = segment;
    if (parent === undefined) return `the path ${where} leads nowhere`;
  }
  const current = childOf(parent, key);
  if (current !== referenceString) {
    // A reference inside a longer text stays in that text (resolve it with svc.media.resolveReferences).
    if (typeof current === "string" && current.includes(referenceString)) return undefined;
    return `the value at ${where} is not the reference string`;
  }
  // Defined rather than assigned, so that a key such as "__proto__" stays a plain key.
  Object.defineProperty(parent, key, { value: resolved, writable: true, enumerable: true, configurable: true });
  return undefined;
}

/** The value under `key`: an index of an array, or an own key of an object; undefined otherwise. */
function childOf(parent: unknown, key: string | number): unknown {
  if (typeof key === "number") return Array.isArray(parent) ? parent[key] : undefined;
  if (!isObject(parent) || !Object.hasOwn(parent, key)) return undefined;
  return parent[key];
}
