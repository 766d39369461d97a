import OpenAI from "openai";

const client = new OpenAI(); // OPENAI_API_KEY, OPENAI_BASE_URL
const messages = [{ role: "user", content: "What is the capital of France?" }];

await client.chat.completions.create({ model: "gpt-test", messages });

const chunks = await client.chat.completions.create({
  model: "gpt-test",
  messages,
  stream: true,
  stream_options: { include_usage: true }, // without it OpenAI sends no usage in a stream
});
for await (const _chunk of chunks);

await client.responses.create({ model: "gpt-test", input: "What is the capital of France?" });

const events = await client.responses.create({
  model: "gpt-test",
  input: "What is the capital of France?",
  stream: true,
});
for await (const _event of events);
