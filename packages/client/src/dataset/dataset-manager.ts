import type { SvcApi } from "../api/generated/client.js";
import type { CreateDatasetItemRequest, Dataset, DatasetItem } from "../api/generated/types.js";
import type { RequestOptions } from "../api/runtime.js";

/** Default number of items fetched per page by {@link DatasetManager.get}. */
export const DEFAULT_DATASET_ITEMS_PAGE_SIZE = 50;
/** Most item pages one `get` reads, whatever the server reports. */
export const MAX_DATASET_ITEM_PAGES = 10_000;

/** A dataset with all its items, as returned by {@link DatasetManager.get}; items are plain data. */
export type FetchedDataset = Dataset & {
  /** Every item of the dataset, all pages fetched. */
  items: DatasetItem[];
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
export type DatasetDecorator = (dataset: FetchedDataset) => FetchedDataset;

/** Reads datasets with their items and adds items. */
export class DatasetManager {
  /** @internal Created by {@link SvcClient}. */
  constructor(
    private readonly api: SvcApi,
    private readonly decorate: DatasetDecorator = (dataset) => dataset,
  ) {}

  /**
   * Fetches a dataset and all its items, page by page.
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
    return this.decorate({ ...dataset, items });
  }

  /**
   * Adds an item to a dataset (or replaces the item with the same `id`).
   * @throws {@link SvcAPIError} when the request fails.
   */
  createItem(request: CreateDatasetItemRequest, options?: RequestOptions): Promise<DatasetItem> {
    return Promise.resolve(this.api.datasetItems.create(request, options));
  }
}
