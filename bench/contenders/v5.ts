// The previous major as users install it from npm: @langfuse/tracing, @langfuse/otel, @langfuse/client 5.x.
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { type LangfuseAgent, type LangfuseChain, setLangfuseTracerProvider, startObservation } from "@langfuse/tracing";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { INPUTS, METADATA, OUTPUTS, STEPS, scoreBody } from "../payload.ts";
import type { ScoresContender, SinkTarget, SpansContender } from "./types.ts";

export function spans(target: SinkTarget): SpansContender {
  const processor = new LangfuseSpanProcessor({ ...target });
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  setLangfuseTracerProvider(provider);
  const attrs = (i: number) => ({ input: INPUTS[i % INPUTS.length], metadata: METADATA });
  const out = (i: number) => ({ output: OUTPUTS[i % OUTPUTS.length] });
  return {
    trace(i) {
      const k = i * 10;
      const root: LangfuseAgent = startObservation("agent", attrs(k), { asType: "agent" });
      for (let s = 0; s < STEPS; s++) {
        const chain: LangfuseChain = root.startObservation(`step-${s}`, attrs(k + 3 * s + 1), { asType: "chain" });
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
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** The client is loaded only here, so the spans workloads run without it, as on the floor. */
export async function scores(target: SinkTarget): Promise<ScoresContender> {
  const { LangfuseClient } = await import("@langfuse/client");
  const client = new LangfuseClient({ ...target });
  return {
    create(i) {
      client.score.create(scoreBody(i, "t".repeat(32)));
    },
    flush: () => client.score.flush(),
    shutdown: () => client.shutdown(),
  };
}
