import {
  type BatchObservableResult,
  type MeterProvider,
  metrics,
  type Observable,
  ValueType,
} from "@opentelemetry/api";
import type { OptionSpec } from "../config/options.js";
import { shared } from "../registry.js";
import { SDK_VERSION } from "../version.js";
import type { DropReason } from "./delivery-log.js";
import { type DeliveryCounts, deliveryCounts } from "./delivery-stats.js";

/** A delivery queue as the metrics see it: what its items are called and its figures. */
export interface DeliverySource {
  /** `spans` or `scores`: the value of the {@link DELIVERY_ITEMS_ATTRIBUTE} attribute. */
  readonly items: string;
  /** What the queue holds now (the gauges). */
  health(): { queued: number; queuedBytes: number; inFlight: number; onDisk?: number };
}

/** Names of the instruments, all observed from the queues' `health()` when a reader collects. */
export const DELIVERY_METRICS = {
  queued: "svc.delivery.queued",
  queuedBytes: "svc.delivery.queued_bytes",
  inFlight: "svc.delivery.in_flight",
  sent: "svc.delivery.sent",
  dropped: "svc.delivery.dropped",
  retries: "svc.delivery.retries",
  spilled: "svc.delivery.spilled",
  replayed: "svc.delivery.replayed",
  onDisk: "svc.delivery.on_disk",
} as const;

/** The attribute that tells spans from scores on every instrument. */
export const DELIVERY_ITEMS_ATTRIBUTE = "svc.delivery.items";
/** The attribute that carries the {@link DropReason} on `svc.delivery.dropped`. */
export const DROP_REASON_ATTRIBUTE = "svc.delivery.drop_reason";

/**
 * Where a component's delivery figures are observed as metrics: a `MeterProvider`, or `"global"` for the OpenTelemetry
 * global meter provider (looked up again each time a batch is sent, so one registered later, as `NodeSDK.start()`
 * does, is found). Without it nothing is observed.
 */
export type DeliveryMeterProvider = MeterProvider | "global";

/** How a `meterProvider` option is read: a `MeterProvider` (an object with `getMeter`), `"global"`, or nothing. */
export function meterProviderOption(): OptionSpec<DeliveryMeterProvider | undefined> {
  return {
    parse: (value) =>
      value === "global" ||
      (typeof value === "object" && value !== null && typeof (value as MeterProvider).getMeter === "function")
        ? { ok: true, value: value as DeliveryMeterProvider }
        : { ok: false, expected: 'a MeterProvider (an object with getMeter) or "global"' },
    fallback: undefined,
  };
}

interface Registration {
  readonly source: WeakRef<DeliverySource>;
  readonly items: string;
  /** Held strongly: what the queue counted is still counted once it is garbage collected. */
  readonly counts: DeliveryCounts;
}

/** The queues observed on one meter provider, and the counts of those already gone, per kind of item. */
interface Binding {
  readonly registrations: Set<Registration>;
  readonly retired: Map<string, DeliveryCounts>;
  /** The meter provider the instruments were created on. */
  boundTo: MeterProvider | undefined;
  /** Removes the callback from that provider's meter. */
  unbind: (() => void) | undefined;
}

interface MetricsState {
  readonly byProvider: WeakMap<MeterProvider, Binding>;
  readonly global: Binding;
}

function newBinding(): Binding {
  return { registrations: new Set(), retired: new Map(), boundTo: undefined, unbind: undefined };
}

// One for every copy of the core in the process: one set of instruments per meter provider, the figures summed per
// kind.
const state = shared<MetricsState>("delivery-metrics", () => ({ byProvider: new WeakMap(), global: newBinding() }));

/**
 * Makes a queue's figures observable on `target` through the OpenTelemetry metrics API; the queue is held weakly (a
 * queue that is garbage collected stops being observed) and its `counts` strongly, so the counters never go down.
 * Without `target` nothing is observed: the SDK's metrics never reach a meter provider the user did not name.
 */
export function observeDelivery(
  source: DeliverySource,
  counts: DeliveryCounts,
  target: DeliveryMeterProvider | undefined,
): void {
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
 * (the application may register its provider after the SDK's components were made). Cheap: one lookup when nothing
 * changed, nothing at all when no queue asked for the global provider.
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

/** What the instruments read: the gauges and the counts of the queues of one kind. */
interface Figures extends DeliveryCounts {
  queued: number;
  queuedBytes: number;
  inFlight: number;
  onDisk: number;
}

/** The instruments, each read from a queue's health (`svc.delivery.dropped`, counted per reason, apart). */
const FIGURES: {
  name: string;
  kind: "gauge" | "counter";
  description: string;
  read?: (h: Figures) => number;
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
  {
    name: DELIVERY_METRICS.spilled,
    kind: "counter",
    description: "Items written to the spill directory instead of being dropped.",
    read: (h) => h.spilled,
  },
  {
    name: DELIVERY_METRICS.replayed,
    kind: "counter",
    description: "Items sent again from the spill directory and accepted.",
    read: (h) => h.replayed,
  },
  {
    name: DELIVERY_METRICS.onDisk,
    kind: "gauge",
    description: "Items in the spill directory, waiting to be sent again.",
    read: (h) => h.onDisk,
  },
];

function createInstruments(provider: MeterProvider, binding: Binding): () => void {
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
    for (const [items, figures] of totals(binding)) {
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

/**
 * The figures per kind of item: the gauges of the live queues summed, the counters of every queue ever observed (a
 * queue that was garbage collected leaves its counts behind).
 */
function totals(binding: Binding): Map<string, Figures> {
  const out = new Map<string, Figures>();
  const at = (items: string): Figures => {
    let figures = out.get(items);
    if (figures === undefined) {
      figures = { queued: 0, queuedBytes: 0, inFlight: 0, onDisk: 0, ...deliveryCounts() };
      out.set(items, figures);
    }
    return figures;
  };
  for (const registration of binding.registrations) {
    const source = registration.source.deref();
    if (source === undefined) {
      binding.registrations.delete(registration);
      let retired = binding.retired.get(registration.items);
      if (retired === undefined) {
        retired = deliveryCounts();
        binding.retired.set(registration.items, retired);
      }
      addCounts(retired, registration.counts);
      continue;
    }
    const figures = at(registration.items);
    const health = source.health();
    figures.queued += health.queued;
    figures.queuedBytes += health.queuedBytes;
    figures.inFlight += health.inFlight;
    figures.onDisk += health.onDisk ?? 0;
    addCounts(figures, registration.counts);
  }
  for (const [items, retired] of binding.retired) addCounts(at(items), retired);
  return out;
}

function addCounts(into: DeliveryCounts, from: DeliveryCounts): void {
  into.sent += from.sent;
  into.retries += from.retries;
  into.spilled += from.spilled ?? 0;
  into.replayed += from.replayed ?? 0;
  for (const reason of Object.keys(from.dropped) as DropReason[])
    into.dropped[reason] = (into.dropped[reason] ?? 0) + from.dropped[reason];
}
