import { RepeatLog } from "@svc/core";

/** Warnings of this package that bad input can repeat on every call: first line of each kind, then counts. */
export const repeats = new RepeatLog();
