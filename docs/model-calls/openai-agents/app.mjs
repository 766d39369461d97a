import { Agent, run } from "@openai/agents"; // OPENAI_API_KEY, OPENAI_BASE_URL

const agent = new Agent({ name: "Assistant", instructions: "Answer in one sentence.", model: "gpt-test" });
await run(agent, "What is the capital of France?");
