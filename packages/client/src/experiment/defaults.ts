/** Items in flight at once when `maxConcurrency` is not given. */
export const DEFAULT_EXPERIMENT_MAX_CONCURRENCY = 50;
