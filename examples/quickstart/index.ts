// svc quickstart: starts the local dev server in this process and runs the SDK against it end to end.
// Run it with `pnpm demo` (after `pnpm build`), or `bash scripts/dev.sh demo` from a fresh clone.
import { OpenTelemetry } from "@ai-sdk/otel";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { SvcClient } from "@svc/client";
import { startDevServer } from "@svc/dev-server";
import { SvcSpanProcessor } from "@svc/otel";
import { registerTelemetry } from "ai";
import { DATASET, runExperiment } from "./experiment.ts";
import { runPipeline } from "./pipeline.ts";
import { printTree, short } from "./print.ts";

/** The whole demo must finish within this time; CI runs it. */
const DEADLINE_MS = 60_000;

async function main(): Promise<void> {
  const started = Date.now();
  const server = await startDevServer({ port: 0 });
  console.log(`svc dev server on ${server.url} (keys ${server.publicKey} / ${server.secretKey})`);
  const credentials = { baseUrl: server.url, publicKey: server.publicKey, secretKey: server.secretKey };

  // The span processor sends observations to the server over OTLP; the client does everything else.
  const provider = new NodeTracerProvider({ spanProcessors: [new SvcSpanProcessor(credentials)] });
  provider.register();
  // The AI SDK's spans go through the same provider, nested under svc observations.
  registerTelemetry(new OpenTelemetry());
  const svc = new SvcClient(credentials);

  try {
    // A prompt kept on the server, fetched back (and compiled inside the pipeline).
    await svc.prompt.create({
      name: "quickstart-answer",
      type: "text",
      prompt: "Answer in one sentence, using the context.\nContext: {{context}}\nQuestion: {{question}}",
      labels: ["production"],
    });
    const prompt = await svc.prompt.get("quickstart-answer", { type: "text" });

    const traceId = await runPipeline(svc, prompt, "What do traces and scores record?");
    const experiment = await runExperiment(svc, prompt);

    // Everything recorded so far reaches the server before it is read back.
    await provider.forceFlush();
    await svc.score.flush();

    const { data: observations } = await svc.api.observations.getMany({
      traceId,
      fields: "core,basic,model,usage,prompt",
      limit: 100,
    });
    const { data: scores } = await svc.api.scores.getMany({ traceId });
    console.log(`\nTrace ${traceId}: ${observations.length} observations`);
    printTree(observations);
    scores.sort((a, b) => a.name.localeCompare(b.name));
    console.log(`  scores: ${scores.map((s) => `${s.name}=${short(s.value)}`).join(", ")}`);

    const { createdAt } = await svc.api.datasets.get(DATASET);
    const [summary] = (
      await svc.api.experiments.list({ fromStartTime: createdAt, id: experiment.experimentId, fields: "core,scores" })
    ).data;
    const { data: items } = await svc.api.experiments.listItems({
      fromStartTime: createdAt,
      experimentId: experiment.experimentId,
      fields: "core,io,scores",
    });
    console.log(`\nExperiment run "${summary?.name}" on dataset ${DATASET}: ${summary?.itemCount} items`);
    items.sort((a, b) => String(a.input).localeCompare(String(b.input)));
    for (const item of items) {
      const itemScores = (item.scores ?? []).map((s) => `${s.name}=${short(s.value)}`).join(", ");
      console.log(`  ${short(item.input, 44).padEnd(44)} -> ${short(item.output, 40).padEnd(40)} ${itemScores}`);
    }
    console.log(`  run scores: ${(summary?.scores ?? []).map((s) => `${s.name}=${short(s.value)}`).join(", ")}`);
    console.log(`\nDone in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  } finally {
    await provider.shutdown();
    await svc.score.shutdown();
    await server.close();
  }
}

const deadline = setTimeout(() => {
  console.error(`quickstart: not finished after ${DEADLINE_MS / 1000} s; stopping`);
  process.exit(1);
}, DEADLINE_MS);
deadline.unref();

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error("quickstart failed:", error);
    process.exit(1);
  },
);
