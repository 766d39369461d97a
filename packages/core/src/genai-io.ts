// How the input and output of spans from other instrumentation read, in the order the server's OTLP ingestion tries
// them (its `extractInputAndOutput`), for the conventions JavaScript libraries emit: the AI SDK's scope `ai`, Traceloop
// (`traceloop.entity.*`, `gen_ai.prompt.*` / `gen_ai.completion.*`), OpenInference (`input.value`, `llm.*_messages.*`)
// and the GenAI conventions (messages, system instructions, tool call arguments and results). Span events are not
// read: no JavaScript library of these puts its messages there. Imports nothing (the dev server loads it from source).

/** Attribute values of one span, as read from OTLP. */
type Attributes = Readonly<Record<string, unknown>>;

/** The input and output a span's attributes give; both undefined when none does. */
export interface InputOutput {
  input: unknown;
  output: unknown;
}

/** Reads the input and output of a span that has no `svc.observation.input` or `.output`. */
export function readGenAiInputOutput(scope: string, a: Attributes): InputOutput {
  if (scope === "ai") {
    const genAi = genAiMessages(a);
    return { input: aiSdkInput(a) ?? genAi?.input, output: aiSdkOutput(a) ?? genAi?.output };
  }
  for (const [inputKey, outputKey] of [
    ["traceloop.entity.input", "traceloop.entity.output"],
    ["input.value", "output.value"],
  ] as const)
    if (present(a[inputKey]) || present(a[outputKey])) return { input: a[inputKey], output: a[outputKey] };
  const prompt = nested(a, "gen_ai.prompt");
  const completion = nested(a, "gen_ai.completion");
  if (prompt !== undefined || completion !== undefined) return { input: prompt, output: completion };
  const messagesIn = nested(a, "llm.input_messages");
  const messagesOut = nested(a, "llm.output_messages");
  if (messagesIn !== undefined || messagesOut !== undefined) return { input: messagesIn, output: messagesOut };
  return genAiMessages(a) ?? { input: undefined, output: undefined };
}

function aiSdkInput(a: Attributes): unknown {
  for (const key of ["ai.prompt.messages", "ai.prompt", "ai.toolCall.args"]) if (key in a) return a[key];
  return undefined;
}

function aiSdkOutput(a: Attributes): unknown {
  if ("ai.response.text" in a && "ai.response.toolCalls" in a)
    return JSON.stringify({
      role: "assistant",
      content: a["ai.response.text"],
      tool_calls: a["ai.response.toolCalls"],
    });
  if (present(a["ai.response.text"])) return a["ai.response.text"];
  for (const key of [
    "ai.result.text",
    "ai.toolCall.result",
    "ai.response.object",
    "ai.result.object",
    "ai.response.toolCalls",
    "ai.result.toolCalls",
  ])
    if (key in a) return a[key];
  return undefined;
}

/** The GenAI conventions: messages (system instructions first, as a system message), else a tool call's arguments and result. */
function genAiMessages(a: Attributes): InputOutput | undefined {
  const input = a["gen_ai.input.messages"];
  const output = a["gen_ai.output.messages"];
  if (present(input) || present(output))
    return { input: present(input) ? withSystemInstructions(input, a["gen_ai.system_instructions"]) : input, output };
  const args = a["gen_ai.tool.call.arguments"];
  const result = a["gen_ai.tool.call.result"];
  if (present(args) || present(result)) return { input: args, output: result };
  return undefined;
}

/** Puts the system instructions first as a `system` message, unless the messages have one; as sent otherwise. */
function withSystemInstructions(input: unknown, instructions: unknown): unknown {
  if (!present(instructions)) return input;
  const messages = typeof input === "string" ? parseJson(input) : input;
  if (!Array.isArray(messages) || messages.some((m) => (m as { role?: unknown })?.role === "system")) return input;
  const parsed = typeof instructions === "string" ? (parseJson(instructions) ?? instructions) : instructions;
  const content = Array.isArray(parsed)
    ? parsed.map((part) => String((part as { content?: unknown })?.content ?? part)).join("\n")
    : String(parsed);
  const merged = [{ role: "system", content }, ...messages];
  return typeof input === "string" ? JSON.stringify(merged) : merged;
}

const UNSAFE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);
/** Most array slots a flattened attribute may ask for (`gen_ai.prompt.99999999.content` allocates nothing). */
const MAX_INDEX = 10_000;

/** `prefix` itself when sent whole, else the attributes under `prefix.` rebuilt as nested arrays and objects. */
function nested(a: Attributes, prefix: string): unknown {
  if (present(a[prefix])) return a[prefix];
  let root: Record<string, unknown> | unknown[] | undefined;
  for (const key in a) {
    if (!key.startsWith(`${prefix}.`)) continue;
    const path = key.slice(prefix.length + 1).split(".");
    if (path.some((part) => UNSAFE_KEYS.has(part) || (isIndex(part) && Number(part) > MAX_INDEX))) continue;
    root ??= isIndex(path[0] as string) ? [] : {};
    let node: Record<string, unknown> = root as Record<string, unknown>;
    for (let i = 0; i < path.length - 1; i++) {
      const part = path[i] as string;
      if (typeof node[part] !== "object" || node[part] === null) node[part] = isIndex(path[i + 1] as string) ? [] : {};
      node = node[part] as Record<string, unknown>;
    }
    node[path[path.length - 1] as string] = a[key];
  }
  return root;
}

function isIndex(part: string): boolean {
  return /^\d+$/.test(part);
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "";
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
