// svc v6 from this workspace: @svc/tracing, @svc/otel, @svc/client.
import { BasicTracerProvider, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { SvcSpanProcessor } from "@svc/otel";
import { setSvcTracerProvider, startObservation } from "@svc/tracing";
import { INPUTS, METADATA, OUTPUTS, STEPS, scoreBody } from "../payload.ts";
import { workerExporter } from "../worker-exporter.ts";
import type { ScoresContender, SinkTarget, SpansContender } from "./types.ts";

export function spans(target: SinkTarget): SpansContender {
  // BENCH_SVC_OPTIONS (JSON) passes extra processor options, for experiments; the suite runs the defaults.
  const extra = JSON.parse(process.env.BENCH_SVC_OPTIONS ?? "{}") as Record<string, unknown>;
  // BENCH_SVC_WORKER (`sync` or `stream`) encodes and gzips each batch in a worker thread (worker-exporter.ts).
  const mode = process.env.BENCH_SVC_WORKER;
  if (mode) extra.exporter = workerExporter(target, mode === "sync");
  return svcCalls(new SvcSpanProcessor({ ...extra, ...target }) as unknown as SpanProcessor);
}

/** v6's tracing calls (`@svc/tracing`) on a provider with `processor`. */
export function svcCalls(processor: SpanProcessor): SpansContender {
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  // The provider is process-wide in v6: the last contender to set it would otherwise take every other's spans.
  const activate = () => setSvcTracerProvider(provider);
  activate();
  const attrs = (i: number) => ({ input: INPUTS[i % INPUTS.length], metadata: METADATA });
  const out = (i: number) => ({ output: OUTPUTS[i % OUTPUTS.length] });
  return {
    trace(i) {
      const k = i * 10;
      const root = startObservation("agent", attrs(k), { asType: "agent" });
      for (let s = 0; s < STEPS; s++) {
        const chain = root.startObservation(`step-${s}`, attrs(k + 3 * s + 1), { asType: "chain" });
        chain
          .startObservation("llm", { ...attrs(k + 3 * s + 2), model: "gpt-bench" }, { asType: "generation" })
          .update(out(k + 3 * s + 2))
          .end();
        chain
          .startObservation("tool", attrs(k + 3 * s + 3), { asType: "tool" })
          .update(out(k + 3 * s + 3))
          .end();
        chain.update(out(k + 3 * s + 1)).end();
      }
      root.update(out(k)).end();
    },
    activate,
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** The score queue of the client (`svc.score`), as the interface document names it. */
interface ScoreQueue {
  create(body: { name: string; value: number; traceId: string }): void;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** The client is loaded only here, so the spans workloads run without it, as on the floor. */
export async function scores(target: SinkTarget): Promise<ScoresContender> {
  const { SvcClient } = await import("@svc/client");
  const client = new SvcClient({ ...target });
  const score = (client as unknown as { score?: ScoreQueue }).score;
  if (!score) throw new Error("SvcClient has no score manager yet");
  return {
    create(i) {
      score.create(scoreBody(i, "t".repeat(32)));
    },
    flush: () => score.flush(),
    shutdown: () => score.shutdown(),
  };
}
