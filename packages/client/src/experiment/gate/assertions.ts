import type { ExperimentItemResult } from "../types.js";

type ItemResult = ExperimentItemResult<unknown, unknown, unknown, unknown>;

const OPERATORS = {
  ">=": (a: number, b: number) => a >= b,
  ">": (a: number, b: number) => a > b,
  "<=": (a: number, b: number) => a <= b,
  "<": (a: number, b: number) => a < b,
  "==": (a: number, b: number) => a === b,
} as const;

type Operator = keyof typeof OPERATORS;

/**
 * A threshold on a score: `exact_match >= 1` holds for each item (on the mean over its trials), `mean(helpfulness)
 * >= 0.8` for the run (on the mean over every item and trial, or the run evaluation of that name).
 */
export interface Assertion {
  /** The text as written. */
  text: string;
  /** `item` for `name op value`, `run` for `mean(name) op value`. */
  scope: "item" | "run";
  /** Score name. */
  name: string;
  operator: Operator;
  threshold: number;
}

const PATTERN = /^\s*(?:(mean)\(\s*([^()\s]+)\s*\)|([^()\s<>=]+))\s*(>=|<=|==|>|<)\s*(-?\d+(?:\.\d+)?)\s*$/;

/**
 * Reads assertions such as `exact_match >= 1` and `mean(helpfulness) >= 0.8`.
 * @throws {TypeError} naming the assertion that cannot be read and the form it should take.
 */
export function parseAssertions(texts: readonly string[] = []): Assertion[] {
  return texts.map((text) => {
    const match = PATTERN.exec(String(text));
    if (!match) {
      throw new TypeError(
        `assertion "${text}" cannot be read; write "<score> <op> <number>" or "mean(<score>) <op> <number>" with one of >=, >, <=, <, ==`,
      );
    }
    const [, mean, runName, itemName, operator, threshold] = match;
    return {
      text: String(text).trim(),
      scope: mean ? "run" : "item",
      name: (mean ? runName : itemName) ?? "",
      operator: operator as Operator,
      threshold: Number(threshold),
    };
  });
}

/** Whether `value` meets the assertion; a missing value does not. */
export function holds(assertion: Assertion, value: number | undefined): boolean {
  return value !== undefined && OPERATORS[assertion.operator](value, assertion.threshold);
}

/** Numeric value of an evaluation: numbers as they are, booleans as 1 and 0, anything else none. */
export function numericValue(value: unknown): number | undefined {
  if (typeof value === "boolean") return Number(value);
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** The item's value of a score: the mean over its trials, or its one evaluation. */
function itemScore(result: ItemResult, name: string): number | undefined {
  const summary = result.scores?.[name];
  if (summary) return summary.mean;
  return numericValue(result.evaluations.find((e) => e.name === name)?.value);
}

/** The assertions an item fails, with the reason for each (a failed task fails them all). */
export function failedItemAssertions(result: ItemResult, assertions: readonly Assertion[]): string[] {
  return assertions
    .filter((a) => a.scope === "item")
    .flatMap((a) => {
      const value = itemScore(result, a.name);
      if (holds(a, value)) return [];
      return [`${a.text} (${value === undefined ? "no value" : `got ${round(value)}`})`];
    });
}

/** The mean of each name's values, from `[name, value]` pairs; undefined values are left out. */
export function means(pairs: Iterable<readonly [string, number | undefined]>): Map<string, number> {
  const sums = new Map<string, { sum: number; count: number }>();
  for (const [name, value] of pairs) {
    if (value === undefined) continue;
    const entry = sums.get(name) ?? { sum: 0, count: 0 };
    entry.sum += value;
    entry.count++;
    sums.set(name, entry);
  }
  return new Map([...sums].map(([name, { sum, count }]) => [name, sum / count]));
}

/** Per score name, the mean of its numeric values over every trial of every item. */
export function itemMeans(items: readonly ItemResult[]): Map<string, number> {
  const evaluations = items.flatMap((r) => (r.trials?.length ? r.trials : [r]).flatMap((t) => t.evaluations));
  return means(evaluations.map((e) => [e.name, numericValue(e.value)]));
}

/** Mean of a score over every trial of every item, or, when no item has it, the run evaluation of that name. */
export function runScore(
  items: readonly ItemResult[],
  runEvaluations: readonly { name: string; value: unknown }[],
  name: string,
): number | undefined {
  return itemMeans(items).get(name) ?? numericValue(runEvaluations.find((e) => e.name === name)?.value);
}

/** A number rounded to three decimals, for messages and tables. */
export function round(value: number): number {
  return Number(value.toFixed(3));
}
