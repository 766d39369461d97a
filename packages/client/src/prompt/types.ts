import type {
  ChatMessage,
  ChatPrompt,
  CreateChatPromptRequest,
  CreateTextPromptRequest,
  PlaceholderMessage,
  TextPrompt,
} from "../api/generated/types.js";

export type { ChatMessage, PlaceholderMessage };

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
