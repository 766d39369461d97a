import { RepeatLog } from "@svc/core";

/**
 * Warnings that a misbehaving chain can repeat on every callback, shared by all handlers (apps often create one
 * handler per request): the first line of each kind, then counts.
 */
export const repeats = new RepeatLog();
