import { RepeatLog } from "../repeat-log.js";

/** Warnings of this package that bad input can repeat on every call: first line of each kind, then counts. */
export const repeats = new RepeatLog();
