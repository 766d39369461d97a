import { mean, numericValue, valuesByName } from "../internal/values.js";
import type { AnyItemResult, Evaluation } from "../types.js";

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

/** The assertions an item fails, with the reason for each (a failed task fails them all). */
export function failedItemAssertions(result: AnyItemResult, assertions: readonly Assertion[]): string[] {
  return assertions
    .filter((a) => a.scope === "item")
    .flatMap((a) => {
      // The mean over the item's trials (its one evaluation, with one trial).
      const value = result.scores[a.name]?.mean;
      if (holds(a, value)) return [];
      return [`${a.text} (${value === undefined ? "no value" : `got ${round(value)}`})`];
    });
}

/** Per name, the mean of the numeric values of the scores given. */
export function means(scores: Iterable<{ name: string; value: unknown }>): Map<string, number> {
  return new Map([...valuesByName(scores)].map(([name, list]) => [name, mean(list)]));
}

/** Every evaluation of every trial of the items. */
export function trialEvaluations(items: readonly AnyItemResult[]): Evaluation[] {
  return items.flatMap((r) => r.trials.flatMap((t) => t.evaluations));
}

/** Mean of a score over every trial of every item, or, when no item has it, the run evaluation of that name. */
export function runScore(
  items: readonly AnyItemResult[],
  runEvaluations: readonly { name: string; value: unknown }[],
  name: string,
): number | undefined {
  return means(trialEvaluations(items)).get(name) ?? numericValue(runEvaluations.find((e) => e.name === name)?.value);
}

/** A number rounded to three decimals, for messages and tables. */
export function round(value: number): number {
  return Number(value.toFixed(3));
}
