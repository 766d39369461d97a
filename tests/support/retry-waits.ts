import { setTransportInterceptor } from "@svc/core";
import { onTestFinished } from "vitest";

/**
 * Records the transport's waits between retries instead of waiting them, through its test hook (the requests still
 * go to the network), until the test ends. `wait` replaces the recording, for a test that needs the wait itself.
 */
export function recordRetryWaits(wait?: (ms: number, signal?: AbortSignal) => Promise<void>): number[] {
  const delays: number[] = [];
  setTransportInterceptor({
    wait: async (ms, signal) => {
      delays.push(ms);
      await wait?.(ms, signal);
    },
  });
  onTestFinished(() => setTransportInterceptor(undefined));
  return delays;
}
