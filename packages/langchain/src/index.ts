export type { CallbackHandlerParams } from "./callback-handler.js";
export { CallbackHandler } from "./callback-handler.js";
