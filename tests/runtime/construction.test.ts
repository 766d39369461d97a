import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { SvcClient } from "@svc/client";
import { SvcBrowserClient } from "@svc/client/browser";
import { CallbackHandler } from "@svc/langchain";
import { SvcSpanProcessor } from "@svc/otel";
import { installSvcTestKit } from "@svc/otel/testing";
import { afterEach, describe, expect, it } from "vitest";

// Cloudflare Workers forbid timers, random values, AbortController and I/O at module scope, where every README
// builds these objects: constructing them must use none of those.

type Global = Record<string, unknown>;
const g = globalThis as unknown as Global;
const used: string[] = [];
const restore: (() => void)[] = [];

/** Records every use of `owner[name]` (a call, or `new`) until the test ends; the original still runs. */
function watch(owner: Global, name: string, label: string): void {
  const original = owner[name] as (...args: unknown[]) => unknown;
  const watched: typeof original = new Proxy(original, {
    apply(target, self, args) {
      used.push(label);
      return Reflect.apply(target, self, args);
    },
    construct(target, args, newTarget): object {
      used.push(label);
      return Reflect.construct(target, args, newTarget === watched ? target : newTarget);
    },
  });
  owner[name] = watched;
  restore.push(() => {
    owner[name] = original;
  });
}

/** Watches the operations a Worker forbids at module scope, runs `build`, and returns what it used. */
function usedWhile(build: () => unknown): string[] {
  used.length = 0;
  for (const name of ["setTimeout", "setInterval", "setImmediate", "fetch", "AbortController"]) watch(g, name, name);
  watch(AbortSignal as unknown as Global, "timeout", "AbortSignal.timeout");
  watch(Math as unknown as Global, "random", "Math.random");
  watch(crypto as unknown as Global, "getRandomValues", "crypto.getRandomValues");
  watch(crypto as unknown as Global, "randomUUID", "crypto.randomUUID");
  try {
    build();
  } finally {
    for (const undo of restore.splice(0).reverse()) undo();
  }
  return [...used];
}

afterEach(() => {
  for (const undo of restore.splice(0).reverse()) undo();
});

const connection = { baseUrl: "http://127.0.0.1:9", publicKey: "pk-1", secretKey: "sk-1" };

describe("constructing is free: no timer, random value, AbortController or request", () => {
  it("SvcSpanProcessor", () => {
    let processor: SvcSpanProcessor | undefined;
    expect(usedWhile(() => (processor = new SvcSpanProcessor(connection)))).toEqual([]);
    expect(processor?.health().queued).toBe(0);
  });

  it("SvcSpanProcessor in immediate mode, with media upload", () => {
    expect(usedWhile(() => new SvcSpanProcessor({ ...connection, exportMode: "immediate" }))).toEqual([]);
  });

  it("SvcClient", () => {
    expect(usedWhile(() => new SvcClient(connection))).toEqual([]);
  });

  it("SvcBrowserClient", () => {
    expect(usedWhile(() => new SvcBrowserClient({ publicKey: "pk-1", baseUrl: connection.baseUrl }))).toEqual([]);
  });

  it("CallbackHandler", () => {
    expect(usedWhile(() => new CallbackHandler({ sessionId: "s-1" }))).toEqual([]);
  });

  it("the test kit", async () => {
    let kit: Awaited<ReturnType<typeof installSvcTestKit>> | undefined;
    expect(usedWhile(() => (kit = installSvcTestKit({ provider: BasicTracerProvider })))).toEqual([]);
    await kit?.uninstall();
  });
});
