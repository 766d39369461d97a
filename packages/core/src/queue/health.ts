// What became of a queue's items: a batch's outcome, and the figures counted once from it (sent, dropped by reason,
// retries, spilled, replayed), read by `health()` and, on the meter provider the user names, by the
// `svc.delivery.*` OpenTelemetry metrics.
import {
  type BatchObservableResult,
  type MeterProvider,
  metrics,
  type Observable,
  ValueType,
} from "@opentelemetry/api";
import { type OptionSpec, objectOption } from "../config/options.js";
import { shared } from "../registry.js";
import { SDK_VERSION } from "../version.js";

/**
 * Why items were given up on: the queue was full, an item too large, the server rejected them or the keys, they were
 * still queued at shutdown, sampled out, could not be sent, or a spill directory's size or age bound removed them.
 */
export type DropReason =
  | "queueFull"
  | "tooLarge"
  | "rejected"
  | "auth"
  | "shutdown"
  | "sampledOut"
  | "failed"
  | "spillFull"
  | "spillExpired";

/** What went wrong on a delivery attempt, in words a log line can carry (host, path, status or code). */
export interface Fault {
  /** `HTTP 503 from cloud.svc.dev POST /api/public/otel/v1/traces`, `ECONNREFUSED on POST 127.0.0.1:3000/...` */
  description: string;
  kind: string;
  status?: number;
  code?: string;
  host?: string;
  /** What the user can do about it, one sentence, when there is something. */
  hint?: string;
}

/** What became of a batch. Items neither delivered, dropped nor retried are counted as delivered. */
export interface SendOutcome<T> {
  /** Items the server accepted. */
  delivered: number;
  /**
   * Items given up on, by cause; `logged` when the sender has already said so in its own words; `fault` when a
   * failed request was the cause (it becomes the last error of `health()`).
   */
  dropped?: readonly { count: number; reason: DropReason; detail: string; logged?: boolean; fault?: Fault }[];
  /** Items to try again after a wait (a retryable failure), with what went wrong. */
  retry?: { items: T[]; fault: Fault; retryAfterMs?: number };
}

/** What a delivery queue (spans, or scores) has done so far: a plain object, cheap to read at any time. */
export interface DeliveryHealth {
  /** Items waiting to be sent (including those waiting out a failure). */
  queued: number;
  /** Estimated bytes of the items waiting. */
  queuedBytes: number;
  /** Items in requests under way. */
  inFlight: number;
  /** Items the server accepted. */
  sent: number;
  /** Items given up on, by reason. */
  dropped: Record<DropReason, number>;
  /** Failed attempts that were retried. */
  retries: number;
  /** The last failed request, retried or given up on: the kind of failure, its status or error code, the host, when (no secret). */
  lastError:
    | { kind: string; status?: number; code?: string; host?: string; description: string; at: string }
    | undefined;
  /** When the server last accepted items (ISO 8601). */
  lastSuccessAt: string | undefined;
  /** Whether the component was shut down. */
  shutdown: boolean;
  /** Items written to the spill directory by this process (0 without one). */
  spilled: number;
  /** Items sent again from the spill directory by this process and accepted (0 without one). */
  replayed: number;
  /** Items of this kind in the spill directory now, by every process that shares it (0 without one). */
  onDisk: number;
}

/**
 * The counts of a queue that only grow, shared by the queue, its spill and the metrics, which keep them after the
 * queue is gone (`spilled` and `replayed` are absent in the counts of older copies of the core).
 */
export type DeliveryCounts = Pick<DeliveryHealth, "sent" | "retries" | "spilled" | "replayed" | "dropped">;

/** A fresh set of counts, all zero. */
export function deliveryCounts(): DeliveryCounts {
  const dropped = { queueFull: 0, tooLarge: 0, rejected: 0, auth: 0, shutdown: 0, sampledOut: 0, failed: 0 };
  return { sent: 0, retries: 0, spilled: 0, replayed: 0, dropped: { ...dropped, spillFull: 0, spillExpired: 0 } };
}

/** What the metrics read of a live queue besides its counts. */
export type Gauges = Pick<DeliveryHealth, "queued" | "queuedBytes" | "inFlight" | "onDisk">;

/** A delivery queue as the metrics see it: what its items are called (`spans`, `scores`) and what it holds now. */
export interface DeliverySource {
  readonly items: string;
  health(): Gauges;
}

/**
 * Where a component's delivery figures are observed as metrics: a `MeterProvider`, or `"global"` for the OpenTelemetry
 * global meter provider (looked up again each time a batch is sent, so one registered later, as `NodeSDK.start()`
 * does, is found). Without it nothing is observed.
 */
export type DeliveryMeterProvider = MeterProvider | "global";

/** How a `meterProvider` option is read: a `MeterProvider` (an object with `getMeter`), `"global"`, or nothing. */
export function meterProviderOption(): OptionSpec<DeliveryMeterProvider | undefined> {
  const provider = objectOption<MeterProvider>(["getMeter"], 'a MeterProvider (an object with getMeter) or "global"');
  return { ...provider, parse: (value) => (value === "global" ? { ok: true, value } : provider.parse(value)) };
}

interface Registration {
  readonly source: WeakRef<DeliverySource>;
  readonly items: string;
  /** Held strongly: what the queue counted is still counted once it is garbage collected. */
  readonly counts: DeliveryCounts;
}

/** The queues observed on one meter provider, the counts of those already gone per kind, and the instruments. */
interface Binding {
  readonly registrations: Set<Registration>;
  readonly retired: Map<string, DeliveryCounts>;
  boundTo: MeterProvider | undefined;
  unbind: (() => void) | undefined;
}

const newBinding = (): Binding => ({
  registrations: new Set(),
  retired: new Map(),
  boundTo: undefined,
  unbind: undefined,
});

// One for every copy of the core in the process: one set of instruments per meter provider, the figures summed per
// kind.
const state = shared("delivery-metrics", () => ({
  byProvider: new WeakMap<MeterProvider, Binding>(),
  global: newBinding(),
}));

/**
 * Makes a queue's figures observable on `target`; the queue is held weakly (a queue that is garbage collected stops
 * being observed) and its `counts` strongly, so the counters never go down. Without `target` nothing is observed:
 * the SDK's metrics never reach a meter provider the user did not name.
 */
export function observeDelivery(source: DeliverySource, counts: DeliveryCounts, target?: DeliveryMeterProvider): void {
  if (target === undefined) return;
  const s = state();
  let binding = target === "global" ? s.global : s.byProvider.get(target);
  if (binding === undefined) {
    binding = newBinding();
    s.byProvider.set(target as MeterProvider, binding);
  }
  binding.registrations.add({ source: new WeakRef(source), items: source.items, counts });
  bind(binding, target === "global" ? metrics.getMeterProvider() : target);
}

/**
 * Moves the instruments of the `"global"` queues to the global meter provider when it is another one than last time
 * (the application may register its provider after the SDK's components were made). One lookup when nothing changed.
 */
export function bindDeliveryMetrics(): void {
  const { global } = state();
  if (global.registrations.size > 0) bind(global, metrics.getMeterProvider());
}

function bind(binding: Binding, provider: MeterProvider): void {
  if (binding.boundTo === provider) return;
  binding.unbind?.();
  binding.boundTo = provider;
  binding.unbind = undefined;
  try {
    binding.unbind = createInstruments(provider, binding);
  } catch {
    // A meter provider that throws gets no instruments; delivery goes on.
  }
}

type Figures = DeliveryCounts & Gauges;

/** The instruments (`svc.delivery.{name}`) and the figure each reads; `dropped` is observed per reason. */
const INSTRUMENTS: [name: string, kind: "gauge" | "counter", key: keyof Figures, description: string][] = [
  ["queued", "gauge", "queued", "Items waiting to be sent, including those waiting out a failure."],
  ["queued_bytes", "gauge", "queuedBytes", "Estimated bytes of the items waiting to be sent."],
  ["in_flight", "gauge", "inFlight", "Items in requests under way."],
  ["sent", "counter", "sent", "Items the server accepted."],
  ["dropped", "counter", "dropped", "Items given up on, by reason."],
  ["retries", "counter", "retries", "Failed delivery attempts that were retried."],
  ["spilled", "counter", "spilled", "Items written to the spill directory instead of being dropped."],
  ["replayed", "counter", "replayed", "Items sent again from the spill directory and accepted."],
  ["on_disk", "gauge", "onDisk", "Items in the spill directory, waiting to be sent again."],
];

function createInstruments(provider: MeterProvider, binding: Binding): () => void {
  const meter = provider.getMeter("svc-sdk", SDK_VERSION);
  const made = INSTRUMENTS.map(([name, kind, key, description]) => {
    const options = { valueType: ValueType.INT, unit: key === "queuedBytes" ? "By" : "{item}", description };
    const create = kind === "gauge" ? meter.createObservableGauge : meter.createObservableCounter;
    return { instrument: create.call(meter, `svc.delivery.${name}`, options), key };
  });
  const callback = (result: BatchObservableResult) => {
    for (const [items, figures] of totals(binding)) {
      const attributes = { "svc.delivery.items": items };
      for (const { instrument, key } of made) {
        const value = figures[key];
        if (typeof value === "number") result.observe(instrument, value, attributes);
        else
          for (const [reason, count] of Object.entries(value))
            result.observe(instrument, count, { ...attributes, "svc.delivery.drop_reason": reason });
      }
    }
  };
  const all: Observable[] = made.map((m) => m.instrument);
  meter.addBatchObservableCallback(callback, all);
  return () => meter.removeBatchObservableCallback(callback, all);
}

/**
 * The figures per kind of item: the gauges of the live queues summed, the counters of every queue ever observed (a
 * queue that was garbage collected leaves its counts behind).
 */
function totals({ registrations, retired }: Binding): Map<string, Figures> {
  const out = new Map<string, Figures>();
  const fresh = (): Figures => ({ queued: 0, queuedBytes: 0, inFlight: 0, onDisk: 0, ...deliveryCounts() });
  const at = <V>(map: Map<string, V>, items: string, make: () => V): V =>
    map.get(items) ?? (map.set(items, make()).get(items) as V);
  for (const registration of registrations) {
    const { items, counts } = registration;
    const source = registration.source.deref();
    if (source === undefined) {
      registrations.delete(registration);
      add(at(retired, items, deliveryCounts), counts);
      continue;
    }
    const { queued, queuedBytes, inFlight, onDisk = 0 } = source.health();
    add(at(out, items, fresh), { queued, queuedBytes, inFlight, onDisk, ...counts });
  }
  for (const [items, counts] of retired) add(at(out, items, fresh), counts);
  return out;
}

/** Adds every count of `from` (nested ones too) into `into`; a count `into` lacks (an older copy's) starts at 0. */
function add(into: object, from: object): void {
  const target = into as Record<string, unknown>;
  for (const [key, value] of Object.entries(from)) {
    if (typeof value === "number") target[key] = ((target[key] as number | undefined) ?? 0) + value;
    else if (typeof value === "object" && value !== null) {
      target[key] ??= {};
      add(target[key] as object, value);
    }
  }
}
