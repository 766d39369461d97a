import Anthropic from "@anthropic-ai/sdk";

const client = new Anthropic(); // ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL
const request = {
  model: "claude-test",
  max_tokens: 512,
  messages: [{ role: "user", content: "What is the capital of France?" }],
};

await client.messages.create(request);

const stream = client.messages.stream(request);
await stream.finalMessage();
