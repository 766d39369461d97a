import type { OptionSpec } from "./options.js";

/** Longest environment name. */
const MAX_ENVIRONMENT_LENGTH = 40;

const ENVIRONMENT_PATTERN = /^[a-z0-9_-]+$/;

/** The environment rule in words, for log lines. */
export const ENVIRONMENT_RULE = `1-${MAX_ENVIRONMENT_LENGTH} characters of a-z, 0-9, _ or -, not starting with "svc"`;

/** Whether `value` is a valid environment name ({@link ENVIRONMENT_RULE}): one rule for options and baggage. */
export function isValidEnvironment(value: unknown): value is string {
  return (
    typeof value === "string" &&
    value.length <= MAX_ENVIRONMENT_LENGTH &&
    ENVIRONMENT_PATTERN.test(value) &&
    !value.startsWith("svc")
  );
}

/** An environment name from the option, then the variables given; an invalid one warns and falls through. */
export function environmentOption(env: readonly string[]): OptionSpec<string | undefined> {
  const expected = `a valid environment (${ENVIRONMENT_RULE})`;
  const parse = (value: unknown) =>
    isValidEnvironment(value) ? { ok: true as const, value } : { ok: false as const, expected };
  return { parse, parseEnv: parse, env, fallback: undefined };
}
