import Mustache from "mustache";

// Values go into prompts as written: no HTML escaping. The override is per call, so other users of the
// shared mustache instance keep their own escape setting.
const RAW: Mustache.RenderOptions = { escape: (value: unknown) => String(value) };

/** Renders a mustache template with the given variables, without HTML escaping. */
export function renderTemplate(template: string, variables: Record<string, unknown>): string {
  return Mustache.render(template, variables, {}, RAW);
}

type Brace = "double" | "json" | "plain";

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
      const isJson = isQuote(nextNonSpace(text, i + 1));
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

function nextNonSpace(text: string, from: number): string | undefined {
  const pattern = /\S/g;
  pattern.lastIndex = from;
  return pattern.exec(text)?.[0];
}

function isQuote(char: string | undefined): boolean {
  return char === '"' || char === "'";
}
