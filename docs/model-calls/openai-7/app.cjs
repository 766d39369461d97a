const OpenAI = require("openai");

async function main() {
  const client = new OpenAI(); // OPENAI_API_KEY, OPENAI_BASE_URL
  const messages = [{ role: "user", content: "What is the capital of France?" }];
  await client.chat.completions.create({ model: "gpt-test", messages });
  await client.responses.create({ model: "gpt-test", input: "What is the capital of France?" });
}

main();
