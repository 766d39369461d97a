// The worker of `worker-export.ts`, and the records its batches travel in. A ReadableSpan cannot be sent to a
// worker as it is (its span context is read through a method, its resource may hold promises and functions), so
// the app thread makes a plain record of the fields the OTLP encoders read; the attribute objects, hr-times, the
// resource's attributes and the scope are referenced, not copied, until `postMessage()` clones the whole batch (one
// structured clone keeps shared objects shared, so the spans of a batch still share one resource and scope).
import { getHeapStatistics } from "node:v8";
import { isMainThread, parentPort } from "node:worker_threads";
import { gzipSync } from "node:zlib";
import type { Attributes, HrTime } from "@opentelemetry/api";
import { encodeTraces } from "@svc/tracing/internal";
import { threadClock } from "./thread-clock.ts";

/**
 * `app`: the export stage's path while the application runs: one batch at a time on the app thread (encode in 48K
 * pieces, gzip on the thread pool). `app-flush`: the same with two batches at once, as while `forceFlush()` or
 * `shutdown()` waits. `worker`: each batch's spans copied to one worker (structured clone of plain records of the
 * fields the encoder reads), which runs the same encoder and gzip stream and transfers the body back.
 * `worker-sync`: the same handover; the worker encodes the whole body and gzips it with `zlib.gzipSync` on its own
 * thread (no thread-pool hop).
 */
export const MODES = ["app", "app-flush", "worker", "worker-sync"] as const;
export type Mode = (typeof MODES)[number];

/** An ended span as a plain, cloneable record. */
export interface SpanRecord {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  traceFlags: number;
  traceState: string | undefined;
  parentSpanId: string | undefined;
  parentIsRemote: boolean | undefined;
  startTime: HrTime;
  endTime: HrTime;
  attributes: Attributes;
  droppedAttributesCount: number | undefined;
  events: unknown[];
  droppedEventsCount: number | undefined;
  status: { code: number; message?: string };
  links: unknown[];
  droppedLinksCount: number | undefined;
  resource: { attributes: Attributes; schemaUrl?: string };
  scope: unknown;
}

/** What the export stage encodes: a span and the attributes to send. */
export interface Item {
  span: {
    name: string;
    kind: number;
    spanContext(): { traceId: string; spanId: string; traceFlags: number; traceState?: { serialize(): string } };
    parentSpanContext?: { spanId: string; isRemote?: boolean };
    startTime: HrTime;
    endTime: HrTime;
    attributes: Attributes;
    droppedAttributesCount?: number;
    events: unknown[];
    droppedEventsCount?: number;
    status: { code: number; message?: string };
    links: unknown[];
    droppedLinksCount?: number;
    resource: { attributes: Attributes; schemaUrl?: string };
    instrumentationScope?: unknown;
    instrumentationLibrary?: unknown;
  };
  attributes: Attributes;
}

/** The batch's items as records: one small object per span (and per resource), the values referenced. */
export function toRecords(items: readonly Item[]): SpanRecord[] {
  const resources = new Map<object, SpanRecord["resource"]>();
  const records: SpanRecord[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const { span, attributes } = items[i] as Item;
    const ctx = span.spanContext();
    const parent = span.parentSpanContext;
    let resource = resources.get(span.resource);
    if (!resource) {
      resource = { attributes: span.resource.attributes, schemaUrl: span.resource.schemaUrl };
      resources.set(span.resource, resource);
    }
    records[i] = {
      name: span.name,
      kind: span.kind,
      traceId: ctx.traceId,
      spanId: ctx.spanId,
      traceFlags: ctx.traceFlags,
      traceState: ctx.traceState?.serialize(),
      parentSpanId: parent?.spanId,
      parentIsRemote: parent?.isRemote,
      startTime: span.startTime,
      endTime: span.endTime,
      attributes,
      droppedAttributesCount: span.droppedAttributesCount,
      events: span.events,
      droppedEventsCount: span.droppedEventsCount,
      status: span.status,
      links: span.links, // the workload has none; a real handover would make records of their span contexts too
      droppedLinksCount: span.droppedLinksCount,
      resource,
      scope: span.instrumentationScope ?? span.instrumentationLibrary,
    };
  }
  return records;
}

/** Records back into what the encoder reads. */
export function fromRecords(records: readonly SpanRecord[]): Item[] {
  return records.map((r) => {
    const traceState = r.traceState === undefined ? undefined : { serialize: () => r.traceState as string };
    const ctx = { traceId: r.traceId, spanId: r.spanId, traceFlags: r.traceFlags, traceState };
    const span: Item["span"] = {
      name: r.name,
      kind: r.kind,
      spanContext: () => ctx,
      parentSpanContext: r.parentSpanId ? { spanId: r.parentSpanId, isRemote: r.parentIsRemote } : undefined,
      startTime: r.startTime,
      endTime: r.endTime,
      attributes: r.attributes,
      droppedAttributesCount: r.droppedAttributesCount,
      events: r.events,
      droppedEventsCount: r.droppedEventsCount,
      status: r.status,
      links: r.links,
      droppedLinksCount: r.droppedLinksCount,
      resource: r.resource,
      instrumentationScope: r.scope,
    };
    return { span, attributes: r.attributes };
  });
}

/** A batch to encode, and how: the same encoder and gzip stream as the app thread, or the whole body and gzipSync. */
export interface Job {
  id: number;
  records: SpanRecord[];
  sync: boolean;
}

/** A body, transferred back, and the worker's thread CPU time and heap after it. */
export interface Done {
  id: number;
  bytes: Uint8Array;
  threadCpuUs: number;
  heapUsed: number;
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  const clock = threadClock(); // this worker's thread
  /** One batch at a time, in the order they came, as the export stage encodes while the application runs. */
  let queue = Promise.resolve();
  const encode = async (job: Job) => {
    const items = fromRecords(job.records) as unknown as Parameters<typeof encodeTraces>[0];
    const bytes = job.sync
      ? gzipSync((await encodeTraces(items, "http/json", "none")).bytes)
      : (await encodeTraces(items, "http/json", "gzip")).bytes;
    // A body that is a view into a larger buffer is copied, so the transfer moves exactly its bytes.
    const body = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
    const done: Done = {
      id: job.id,
      bytes: body,
      threadCpuUs: clock.nowUs(),
      heapUsed: getHeapStatistics().used_heap_size,
    };
    port.postMessage(done, [body.buffer as ArrayBuffer]);
  };
  port.on("message", (job: Job) => {
    queue = queue.then(() => encode(job));
  });
  port.postMessage({ ready: true, threadCpuUs: clock.nowUs() });
}
