import {
  isDefaultExportSpan,
  isGenAISpan,
  isKnownLLMInstrumentor,
  isSvcSpan,
  KNOWN_LLM_INSTRUMENTATION_SCOPE_PREFIXES,
} from "@svc/otel";
import { describe, expect, it } from "vitest";
import { endedSpan } from "../support/llm-spans.ts";

describe("default span filter", () => {
  it("keeps spans of the svc tracer", () => {
    const span = endedSpan("svc-sdk");
    expect(isSvcSpan(span)).toBe(true);
    expect(isDefaultExportSpan(span)).toBe(true);
  });

  it("keeps spans with gen_ai attributes from any scope", () => {
    const span = endedSpan("my-http", { "gen_ai.request.model": "m" });
    expect(isGenAISpan(span)).toBe(true);
    expect(isDefaultExportSpan(span)).toBe(true);
  });

  it("matches known scopes exactly or by dotted prefix, and 'ai' only exactly", () => {
    expect(isKnownLLMInstrumentor(endedSpan("openinference.instrumentation.openai"))).toBe(true);
    expect(isKnownLLMInstrumentor(endedSpan("ai"))).toBe(true);
    expect(isKnownLLMInstrumentor(endedSpan("ai.custom"))).toBe(false);
    expect(isKnownLLMInstrumentor(endedSpan("openinferencex"))).toBe(false);
  });

  it("matches every listed prefix, exactly and dotted, and no near miss", () => {
    for (const prefix of KNOWN_LLM_INSTRUMENTATION_SCOPE_PREFIXES.filter((entry) => !entry.endsWith("*"))) {
      expect(isKnownLLMInstrumentor(endedSpan(prefix)), prefix).toBe(true);
      expect(isKnownLLMInstrumentor(endedSpan(`${prefix}.sub.module`)), `${prefix}.sub.module`).toBe(prefix !== "ai");
      for (const miss of [
        `${prefix}x`,
        `x${prefix}`,
        `${prefix}-sub`,
        ` ${prefix}`,
        `${prefix}\n`,
        prefix.toUpperCase(),
      ])
        expect(isKnownLLMInstrumentor(endedSpan(miss)), JSON.stringify(miss)).toBe(false);
    }
    // A dot in a prefix is a dot, not any character.
    expect(isKnownLLMInstrumentor(endedSpan("opentelemetryXinstrumentation.openai"))).toBe(false);
    expect(isKnownLLMInstrumentor(endedSpan(""))).toBe(false);
  });

  it("drops plain infrastructure spans", () => {
    expect(isDefaultExportSpan(endedSpan("@opentelemetry/instrumentation-http"))).toBe(false);
  });
});
