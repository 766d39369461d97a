const OpenAI = require("openai");

async function main() {
  const client = new OpenAI(); // OPENAI_API_KEY, OPENAI_BASE_URL
  const messages = [{ role: "user", content: "What is the capital of France?" }];
  await client.chat.completions.create({ model: "gpt-test", messages });
  const chunks = await client.chat.completions.create({
    model: "gpt-test",
    messages,
    stream: true,
    stream_options: { include_usage: true },
  });
  for await (const _chunk of chunks);
}

main();
