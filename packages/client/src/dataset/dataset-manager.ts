import { loadOnce } from "@svc/core";
import type { SvcApi } from "../api/generated/client.js";
import type { CreateDatasetItemRequest, DatasetItem } from "../api/generated/types.js";
import type { RequestOptions } from "../api/runtime.js";
import type { DatasetGetOptions, DatasetManagerOptions, FetchedDataset } from "./types.js";

export type {
  DatasetDecorator,
  DatasetGetOptions,
  DatasetManagerOptions,
  DatasetWithItems,
  FetchedDataset,
} from "./types.js";

let makeDatasetManager: (api: SvcApi, options: DatasetManagerOptions) => DatasetManager;

/**
 * Reads datasets with their items and adds items. The code that does it loads on the first call, so that an
 * application that uses no dataset does not carry it.
 */
export class DatasetManager {
  static {
    // `this`, not the class name: a class that names itself inside is renamed by the bundler.
    makeDatasetManager = (api, options) => new this(api, options);
  }

  readonly #options: DatasetManagerOptions;
  /** The dataset code, loaded once; a failed load is tried again by the next call. */
  readonly #load = loadOnce(() =>
    import("./dataset-service.js").then(({ DatasetService }) => new DatasetService(this.api, this.#options)),
  );

  // Private, so that the published declarations name no media uploader: `svc.dataset` is made by the client.
  private constructor(
    private readonly api: SvcApi,
    options: DatasetManagerOptions,
  ) {
    this.#options = options;
  }

  /**
   * Fetches a dataset and all its items, page by page. Each media reference string the server lists in an item's
   * `mediaReferences` is replaced by a {@link SvcMediaReference} that can download the content; one that cannot be
   * placed stays a string and is logged.
   * @throws {@link SvcAPIError} (for example {@link NotFoundError}) when a request fails.
   */
  async get(name: string, options: DatasetGetOptions = {}): Promise<FetchedDataset> {
    return (await this.#load()).get(name, options);
  }

  /**
   * Adds an item to a dataset (or replaces the item with the same `id`). {@link SvcMedia} values in `input`,
   * `expectedOutput` or `metadata` are uploaded first and replaced by their reference strings;
   * {@link SvcMediaReference} values (from `get`) are stored as their reference strings.
   * @throws {@link SvcAPIError} when a request fails, or an `Error` when a media is invalid or its upload fails.
   */
  async createItem(request: CreateDatasetItemRequest, options?: RequestOptions): Promise<DatasetItem> {
    return (await this.#load()).createItem(request, options);
  }
}

/** Makes the dataset manager of a client (`svc.dataset`). */
export function createDatasetManager(api: SvcApi, options: DatasetManagerOptions): DatasetManager {
  return makeDatasetManager(api, options);
}
