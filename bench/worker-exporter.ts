// A span exporter for experiments (`BENCH_SVC_WORKER`, see the README's "Export work in a worker thread"): v6's
// processor hands each batch to it, and it hands the batch to a worker thread (records of the spans, cloned by
// `postMessage()`), which encodes OTLP/JSON and gzips it; the body comes back transferred and is posted from this
// thread with `fetch`. What the export stage would do with a worker, without changing the product.
import { Worker } from "node:worker_threads";
import type { SinkTarget } from "./contenders/types.ts";
import type { Done, Item, Job } from "./worker-export-thread.ts";
import { toRecords } from "./worker-export-thread.ts";

export interface WorkerExporter {
  export(spans: Item["span"][], done: (result: { code: number; error?: Error }) => void): void;
  shutdown(): Promise<void>;
}

/** `sync`: the worker gzips the whole body with `gzipSync`; else the core's gzip stream on the thread pool. */
export function workerExporter(target: SinkTarget, sync: boolean): WorkerExporter {
  const worker = new Worker(new URL("./worker-export-thread.ts", import.meta.url));
  const url = `${target.baseUrl}/api/public/otel/v1/traces`;
  const headers = {
    "content-type": "application/json",
    "content-encoding": "gzip",
    authorization: `Basic ${Buffer.from(`${target.publicKey}:${target.secretKey}`).toString("base64")}`,
  };
  const waiting = new Map<number, { resolve: (bytes: Uint8Array) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  // The worker holds the process open only while a batch is in it: an idle worker does not keep it alive.
  worker.unref();
  const settle = (id: number) => {
    const entry = waiting.get(id);
    waiting.delete(id);
    if (waiting.size === 0) worker.unref();
    return entry;
  };
  worker.on("message", (message: Done | { ready: true }) => {
    if ("id" in message) settle(message.id)?.resolve(message.bytes);
  });
  const failAll = (error: Error) => {
    for (const id of [...waiting.keys()]) settle(id)?.reject(error);
  };
  worker.on("error", failAll);
  worker.on("exit", (code) => failAll(new Error(`the worker exited (code ${code})`)));
  return {
    export(spans, done) {
      const id = nextId++;
      const body = new Promise<Uint8Array>((resolve, reject) => waiting.set(id, { resolve, reject }));
      worker.ref();
      try {
        const items = spans.map((span) => ({ span, attributes: span.attributes }));
        const job: Job = { id, records: toRecords(items), sync };
        worker.postMessage(job);
      } catch (error) {
        settle(id)?.reject(error as Error);
      }
      body
        .then((bytes) => fetch(url, { method: "POST", headers, body: bytes as Uint8Array<ArrayBuffer> }))
        .then(
          async (response) => {
            await response.arrayBuffer();
            done(response.ok ? { code: 0 } : { code: 1, error: new Error(`status ${response.status}`) });
          },
          (error: unknown) => done({ code: 1, error: error as Error }),
        );
    },
    shutdown: async () => {
      await worker.terminate();
    },
  };
}
