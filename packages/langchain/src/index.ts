export { CallbackHandler, type CallbackHandlerParams } from "./callback-handler.js";
