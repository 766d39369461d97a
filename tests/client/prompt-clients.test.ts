import { ChatPromptClient, TextPromptClient } from "@svc/client";
import { describe, expect, it } from "vitest";
// The same mustache module the client package resolves.
// @ts-expect-error: the types of mustache are declared for the bare specifier only
import MustacheModule from "../../packages/client/node_modules/mustache/mustache.mjs";

const Mustache = MustacheModule as { render(template: string, view: object): string };

const meta = { name: "p", version: 3, config: { model: "m" }, labels: ["production"], tags: ["t"] };

function text(prompt: string) {
  return new TextPromptClient({ ...meta, type: "text", prompt });
}

function chat(prompt: ConstructorParameters<typeof ChatPromptClient>[0]["prompt"]) {
  return new ChatPromptClient({ ...meta, type: "chat", prompt });
}

describe("TextPromptClient", () => {
  it("exposes the prompt's fields and is not a fallback", () => {
    const client = text("Hi");
    expect(client).toMatchObject({ ...meta, type: "text", prompt: "Hi", isFallback: false });
  });

  it("fills variables without HTML escaping and renders missing ones empty", () => {
    expect(text("Hello {{name}}, <{{tag}}> {{missing}}!").compile({ name: "Tom & Jerry", tag: "<b>" })).toBe(
      "Hello Tom & Jerry, <<b>> !",
    );
  });

  it("leaves the shared mustache instance's escaping alone", () => {
    text("{{x}}").compile({ x: "<" });
    expect(Mustache.render("{{x}}", { x: "<" })).toBe("&lt;");
  });

  it("converts variables to LangChain's syntax and doubles JSON braces", () => {
    const client = text('Answer {{question}} as {"answer": "...", "nested": {"a": 1}} in {{language}}');
    expect(client.getLangchainPrompt()).toBe(
      'Answer {question} as {{"answer": "...", "nested": {{"a": 1}}}} in {language}',
    );
  });

  it("doubles a JSON brace followed by spaces and a single quote, and keeps plain braces", () => {
    expect(text("{ 'a': 1 } and {x}").getLangchainPrompt()).toBe("{{ 'a': 1 }} and {x}");
  });

  it("serialises its fields with toJSON", () => {
    expect(JSON.parse(text("Hi").toJSON())).toEqual({ ...meta, prompt: "Hi", type: "text", isFallback: false });
  });
});

describe("ChatPromptClient", () => {
  const messages = [
    { role: "system", content: "You are {{persona}}." },
    { type: "placeholder" as const, name: "history" },
    { role: "user", content: "{{question}}", type: "chatmessage" as const },
  ];

  it("marks items without a type as messages", () => {
    expect(chat(messages).prompt[0]).toEqual({ role: "system", content: "You are {{persona}}.", type: "chatmessage" });
  });

  it("fills variables in each message and the placeholder with the given messages", () => {
    const out = chat(messages).compile(
      { persona: "a <pirate>", question: "Why?" },
      {
        history: [
          { role: "user", content: "Hi {{persona}}" },
          { role: "assistant", content: "Arr" },
        ],
      },
    );
    expect(out).toEqual([
      { role: "system", content: "You are a <pirate>." },
      { role: "user", content: "Hi a <pirate>" },
      { role: "assistant", content: "Arr" },
      { role: "user", content: "Why?" },
    ]);
  });

  it("keeps an unfilled placeholder, drops one filled with an empty list and inserts other values as JSON", () => {
    const client = chat(messages);
    expect(client.compile({})[1]).toEqual({ type: "placeholder", name: "history" });
    expect(client.compile({}, { history: [] })).toHaveLength(2);
    expect(client.compile({}, { history: { note: 1 } })[1]).toBe('{"note":1}');
  });

  it("inserts a placeholder value that is a plain string, number or boolean as its JSON text, as v5 did", () => {
    const client = chat(messages);
    expect(client.compile({}, { history: "just a string" })[1]).toBe('"just a string"');
    expect(client.compile({}, { history: 42 })[1]).toBe("42");
    expect(client.getLangchainPrompt({ placeholders: { history: "just a string" } })[1]).toBe('"just a string"');
    expect(client.getLangchainPrompt({ placeholders: { history: false } })[1]).toBe("false");
  });

  it("converts messages to LangChain's syntax and unfilled placeholders to placeholder tuples", () => {
    const client = chat([
      { role: "system", content: 'Reply {"k": "{{v}}"} to {{q}}' },
      { type: "placeholder", name: "history" },
    ]);
    expect(client.getLangchainPrompt()).toEqual([
      { role: "system", content: 'Reply {{"k": "{v}"}} to {q}' },
      ["placeholder", "{history}"],
    ]);
    expect(client.getLangchainPrompt({ placeholders: { history: [{ role: "user", content: "{{x}}" }] } })).toEqual([
      { role: "system", content: 'Reply {{"k": "{v}"}} to {q}' },
      { role: "user", content: "{x}" },
    ]);
  });

  it("produces templates LangChain formats back to the compiled text", async () => {
    const { ChatPromptTemplate } = await import("@langchain/core/prompts");
    const client = chat([{ role: "system", content: 'Return {"city": "{{city}}"} for {{name}}' }]);
    const template = ChatPromptTemplate.fromMessages(
      client
        .getLangchainPrompt()
        .map((m) => (Array.isArray(m) || typeof m === "string" ? m : [m.role, m.content])) as never,
    );
    const formatted = await template.formatMessages({ city: "Paris", name: "Ann" });
    expect(formatted[0]?.content).toBe('Return {"city": "Paris"} for Ann');
    expect(client.compile({ city: "Paris", name: "Ann" })).toEqual([
      { role: "system", content: formatted[0]?.content },
    ]);
  });

  it("serialises messages without their type in toJSON", () => {
    const json = JSON.parse(chat([{ role: "user", content: "x" }]).toJSON());
    expect(json.prompt).toEqual([{ role: "user", content: "x" }]);
    expect(json).toMatchObject({ type: "chat", isFallback: false, name: "p" });
  });
});

describe("compile on any variable value", () => {
  const cyclic: Record<string, unknown> = { name: "loop" };
  cyclic.self = cyclic;
  const unprintable = {
    toString() {
      throw new Error("no text");
    },
  };

  it("renders objects and arrays as JSON text, cycles and BigInt included, in {{x}} and {{{x}}} alike", () => {
    const client = text("{{a}} | {{{a}}} | {{b}} | {{c}} | {{d}} | {{e}}");

    expect(client.compile({ a: { k: [1, 2] }, b: cyclic, c: 10n, d: [1, "x"], e: Symbol("s") })).toBe(
      '{"k":[1,2]} | {"k":[1,2]} | {"name":"loop","self":"[Circular]"} | 10 | [1,"x"] | Symbol(s)',
    );
  });

  it("renders an object whose toString throws, or a throwing getter, as JSON with a marker instead of throwing", () => {
    const getter = Object.defineProperty({}, "x", {
      enumerable: true,
      get() {
        throw new Error("getter exploded");
      },
    });

    expect(text("{{a}} {{b}}").compile({ a: unprintable, b: getter })).toBe('{} {"x":"<failed to serialize>"}');
  });

  it("renders the variables empty for compile(), compile(null) and compile(42)", () => {
    const client = text("Hello {{name}}!");

    expect(client.compile()).toBe("Hello !");
    expect(client.compile(null as never)).toBe("Hello !");
    expect(client.compile(42 as never)).toBe("Hello !");
  });

  it("keeps sections and dotted names working on objects", () => {
    expect(
      text("{{#items}}[{{name}}]{{/items}} {{user.name}}").compile({
        items: [{ name: "a" }, { name: "b" }],
        user: { name: "u" },
      }),
    ).toBe("[a][b] u");
  });

  it("calls a function variable as mustache does, and renders a marker when it throws", () => {
    const client = text("{{ok}} {{bad}}");

    expect(
      client.compile({
        ok: () => "fine",
        bad: () => {
          throw new Error("lambda failed");
        },
      }),
    ).toBe("fine <failed to serialize>");
  });

  it("fills chat messages and placeholders whatever they are given", () => {
    const client = chat([
      { role: "system", content: "Be {{tone}}" },
      { type: "placeholder", name: "history" },
    ]);

    expect(client.compile({ tone: cyclic }, null as never)).toEqual([
      { role: "system", content: 'Be {"name":"loop","self":"[Circular]"}' },
      { type: "placeholder", name: "history" },
    ]);
    expect(client.compile(undefined, { history: cyclic })).toEqual([
      { role: "system", content: "Be " },
      '{"name":"loop","self":"[Circular]"}',
    ]);
    expect(client.getLangchainPrompt(null as never)).toEqual([
      { role: "system", content: "Be {tone}" },
      ["placeholder", "{history}"],
    ]);
  });
});
