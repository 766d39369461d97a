// Reading an experiment's values: an evaluation's number, the numbers per score name and their mean, a value as text
// (for span attributes, item ids and tables alike).

/** Numeric value of an evaluation: numbers as they are, booleans as 1 and 0, anything else none. */
export function numericValue(value: unknown): number | undefined {
  if (typeof value === "boolean") return Number(value);
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Per name, the numeric values of the scores given, in order; scores without one are left out. */
export function valuesByName(scores: Iterable<{ name: string; value: unknown }>): Map<string, number[]> {
  const values = new Map<string, number[]>();
  for (const { name, value } of scores) {
    const numeric = numericValue(value);
    if (numeric === undefined) continue;
    const list = values.get(name);
    if (list) list.push(numeric);
    else values.set(name, [numeric]);
  }
  return values;
}

/** The arithmetic mean of the values (NaN for none). */
export function mean(values: readonly number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** A value as text: strings as they are, other values as JSON (or `String()` when JSON cannot write them). */
export function toText(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
