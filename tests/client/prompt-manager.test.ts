import { ChatPromptClient, NotFoundError, SvcClient, TextPromptClient } from "@svc/client";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { type Reply, type SeenRequest, startServer, type TestServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";

const textPrompt = (version: number, prompt = `v${version}`) => ({
  name: "greeting",
  version,
  type: "text",
  prompt,
  config: {},
  labels: ["production"],
  tags: [],
});

async function setup(reply: (req: SeenRequest) => Reply | Promise<Reply>) {
  const server = await startServer(reply);
  onTestFinished(() => server.close());
  const svc = new SvcClient({ baseUrl: server.url, publicKey: "pk", secretKey: "sk" });
  return { server, svc };
}

function promptGets(server: TestServer): SeenRequest[] {
  return server.seen.filter((r) => r.method === "GET" && r.path.startsWith("/api/public/v2/prompts/"));
}

function useFakeClock() {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2026-01-01T00:00:00Z"));
  onTestFinished(() => {
    vi.useRealTimers();
  });
}

describe("PromptManager.get", () => {
  it("fetches a prompt by name and wraps it by type", async () => {
    const { server, svc } = await setup(() => ({ json: textPrompt(1, "Hi {{name}}") }));
    const prompt = await svc.prompt.get("greeting");

    expect(prompt).toBeInstanceOf(TextPromptClient);
    expect(prompt).toMatchObject({ name: "greeting", version: 1, labels: ["production"], isFallback: false });
    expect((prompt as TextPromptClient).compile({ name: "Ann" })).toBe("Hi Ann");
    expect(promptGets(server).map((r) => r.url)).toEqual(["/api/public/v2/prompts/greeting"]);
  });

  it("passes version or label as query parameters and URL-encodes folder names", async () => {
    const { server, svc } = await setup(() => ({ json: textPrompt(2) }));
    await svc.prompt.get("folder/p", { version: 2 });
    await svc.prompt.get("folder/p", { label: "staging" });
    expect(promptGets(server).map((r) => r.url)).toEqual([
      "/api/public/v2/prompts/folder%2Fp?version=2",
      "/api/public/v2/prompts/folder%2Fp?label=staging",
    ]);
  });

  it("returns a chat client for a chat prompt", async () => {
    const chat = { ...textPrompt(1), type: "chat", prompt: [{ role: "user", content: "{{q}}" }] };
    const { svc } = await setup(() => ({ json: chat }));
    const prompt = await svc.prompt.get("greeting", { type: "chat" });
    expect(prompt).toBeInstanceOf(ChatPromptClient);
    expect(prompt.compile({ q: "why" })).toEqual([{ role: "user", content: "why" }]);
  });

  it("serves a cached prompt within the TTL without fetching again, per name and version or label", async () => {
    useFakeClock();
    const { server, svc } = await setup(() => ({ json: textPrompt(1) }));
    await svc.prompt.get("greeting");
    vi.advanceTimersByTime(59_000);
    await svc.prompt.get("greeting");
    await svc.prompt.get("greeting", { label: "production" });
    await svc.prompt.get("greeting", { version: 1 });
    expect(promptGets(server)).toHaveLength(2);
  });

  it("honours cacheTtlSeconds per call", async () => {
    useFakeClock();
    const { server, svc } = await setup(() => ({ json: textPrompt(1) }));
    await svc.prompt.get("greeting", { cacheTtlSeconds: 300 });
    vi.advanceTimersByTime(120_000);
    await svc.prompt.get("greeting", { cacheTtlSeconds: 300 });
    expect(promptGets(server)).toHaveLength(1);
  });

  it("fetches on every call when cacheTtlSeconds is 0", async () => {
    let version = 0;
    const { server, svc } = await setup(() => ({ json: textPrompt(++version) }));
    const first = await svc.prompt.get("greeting", { cacheTtlSeconds: 0 });
    const second = await svc.prompt.get("greeting", { cacheTtlSeconds: 0 });
    expect([first.version, second.version]).toEqual([1, 2]);
    expect(promptGets(server)).toHaveLength(2);
  });

  it("serves the stale prompt after expiry while one background refresh, shared by concurrent callers, runs", async () => {
    useFakeClock();
    let version = 0;
    let release: () => void = () => {};
    const { server, svc } = await setup(async () => {
      version += 1;
      if (version === 2) await new Promise<void>((resolve) => (release = resolve));
      return { json: textPrompt(version) };
    });
    await svc.prompt.get("greeting");
    vi.advanceTimersByTime(61_000);

    const stale = await Promise.all([
      svc.prompt.get("greeting"),
      svc.prompt.get("greeting"),
      svc.prompt.get("greeting"),
    ]);
    expect(stale.map((p) => p.version)).toEqual([1, 1, 1]);
    await vi.waitFor(() => expect(promptGets(server)).toHaveLength(2), { timeout: 2000, interval: 5 });
    expect(await svc.prompt.get("greeting").then((p) => p.version)).toBe(1);
    release();

    await vi.waitFor(async () => expect((await svc.prompt.get("greeting")).version).toBe(2), {
      timeout: 2000,
      interval: 5,
    });
    expect(promptGets(server)).toHaveLength(2);
  });

  it("keeps serving the stale prompt and logs a warning when the refresh fails", async () => {
    useFakeClock();
    const logs = captureLogs();
    const { server, svc } = await setup(() => ({ json: textPrompt(1) }));
    await svc.prompt.get("greeting");
    server.reply(() => ({ status: 404, json: { message: "gone" } }));
    vi.advanceTimersByTime(61_000);

    expect((await svc.prompt.get("greeting")).version).toBe(1);
    await vi.waitFor(
      () => expect(logs).toContainEqual({ level: "warn", message: expect.stringContaining("refresh") }),
      {
        timeout: 2000,
        interval: 5,
      },
    );
    expect((await svc.prompt.get("greeting")).version).toBe(1);
  });

  it("shares one fetch between concurrent cold callers", async () => {
    const { server, svc } = await setup(() => ({ json: textPrompt(1), delayMs: 20 }));
    const got = await Promise.all([svc.prompt.get("greeting"), svc.prompt.get("greeting")]);
    expect(got[0]).toBe(got[1]);
    expect(promptGets(server)).toHaveLength(1);
  });

  it("returns the text fallback, marked as a fallback, when nothing can be fetched", async () => {
    const { svc } = await setup(() => ({ status: 500, json: {} }));
    const prompt = await svc.prompt.get("greeting", { fallback: "Hello {{name}}", label: "staging", maxRetries: 0 });

    expect(prompt).toBeInstanceOf(TextPromptClient);
    expect(prompt).toMatchObject({ isFallback: true, version: 0, labels: ["staging"], config: {}, tags: [] });
    expect((prompt as TextPromptClient).compile({ name: "Ann" })).toBe("Hello Ann");
  });

  it("returns a chat fallback when the call asks for a chat prompt, and does not cache it", async () => {
    const { server, svc } = await setup(() => ({ status: 404, json: { message: "no" } }));
    const fallback = [{ role: "system", content: "Be {{tone}}" }];
    const prompt = await svc.prompt.get("greeting", { type: "chat", fallback, version: 4 });

    expect(prompt).toBeInstanceOf(ChatPromptClient);
    expect(prompt).toMatchObject({ isFallback: true, version: 4 });
    expect(prompt.compile({ tone: "kind" })).toEqual([{ role: "system", content: "Be kind" }]);
    server.reply(() => ({ json: textPrompt(4) }));
    expect((await svc.prompt.get("greeting", { type: "chat", fallback, version: 4 })).isFallback).toBe(false);
  });

  it("throws the typed error when the fetch fails and there is no fallback", async () => {
    const { svc } = await setup(() => ({ status: 404, json: { message: "Prompt not found" } }));
    await expect(svc.prompt.get("greeting")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("passes maxRetries and fetchTimeoutMs to the request", async () => {
    const { server, svc } = await setup(() => ({ status: 503, json: {}, headers: { "retry-after": "0" } }));
    await expect(svc.prompt.get("greeting", { maxRetries: 1 })).rejects.toThrow();
    expect(promptGets(server)).toHaveLength(2);

    server.reply(() => ({ json: textPrompt(1), delayMs: 500 }));
    await expect(svc.prompt.get("slow", { fetchTimeoutMs: 50, maxRetries: 0 })).rejects.toThrow(/Timeout/);
  });
});

describe("PromptManager.create and update", () => {
  it("creates a chat prompt, typing messages and placeholders", async () => {
    const { server, svc } = await setup((req) => ({
      json: { ...(req.json as object), version: 1, labels: [], tags: [], config: {} },
    }));
    const created = await svc.prompt.create({
      name: "c",
      type: "chat",
      prompt: [
        { role: "user", content: "{{q}}" },
        { type: "placeholder", name: "history" },
      ],
      labels: ["production"],
    });

    expect(server.seen[0]?.method).toBe("POST");
    expect(server.seen[0]?.path).toBe("/api/public/v2/prompts");
    expect(server.seen[0]?.json).toEqual({
      name: "c",
      type: "chat",
      labels: ["production"],
      prompt: [
        { role: "user", content: "{{q}}", type: "chatmessage" },
        { type: "placeholder", name: "history" },
      ],
    });
    expect(created).toBeInstanceOf(ChatPromptClient);
  });

  it("creates a text prompt with type text by default", async () => {
    const { server, svc } = await setup((req) => ({
      json: { ...(req.json as object), version: 1, labels: [], tags: [], config: {} },
    }));
    const created = await svc.prompt.create({ name: "t", prompt: "Hi" });
    expect(server.seen[0]?.json).toEqual({ name: "t", prompt: "Hi", type: "text" });
    expect(created).toBeInstanceOf(TextPromptClient);
  });

  it("does not cache a prompt read while it was being relabelled", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let current = 1;
    const { server, svc } = await setup(async (req) => {
      if (req.method === "PATCH") {
        current = 2;
        return { json: textPrompt(2) };
      }
      const labelled = current; // the version labelled production when the request arrived
      if (promptGets(server).length === 1) await gate;
      return { json: textPrompt(labelled) };
    });
    const first = svc.prompt.get("greeting");
    await vi.waitFor(() => expect(promptGets(server)).toHaveLength(1), { timeout: 2000, interval: 5 });
    await svc.prompt.update({ name: "greeting", version: 2, newLabels: ["production"] });
    release();

    expect((await first).version).toBe(1);
    expect((await svc.prompt.get("greeting")).version).toBe(2);
    expect(promptGets(server)).toHaveLength(2);
  });

  it("updates labels through PATCH and refetches the prompt on the next get", async () => {
    const { server, svc } = await setup((req) => ({ json: req.method === "PATCH" ? textPrompt(2) : textPrompt(1) }));
    await svc.prompt.get("greeting");
    await svc.prompt.update({ name: "greeting", version: 2, newLabels: ["production"] });
    await svc.prompt.get("greeting");

    const patch = server.seen.find((r) => r.method === "PATCH");
    expect(patch?.path).toBe("/api/public/v2/prompts/greeting/versions/2");
    expect(patch?.json).toEqual({ newLabels: ["production"] });
    expect(promptGets(server)).toHaveLength(2);
  });
});
