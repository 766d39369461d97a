// Type-checked as CommonJS (the `require` types, `.d.cts`): the public surface a TypeScript app touches first.
// @svc/langchain is checked in typed.mts only: @langchain/core's own CommonJS declarations do not type-check under
// node16 (they import an ESM-only package).
import { SvcClient, type SvcClientParams } from "@svc/client";
import { SvcBrowserClient } from "@svc/client/browser";
import { SvcSpanProcessor, type SvcSpanProcessorParams } from "@svc/otel";
import { type SvcGeneration, startObservation } from "@svc/tracing";

const clientParams: SvcClientParams = { flushAt: 10, timeout: 30 };
const processorParams: SvcSpanProcessorParams = { exportMode: "immediate", compression: "none" };

export function setUp(): { svc: SvcClient; processor: SvcSpanProcessor } {
  const generation: SvcGeneration = startObservation("typed", { model: "m" }, { asType: "generation" });
  generation.update({ usageDetails: { input: 1 } }).end();
  const browser = new SvcBrowserClient({ publicKey: "pk" });
  void browser;
  return {
    svc: new SvcClient(clientParams),
    processor: new SvcSpanProcessor(processorParams),
  };
}
