// A typical service entry on LangSmith's JS SDK: a client, one traced request with an LLM call, one feedback sent.
import { Client } from "langsmith";
import { getCurrentRunTree, traceable } from "langsmith/traceable";

const client = new Client({ apiUrl: process.env.LANGSMITH_ENDPOINT, apiKey: process.env.LANGSMITH_API_KEY });
const llm = traceable(async (question) => ({ answer: 42, question }), { name: "llm", run_type: "llm", client });
const agent = traceable(
  async (question) => {
    const run = getCurrentRunTree();
    return { ...(await llm(question)), runId: run.id, traceId: run.trace_id };
  },
  { name: "agent", run_type: "chain", client },
);

export async function handle(question) {
  const { runId, traceId } = await agent(question);
  await client.createFeedback({ runId, traceId, key: "quality", score: 1 });
  await client.awaitPendingTraceBatches();
}
