import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { listenOnLoopback } from "./http-server.ts";

// Loopback stand-ins for the OpenAI and Anthropic HTTP APIs, answering as the providers document them: the same
// usage on every call, streamed (server-sent events, usage where each provider puts it) or not. The numbers are the
// ones the golden expectations of tests/fixtures/model-calls/ are written from:
// - OpenAI Chat Completions: 1,200 prompt tokens of which 1,024 cached, 300 completion tokens of which 128 reasoning;
// - OpenAI Responses: 1,100 input of which 1,000 cached, 250 output of which 100 reasoning;
// - OpenAI embeddings: 8 prompt tokens per request;
// - Anthropic Messages: 200 input, 300 cache creation, 1,000 cache read, 150 output.

/** The model names the mock answers with: the requested name with a date, as the providers do. */
export const ANSWER_MODEL = { openai: "gpt-test-2026-01-01", anthropic: "claude-test-20260101" } as const;

const CHAT_USAGE = {
  prompt_tokens: 1200,
  completion_tokens: 300,
  total_tokens: 1500,
  prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 128,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
};
const RESPONSES_USAGE = {
  input_tokens: 1100,
  input_tokens_details: { cached_tokens: 1000 },
  output_tokens: 250,
  output_tokens_details: { reasoning_tokens: 100 },
  total_tokens: 1350,
};
const ANTHROPIC_USAGE = {
  input_tokens: 200,
  cache_creation_input_tokens: 300,
  cache_read_input_tokens: 1000,
  output_tokens: 150,
};
const ANSWER = "Paris is the capital of France.";
const CREATED = 1_767_225_600;

/** A running mock: its base URL and the requests it answered (`POST /v1/chat/completions stream`, ...). */
export interface MockProviders {
  /** `http://127.0.0.1:<port>`; OpenAI clients take `${url}/v1`, Anthropic clients `url`. */
  url: string;
  seen: string[];
  close(): Promise<void>;
}

type Body = Record<string, unknown> & { stream?: boolean; tools?: unknown[]; messages?: unknown[]; input?: unknown };

/** Starts the mock on 127.0.0.1 with a free port. */
export async function startMockProviders(): Promise<MockProviders> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const path = (req.url ?? "").split("?")[0] ?? "";
      seen.push(`${req.method} ${path}${body.stream ? " stream" : ""}`);
      if (req.method === "POST" && path.endsWith("/chat/completions")) chat(res, body);
      else if (req.method === "POST" && path.endsWith("/responses")) responses(res, body);
      else if (req.method === "POST" && path.endsWith("/embeddings")) embeddings(res, body);
      else if (req.method === "POST" && path.endsWith("/messages")) messages(res, body);
      else json(res, 404, { error: { message: `no mock for ${req.method} ${path}` } });
    });
  });
  return { ...(await listenOnLoopback(server)), seen };
}

async function readBody(req: IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Body;
  } catch {
    return {};
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function sse(res: ServerResponse, events: { event?: string; data: unknown }[], done = false): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const { event, data } of events)
    res.write(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
  if (done) res.write("data: [DONE]\n\n");
  res.end();
}

/** The name of the first tool offered, when the conversation holds no tool result yet: then the model calls it. */
function toolToCall(body: Body, resultRole: (message: Record<string, unknown>) => boolean): string | undefined {
  const tools = (body.tools ?? []) as Record<string, unknown>[];
  const messages = (body.messages ?? (Array.isArray(body.input) ? body.input : [])) as Record<string, unknown>[];
  if (tools.length === 0 || messages.some(resultRole)) return undefined;
  const tool = tools[0] as { name?: string; function?: { name?: string } };
  return tool.function?.name ?? tool.name;
}

const TOOL_ARGUMENTS = '{"city":"Paris"}';

function chat(res: ServerResponse, body: Body): void {
  const tool = toolToCall(body, (m) => m.role === "tool");
  const head = { id: "chatcmpl-mock", created: CREATED, model: ANSWER_MODEL.openai, system_fingerprint: "fp_mock" };
  const call = { id: "call_mock_1", type: "function", function: { name: tool, arguments: TOOL_ARGUMENTS } };
  const finish = tool ? "tool_calls" : "stop";
  if (!body.stream) {
    const message = tool
      ? { role: "assistant", content: null, refusal: null, tool_calls: [call] }
      : { role: "assistant", content: ANSWER, refusal: null };
    json(res, 200, {
      ...head,
      object: "chat.completion",
      choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
      usage: CHAT_USAGE,
    });
    return;
  }
  const chunk = (delta: unknown, finishReason: string | null = null) => ({
    data: {
      ...head,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    },
  });
  const events: { data: unknown }[] = [chunk({ role: "assistant", content: tool ? null : "" })];
  if (tool) {
    events.push(chunk({ tool_calls: [{ index: 0, ...call, function: { name: tool, arguments: "" } }] }));
    events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: TOOL_ARGUMENTS } }] }));
  } else {
    events.push(chunk({ content: "Paris is " }), chunk({ content: "the capital of France." }));
  }
  events.push(chunk({}, finish));
  // OpenAI sends usage in a last chunk without choices, only when the request asks for it.
  const options = body.stream_options as { include_usage?: boolean } | undefined;
  if (options?.include_usage)
    events.push({ data: { ...head, object: "chat.completion.chunk", choices: [], usage: CHAT_USAGE } });
  sse(res, events, true);
}

function responseObject(status: string, body: Body) {
  const done = status === "completed";
  return {
    id: "resp_mock",
    object: "response",
    created_at: CREATED,
    status,
    model: ANSWER_MODEL.openai,
    output: done ? [outputMessage()] : [],
    usage: done ? RESPONSES_USAGE : null,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    metadata: {},
    parallel_tool_calls: true,
    temperature: 1,
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    text: { format: { type: "text" } },
    truncation: "disabled",
  };
}

function outputMessage() {
  return {
    type: "message",
    id: "msg_mock",
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text: ANSWER, annotations: [] }],
  };
}

function responses(res: ServerResponse, body: Body): void {
  if (!body.stream) {
    json(res, 200, responseObject("completed", body));
    return;
  }
  const at = { output_index: 0, content_index: 0, item_id: "msg_mock" };
  const events = [
    { type: "response.created", response: responseObject("in_progress", body) },
    { type: "response.in_progress", response: responseObject("in_progress", body) },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { ...outputMessage(), status: "in_progress", content: [] },
    },
    { type: "response.content_part.added", ...at, part: { type: "output_text", text: "", annotations: [] } },
    { type: "response.output_text.delta", ...at, delta: "Paris is " },
    { type: "response.output_text.delta", ...at, delta: "the capital of France." },
    { type: "response.output_text.done", ...at, text: ANSWER },
    { type: "response.content_part.done", ...at, part: { type: "output_text", text: ANSWER, annotations: [] } },
    { type: "response.output_item.done", output_index: 0, item: outputMessage() },
    { type: "response.completed", response: responseObject("completed", body) },
  ];
  sse(
    res,
    events.map((data, sequence_number) => ({ event: data.type, data: { ...data, sequence_number } })),
  );
}

function embeddings(res: ServerResponse, body: Body): void {
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  json(res, 200, {
    object: "list",
    data: inputs.map((_, index) => ({ object: "embedding", index, embedding: [0.1, 0.2, 0.3] })),
    model: "text-embedding-test",
    usage: { prompt_tokens: 8, total_tokens: 8 },
  });
}

function messages(res: ServerResponse, body: Body): void {
  const tool = toolToCall(
    body,
    (m) => Array.isArray(m.content) && (m.content as { type?: string }[]).some((c) => c.type === "tool_result"),
  );
  const block = tool
    ? { type: "tool_use", id: "toolu_mock_1", name: tool, input: JSON.parse(TOOL_ARGUMENTS) }
    : { type: "text", text: ANSWER };
  const head = { id: "msg_mock", type: "message", role: "assistant", model: ANSWER_MODEL.anthropic };
  const stop = tool ? "tool_use" : "end_turn";
  if (!body.stream) {
    json(res, 200, { ...head, content: [block], stop_reason: stop, stop_sequence: null, usage: ANTHROPIC_USAGE });
    return;
  }
  const start = tool ? { ...block, input: {} } : { type: "text", text: "" };
  const delta = tool
    ? { type: "input_json_delta", partial_json: TOOL_ARGUMENTS }
    : { type: "text_delta", text: ANSWER };
  const events = [
    {
      type: "message_start",
      message: {
        ...head,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...ANTHROPIC_USAGE, output_tokens: 1 },
      },
    },
    { type: "content_block_start", index: 0, content_block: start },
    { type: "ping" },
    { type: "content_block_delta", index: 0, delta },
    { type: "content_block_stop", index: 0 },
    // The Messages API repeats the cumulative usage, output included, in message_delta.
    { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: ANTHROPIC_USAGE },
    { type: "message_stop" },
  ];
  sse(
    res,
    events.map((data) => ({ event: data.type, data })),
  );
}
