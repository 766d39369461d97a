import { noteUnreadable, readField, serializeValue } from "@svc/core";
import type {
  BasePrompt,
  ChatMessage,
  ChatPrompt,
  CreateChatPromptRequest,
  CreateTextPromptRequest,
  PlaceholderMessage,
  TextPrompt,
} from "../api/generated/types.js";
import { renderTemplate, toLangchainTemplate } from "./template.js";

/** Kind of an item in a chat prompt. */
export enum ChatMessageType {
  ChatMessage = "chatmessage",
  Placeholder = "placeholder",
}

/** A chat message as stored in a chat prompt. */
export type ChatMessageWithType = ChatMessage & { type: "chatmessage" };

/** A slot in a chat prompt that {@link ChatPromptClient.compile} fills with a list of messages. */
export type PlaceholderWithType = PlaceholderMessage & { type: "placeholder" };

/** An item of a chat prompt: a message or a placeholder. */
export type ChatMessageOrPlaceholder = ChatMessageWithType | PlaceholderWithType;

/** A chat item as LangChain's `ChatPromptTemplate.fromMessages` takes it for an unfilled placeholder. */
export type LangchainMessagesPlaceholder = ["placeholder", string];

/** A text prompt as the server returns it. */
export type TextPromptData = TextPrompt & { type?: "text" | null };

/** A chat prompt as the server returns it. Items without `type` are messages. */
export type ChatPromptData = ChatPrompt & { type?: "chat" | null };

/** Body of `prompt.create` for a chat prompt: messages (`type` optional) and placeholders. */
export type CreateChatPromptBodyWithPlaceholders = Omit<CreateChatPromptRequest, "prompt" | "type"> & {
  type: "chat";
  prompt: Array<ChatMessage | ChatMessageOrPlaceholder>;
};

/** Body of `prompt.create` for a text prompt; `type` defaults to `text`. */
export type CreateTextPromptBody = CreateTextPromptRequest;

/** Values for a prompt's `{{variables}}`. */
export type PromptVariables = Record<string, unknown>;

/** Values for a chat prompt's placeholders, by placeholder name; usually a list of messages. */
export type PromptPlaceholders = Record<string, unknown>;

/** Fields every prompt client has, text or chat. */
abstract class BasePromptClient {
  /** Prompt name. */
  readonly name: string;
  /** Version number; 0 for a fallback built without a version. */
  readonly version: number;
  /** The prompt's config object (model parameters and the like), as stored. */
  readonly config: unknown;
  /** Labels of this version, for example `production`. */
  readonly labels: string[];
  /** Tags of the prompt. */
  readonly tags: string[];
  /** Commit message of this version, when one was given. */
  readonly commitMessage: string | null | undefined;
  /**
   * True only for the `fallback` of `prompt.get()` (nothing cached, the fetch failed): version `0` unless one was
   * asked for, never cached, never linked to a generation.
   */
  readonly isFallback: boolean;

  protected constructor(meta: BasePrompt, isFallback: boolean) {
    this.name = meta.name;
    this.version = meta.version;
    this.config = meta.config;
    this.labels = [...(meta.labels ?? [])];
    this.tags = [...(meta.tags ?? [])];
    this.commitMessage = meta.commitMessage;
    this.isFallback = isFallback;
  }

  /** The JSON text of `toJSON()`: the prompt's fields, with `prompt` as given. */
  protected serialize(type: "text" | "chat", prompt: unknown): string {
    return JSON.stringify({
      name: this.name,
      prompt,
      version: this.version,
      isFallback: this.isFallback,
      tags: this.tags,
      labels: this.labels,
      type,
      config: this.config,
    });
  }
}

/** A text prompt: one template string. */
export class TextPromptClient extends BasePromptClient {
  /** Always `text`. */
  readonly type = "text" as const;
  /** The template, with `{{variables}}`. */
  readonly prompt: string;
  /** The prompt as the server returned it. */
  readonly promptResponse: TextPromptData;

  /** Wraps a text prompt as returned by the server. */
  constructor(data: TextPromptData, isFallback = false) {
    super(data, isFallback);
    this.prompt = data.prompt;
    this.promptResponse = data;
  }

  /**
   * Fills `{{variables}}` with the given values (no HTML escaping); missing variables render empty, objects and
   * arrays as JSON text. Never throws on a value: one that cannot be written renders as a marker.
   */
  compile(variables: PromptVariables = {}): string {
    return renderTemplate(this.prompt, variables);
  }

  /** The template in LangChain's syntax: `{{name}}` becomes `{name}` and literal JSON braces are doubled. */
  getLangchainPrompt(): string {
    return toLangchainTemplate(this.prompt);
  }

  /** The prompt's fields as a JSON string. */
  toJSON(): string {
    return this.serialize(this.type, this.prompt);
  }
}

/** A chat prompt: a list of messages and placeholders. */
export class ChatPromptClient extends BasePromptClient {
  /** Always `chat`. */
  readonly type = "chat" as const;
  /** The messages and placeholders; every item carries its `type`. */
  readonly prompt: ChatMessageOrPlaceholder[];
  /** The prompt as the server returned it. */
  readonly promptResponse: ChatPromptData;

  /** Wraps a chat prompt as returned by the server. */
  constructor(data: ChatPromptData, isFallback = false) {
    super(data, isFallback);
    this.prompt = (data.prompt ?? []).map(normalizeChatItem);
    this.promptResponse = data;
  }

  /**
   * Fills `{{variables}}` in every message (as {@link TextPromptClient.compile} does) and replaces each placeholder
   * by the messages given for it. A placeholder with no value stays in the output; one given an empty list is
   * dropped; one given anything other than a list of messages is inserted as its JSON text (a string with its quotes).
   * Never throws on a value.
   */
  compile(
    variables: PromptVariables = {},
    placeholders: PromptPlaceholders = {},
  ): Array<ChatMessage | PlaceholderWithType | string> {
    return this.expand(placeholders, {
      message: (m) => ({ role: m.role, content: render(m.content, (c) => renderTemplate(c, variables)) }),
      unresolved: (p): PlaceholderWithType => ({ type: "placeholder", name: p.name }),
    });
  }

  /**
   * The messages in LangChain's syntax, ready for `ChatPromptTemplate.fromMessages`. Placeholders filled
   * through `placeholders` become messages; the others become `["placeholder", "{name}"]`.
   */
  getLangchainPrompt(
    options: { placeholders?: PromptPlaceholders } = {},
  ): Array<ChatMessage | LangchainMessagesPlaceholder | string> {
    return this.expand(readField(options, "placeholders"), {
      message: (m) => ({ role: m.role, content: render(m.content, toLangchainTemplate) }),
      unresolved: (p): LangchainMessagesPlaceholder => ["placeholder", `{${p.name}}`],
    });
  }

  /** The prompt's fields as a JSON string; messages without their `type`. */
  toJSON(): string {
    return this.serialize(
      this.type,
      this.prompt.map((item) => (isPlaceholder(item) ? item : { role: item.role, content: item.content })),
    );
  }

  private expand<M, U>(
    placeholders: unknown,
    build: { message: (m: ChatMessage) => M; unresolved: (p: PlaceholderWithType) => U },
  ): Array<M | U | string> {
    const out: Array<M | U | string> = [];
    for (const item of this.prompt) {
      if (!isPlaceholder(item)) {
        out.push(build.message(item));
        continue;
      }
      const value = readField(placeholders, item.name);
      if (value === undefined) out.push(build.unresolved(item));
      else if (Array.isArray(value) && value.length === 0) continue;
      else out.push(...placeholderMessages(value, build.message));
    }
    return out;
  }
}

/** A text or chat prompt client. */
export type PromptClient = TextPromptClient | ChatPromptClient;

function normalizeChatItem(item: ChatPromptData["prompt"][number]): ChatMessageOrPlaceholder {
  if (item.type === ChatMessageType.Placeholder && "name" in item) {
    return { type: "placeholder", name: item.name };
  }
  const message = item as ChatMessage;
  return { role: message.role, content: message.content, type: "chatmessage" };
}

function isPlaceholder(item: ChatMessageOrPlaceholder): item is PlaceholderWithType {
  return item.type === ChatMessageType.Placeholder;
}

function isMessageList(value: unknown): value is ChatMessage[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((m) => typeof m === "object" && m !== null && "role" in m && "content" in m)
  );
}

/**
 * The messages a placeholder's value stands for, or its JSON text when it is not a list of messages (a string too:
 * `"text"` with its quotes, as the previous major wrote it).
 */
function placeholderMessages<M>(value: unknown, build: (m: ChatMessage) => M): Array<M | string> {
  try {
    if (isMessageList(value)) return value.map(build);
  } catch (error) {
    noteUnreadable(error);
  }
  if (typeof value === "string") return [serializeValue(JSON.stringify(value)) ?? ""];
  return [serializeValue(value) ?? ""];
}

function render(content: unknown, fn: (text: string) => string): string {
  return typeof content === "string" ? fn(content) : (content as string);
}
