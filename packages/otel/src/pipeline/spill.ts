import { getGlobalLogger, httpRequest, outcomeOf, Spill, type SpillSettings, spillSettings } from "@svc/core";
import { PROCESSOR_NAME, type ProcessorConfig } from "../config.js";
import type { EnrichStage, OutgoingSpan } from "./enrich.js";
import type { ExportStage } from "./export.js";
import type { UsageStage } from "./usage.js";

/**
 * The span processor's spill directory, when `spillDir` (or SVC_SPILL_DIR) names one on a server runtime: a batch is
 * written with its usage attributes, enriched (masked, media replaced) and encoded as the export request's body, with
 * its content type and encoding; it is sent again to the same endpoint with the processor's current keys. Undefined
 * without a directory, where the runtime has no disk, and with a custom `exporter` (whose wire format the processor
 * does not know).
 */
export function spanSpill(
  config: ProcessorConfig,
  usage: UsageStage,
  enrich: EnrichStage,
  exporter: ExportStage,
): Spill<OutgoingSpan> | undefined {
  const settings: SpillSettings | undefined = spillSettings(PROCESSOR_NAME, config);
  if (settings === undefined) return undefined;
  if (config.exporter || config.cannotSend) {
    const why = config.exporter ? "with a custom exporter" : "when no span can be sent";
    getGlobalLogger().warn(
      `${PROCESSOR_NAME}: spillDir (SVC_SPILL_DIR) is ignored ${why}; spans that do not fit in the queue are dropped and counted`,
    );
    return undefined;
  }
  return new Spill<OutgoingSpan>(settings, {
    owner: PROCESSOR_NAME,
    items: "spans",
    identity: `${config.endpoint} ${config.publicKey ?? ""}`,
    encode: async (batch) => {
      // Given its usage and masked here, as when the batch is sent: nothing the mask removes reaches the disk.
      usage.stamp(batch);
      await enrich.enrich(batch);
      const { bytes, headers } = await exporter.encode(batch);
      const header = { contentType: headers["content-type"] ?? "application/json" };
      const encoding = headers["content-encoding"];
      return { body: bytes, header: encoding ? { ...header, contentEncoding: encoding } : header };
    },
    send: async (body, header, count, signal) => {
      const headers: Record<string, string> = { ...config.headers, "content-type": header.contentType };
      if (header.contentEncoding) headers["content-encoding"] = header.contentEncoding;
      const result = await httpRequest({
        method: "POST",
        url: config.endpoint,
        headers,
        body,
        attemptTimeoutMs: config.timeoutMs,
        maxRetries: 0,
        signal,
        background: true,
      });
      return outcomeOf(
        result,
        Array.from({ length: count }, (_, i) => i),
        "POST",
      );
    },
  });
}
