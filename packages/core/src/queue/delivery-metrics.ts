import {
  type BatchObservableResult,
  type MeterProvider,
  metrics,
  type Observable,
  ValueType,
} from "@opentelemetry/api";
import { globalSlot } from "../log/slot.js";
import { SDK_VERSION } from "../version.js";
import type { DeliveryHealth } from "./batch-queue.js";
import type { DropReason } from "./delivery-log.js";

/** A delivery queue as the metrics see it: what its items are called and its figures. */
export interface DeliverySource {
  /** `spans` or `scores`: the value of the {@link DELIVERY_ITEMS_ATTRIBUTE} attribute. */
  readonly items: string;
  health(): DeliveryHealth;
}

/** Names of the instruments, all observed from the queues' `health()` when a reader collects. */
export const DELIVERY_METRICS = {
  queued: "svc.delivery.queued",
  queuedBytes: "svc.delivery.queued_bytes",
  inFlight: "svc.delivery.in_flight",
  sent: "svc.delivery.sent",
  dropped: "svc.delivery.dropped",
  retries: "svc.delivery.retries",
} as const;

/** The attribute that tells spans from scores on every instrument. */
export const DELIVERY_ITEMS_ATTRIBUTE = "svc.delivery.items";
/** The attribute that carries the {@link DropReason} on `svc.delivery.dropped`. */
export const DROP_REASON_ATTRIBUTE = "svc.delivery.drop_reason";

interface MetricsState {
  sources: Set<WeakRef<DeliverySource>>;
  /** The meter provider the instruments were last created on. */
  boundTo: MeterProvider | undefined;
  /** Removes the callback from that provider's meter. */
  unbind: (() => void) | undefined;
}

// One registry for every copy of the core in the process: one set of instruments, the figures summed per kind.
const state = globalSlot<MetricsState>(
  { name: "svc.delivery-metrics", version: 1, holds: "delivery metrics instruments" },
  () => ({
    sources: new Set(),
    boundTo: undefined,
    unbind: undefined,
  }),
);

/**
 * Makes a queue's figures observable through the OpenTelemetry metrics API; held weakly, so a queue that is garbage
 * collected stops being observed. Nothing is created until {@link bindDeliveryMetrics} finds a meter provider.
 */
export function observeDelivery(source: DeliverySource): void {
  state().sources.add(new WeakRef(source));
  bindDeliveryMetrics();
}

/**
 * Creates the instruments on the global meter provider when it is another one than last time (the application may
 * register its provider after the SDK's components were made). Without a provider the API's no-op one answers and
 * nothing is recorded. Cheap: one global lookup when nothing changed.
 */
export function bindDeliveryMetrics(): void {
  const provider = metrics.getMeterProvider();
  const s = state();
  if (s.boundTo === provider) return;
  s.unbind?.();
  s.boundTo = provider;
  s.unbind = undefined;
  try {
    s.unbind = createInstruments(provider, s);
  } catch {
    // A meter provider that throws gets no instruments; delivery goes on.
  }
}

/** The instruments, each read from a queue's health (`svc.delivery.dropped`, counted per reason, apart). */
const FIGURES: {
  name: string;
  kind: "gauge" | "counter";
  description: string;
  read?: (h: DeliveryHealth) => number;
  unit?: string;
}[] = [
  {
    name: DELIVERY_METRICS.queued,
    kind: "gauge",
    description: "Items waiting to be sent, including those waiting out a failure.",
    read: (h) => h.queued,
  },
  {
    name: DELIVERY_METRICS.queuedBytes,
    kind: "gauge",
    description: "Estimated bytes of the items waiting to be sent.",
    unit: "By",
    read: (h) => h.queuedBytes,
  },
  {
    name: DELIVERY_METRICS.inFlight,
    kind: "gauge",
    description: "Items in requests under way.",
    read: (h) => h.inFlight,
  },
  { name: DELIVERY_METRICS.sent, kind: "counter", description: "Items the server accepted.", read: (h) => h.sent },
  { name: DELIVERY_METRICS.dropped, kind: "counter", description: "Items given up on, by reason." },
  {
    name: DELIVERY_METRICS.retries,
    kind: "counter",
    description: "Failed delivery attempts that were retried.",
    read: (h) => h.retries,
  },
];

function createInstruments(provider: MeterProvider, s: MetricsState): () => void {
  const meter = provider.getMeter("svc-sdk", SDK_VERSION);
  const made = FIGURES.map((figure) => {
    const options = {
      valueType: ValueType.INT,
      unit: figure.unit ?? "{item}",
      description: figure.description,
    };
    const instrument =
      figure.kind === "gauge"
        ? meter.createObservableGauge(figure.name, options)
        : meter.createObservableCounter(figure.name, options);
    return { instrument, read: figure.read };
  });
  const dropped = made[FIGURES.findIndex((f) => f.name === DELIVERY_METRICS.dropped)]!.instrument;
  const callback = (result: BatchObservableResult) => {
    for (const [items, figures] of totals(s)) {
      const attributes = { [DELIVERY_ITEMS_ATTRIBUTE]: items };
      for (const { instrument, read } of made) if (read) result.observe(instrument, read(figures), attributes);
      for (const reason of Object.keys(figures.dropped) as DropReason[])
        result.observe(dropped, figures.dropped[reason], { ...attributes, [DROP_REASON_ATTRIBUTE]: reason });
    }
  };
  const all: Observable[] = made.map((m) => m.instrument);
  meter.addBatchObservableCallback(callback, all);
  return () => meter.removeBatchObservableCallback(callback, all);
}

/** The figures of the live queues, summed per kind of item. */
function totals(s: MetricsState): Map<string, DeliveryHealth> {
  const out = new Map<string, DeliveryHealth>();
  for (const ref of s.sources) {
    const source = ref.deref();
    if (source === undefined) {
      s.sources.delete(ref);
      continue;
    }
    const health = source.health();
    const sum = out.get(source.items);
    out.set(source.items, sum === undefined ? health : addHealth(sum, health));
  }
  return out;
}

/** Two sets of figures as one: counts added, the later error and success kept, shut down when both are. */
function addHealth(a: DeliveryHealth, b: DeliveryHealth): DeliveryHealth {
  const dropped = { ...a.dropped };
  for (const reason of Object.keys(b.dropped) as DropReason[])
    dropped[reason] = (dropped[reason] ?? 0) + b.dropped[reason];
  const bErrorLater = b.lastError !== undefined && (a.lastError === undefined || b.lastError.at > a.lastError.at);
  const bSuccessLater =
    b.lastSuccessAt !== undefined && (a.lastSuccessAt === undefined || b.lastSuccessAt > a.lastSuccessAt);
  return {
    queued: a.queued + b.queued,
    queuedBytes: a.queuedBytes + b.queuedBytes,
    inFlight: a.inFlight + b.inFlight,
    sent: a.sent + b.sent,
    dropped,
    retries: a.retries + b.retries,
    lastError: bErrorLater ? b.lastError : a.lastError,
    lastSuccessAt: bSuccessLater ? b.lastSuccessAt : a.lastSuccessAt,
    shutdown: a.shutdown && b.shutdown,
  };
}
