import {
  describeError,
  FAILED_TO_SERIALIZE,
  ownKeys,
  RepeatLog,
  readItem,
  serializeValue,
  stableText,
  toJsonSafe,
} from "@svc/core";
import Mustache from "mustache";

/** A variable's value as prompt text: strings as they are, objects and arrays as JSON, anything else as its text. */
function formatValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null) return serializeValue(value) ?? "";
  return stableText(value);
}

// Values go into prompts as written: no HTML escaping. The override is per call, so other users of the
// shared mustache instance keep their own escape setting.
const RAW: Mustache.RenderOptions = { escape: formatValue };

/** Writes `{{{name}}}` and `{{&name}}` values the way `{{name}}` writes them, instead of `[object Object]`. */
class PromptWriter extends Mustache.Writer {
  override unescapedValue(token: string[], context: Mustache.Context): string {
    const value: unknown = context.lookup(token[1] as string);
    return (value == null ? undefined : formatValue(value)) as string;
  }
}

const writer = new PromptWriter();
const repeats = new RepeatLog();

/**
 * Renders a mustache template without HTML escaping. Objects and arrays render as JSON text, other values as their
 * text; a value that cannot be read, or a lambda that throws, renders as a marker. Variables that are not an object
 * count as none. Only a template that is not valid mustache throws.
 */
export function renderTemplate(template: string, variables: unknown): string {
  return writer.render(template, renderView(variables), {}, RAW);
}

/** A copy of the variables that mustache can render whatever they hold. */
function renderView(variables: unknown): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  if (typeof variables !== "object" || variables === null) return view;
  for (const key of ownKeys(variables) ?? []) {
    const value = readItem(variables, key);
    view[key] =
      typeof value === "function"
        ? guardedLambda(key, value as (...args: unknown[]) => unknown)
        : typeof value === "object" && value !== null
          ? toJsonSafe(value)
          : value;
  }
  return view;
}

/** A mustache lambda that renders a marker instead of throwing. */
function guardedLambda(key: string, fn: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  return function (this: unknown, ...args: unknown[]): unknown {
    try {
      const result = fn.apply(this, args);
      return typeof result === "function" ? guardedLambda(key, result as (...a: unknown[]) => unknown) : result;
    } catch (error) {
      const kind = "compile: a function variable threw; it renders as a marker";
      repeats.warn(kind, `${kind} (${key}): ${describeError(error)}`);
      return FAILED_TO_SERIALIZE;
    }
  };
}

type Brace = "double" | "json" | "plain";
/** A quote as the next character that is not a space: the `{` before it opens JSON. */
const JSON_OPENING = /\s*["']/y;

/**
 * Converts a mustache-style template to LangChain's f-string syntax: JSON braces (a single `{` whose next
 * non-space character is a quote) are doubled so LangChain reads them literally, then `{{name}}` becomes `{name}`.
 */
export function toLangchainTemplate(template: string): string {
  return escapeJsonBraces(template).replace(/\{\{(\w+)\}\}/g, "{$1}");
}

function escapeJsonBraces(text: string): string {
  const open: Brace[] = [];
  let out = "";
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === "{" && text[i + 1] === "{") {
      open.push("double");
      out += "{{";
      i += 2;
    } else if (char === "{") {
      JSON_OPENING.lastIndex = i + 1;
      const isJson = JSON_OPENING.test(text);
      open.push(isJson ? "json" : "plain");
      out += isJson ? "{{" : "{";
      i += 1;
    } else if (char === "}" && text[i + 1] === "}" && open.at(-1) === "double") {
      open.pop();
      out += "}}";
      i += 2;
    } else if (char === "}") {
      out += open.pop() === "json" ? "}}" : "}";
      i += 1;
    } else {
      out += char;
      i += 1;
    }
  }
  return out;
}
