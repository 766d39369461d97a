export { SvcClient } from "./client.js";
export type { SvcClientConfig, SvcClientParams } from "./config.js";
export { DEFAULT_BASE_URL, DEFAULT_TIMEOUT_SECONDS, resolveClientConfig } from "./config.js";
