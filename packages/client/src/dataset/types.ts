import type { MediaUploader } from "@svc/core";
import type { Dataset, DatasetItem } from "../api/generated/types.js";
import type { RequestOptions } from "../api/request-runtime.js";
import type { RunExperimentOnDataset } from "../experiment/types.js";

/** A dataset with all its items; items are plain data. */
export type DatasetWithItems = Dataset & {
  /**
   * Every item of the dataset, all pages fetched. Media the server lists for an item are {@link SvcMediaReference}
   * objects at their place in `input`, `expectedOutput` and `metadata`; they serialise to their reference strings. In the
   * order the server lists them (page 1 first; the server lists the newest item first); the SDK does not sort.
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

/** Settings of the dataset manager. */
export interface DatasetManagerOptions {
  /** Adds methods to each fetched dataset (`runExperiment`). */
  decorate: DatasetDecorator;
  /** Uploads the media found in new items. */
  uploader: MediaUploader;
}
