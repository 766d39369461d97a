import { onTestFinished, vi } from "vitest";
import { type Reply, type ReplyFn, type SeenRequest, startServer, type TestServer } from "./http-server.ts";

/** `Retry-After: 0`: retry at once, so that tests of retries need not wait. */
export const RETRY_NOW = { "retry-after": "0" };

/** A reply that never comes: the server accepts the connection and the request, and stays silent. */
export const SILENT: ReplyFn = () => new Promise<Reply>(() => {});

/**
 * A reply function for the requests that `matches` selects: the first requests get `steps` in order, the later ones
 * `after`; other requests get `other`.
 */
export function script(
  steps: Reply[],
  {
    after = { status: 200, json: {} },
    matches = () => true,
    other = { status: 200, json: {} },
  }: {
    after?: Reply | ReplyFn;
    matches?: (req: SeenRequest) => boolean;
    other?: Reply | ReplyFn;
  } = {},
): ReplyFn {
  let index = 0;
  return (req) => {
    if (!matches(req)) return typeof other === "function" ? other(req) : other;
    const step = steps[index++];
    if (step !== undefined) return step;
    return typeof after === "function" ? after(req) : after;
  };
}

/**
 * An outage of `seconds` on the SDK's clock, without the wait: `Date` is faked for the test, and each attempt after
 * a refused one finds the clock `stepSeconds` later (the wait between attempts, taken at once). The requests that
 * `matches` selects are refused with 503 and `Retry-After: 0` until the clock has moved `seconds` since the first
 * one, and accepted afterwards. Other requests get 200.
 */
export function clockedOutage(
  seconds: number,
  { stepSeconds = 2.5, matches = () => true }: { stepSeconds?: number; matches?: (req: SeenRequest) => boolean } = {},
): ReplyFn {
  vi.useFakeTimers({ toFake: ["Date"] });
  onTestFinished(() => {
    vi.useRealTimers();
  });
  let start: number | undefined;
  let refused = false;
  return (req) => {
    if (!matches(req)) return { status: 200, json: {} };
    if (refused) vi.setSystemTime(Date.now() + stepSeconds * 1000);
    start ??= Date.now();
    refused = Date.now() - start < seconds * 1000;
    return refused ? { status: 503, json: { message: "down" }, headers: RETRY_NOW } : { status: 200, json: {} };
  };
}

/** A scripted server, closed when the test ends. */
export async function faultServer(reply: ReplyFn): Promise<TestServer> {
  const server = await startServer(reply);
  onTestFinished(() => server.close());
  return server;
}

/** A server that is down (connections refused) until `up()` starts it on the same port. */
export async function downServer(reply: ReplyFn): Promise<{ url: string; up: () => Promise<TestServer> }> {
  const probe = await startServer();
  const url = probe.url;
  const port = Number(new URL(url).port);
  await probe.close();
  let started: TestServer | undefined;
  onTestFinished(() => started?.close());
  return {
    url,
    up: async () => {
      started = await startServer(reply, { port });
      return started;
    },
  };
}

/** Runs `fn` and says how long it took, in milliseconds. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}
