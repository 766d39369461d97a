export type { SvcBrowserClientParams } from "./browser-client.js";
export { SvcBrowserClient } from "./browser-client.js";
