import { anthropic } from "@ai-sdk/anthropic"; // ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL
import { openai } from "@ai-sdk/openai"; // OPENAI_API_KEY, OPENAI_BASE_URL
import { embed, generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";

const prompt = "What is the capital of France?";

await generateText({ model: openai.chat("gpt-test"), prompt });

const streamed = streamText({ model: anthropic("claude-test"), prompt });
await streamed.text;

await embed({ model: openai.embedding("text-embedding-test"), value: "Paris" });

const weather = tool({
  description: "The weather in a city",
  inputSchema: jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
  execute: async ({ city }) => ({ city, forecast: "sunny" }),
});
await generateText({
  model: openai.chat("gpt-test"),
  prompt: "What is the weather in Paris?",
  tools: { weather },
  stopWhen: stepCountIs(2),
});
