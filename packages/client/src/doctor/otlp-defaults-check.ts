import { createNoopMeter, metrics } from "@opentelemetry/api";
import { type Env, nodeBuiltin } from "@svc/core";
import type { DoctorCheck } from "./report.js";

/** Where OpenTelemetry's OTLP/HTTP exporters send when no endpoint is configured. */
const DEFAULT_OTLP_PORT = 4318;
/** Longest wait for a connection to the default endpoint. */
const CONNECT_TIMEOUT_MS = 2000;

/**
 * The signals an OpenTelemetry SDK of the application (such as `NodeSDK`) will export to the default OTLP endpoint,
 * `http://localhost:4318`: metrics when a meter provider is registered in this process (`NodeSDK` registers one with
 * an OTLP exporter unless `OTEL_METRICS_EXPORTER` says otherwise) or `OTEL_METRICS_EXPORTER` names `otlp`, traces when
 * `OTEL_TRACES_EXPORTER` names `otlp`; none when an endpoint is configured or the protocol is not OTLP/HTTP.
 */
function defaultEndpointSignals(env: Env, appMeterProvider: boolean): string[] {
  const names = (value: string | undefined) =>
    (value ?? "")
      .toLowerCase()
      .split(",")
      .map((s) => s.trim());
  const toDefault = (signal: string) =>
    !(env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) &&
    (env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf")
      .trim()
      .startsWith("http/");
  const metricsExporter = names(env.OTEL_METRICS_EXPORTER);
  const metricsOtlp = metricsExporter.includes("otlp") || (appMeterProvider && metricsExporter.join("") === "");
  const sendsMetrics = metricsOtlp && toDefault("METRICS");
  const sendsTraces = names(env.OTEL_TRACES_EXPORTER).includes("otlp") && toDefault("TRACES");
  return [...(sendsMetrics ? ["metrics"] : []), ...(sendsTraces ? ["traces"] : [])];
}

/** Whether an OpenTelemetry meter provider other than the API's no-op one is registered in this process. */
export function hasAppMeterProvider(): boolean {
  try {
    // The API's no-op provider hands out no-op meters; compared by class, which survives minification.
    return metrics.getMeterProvider().getMeter("svc-doctor").constructor !== createNoopMeter().constructor;
  } catch {
    return false;
  }
}

/** The check `OTLP defaults`: a warning when the app's OpenTelemetry SDK exports to a silent `localhost:4318`. */
export async function checkOtlpDefaults(env: Env, appMeterProvider: boolean): Promise<DoctorCheck | undefined> {
  const signals = defaultEndpointSignals(env, appMeterProvider);
  if (signals.length === 0) return undefined;
  const what = signals.join(" and ");
  const target = `http://localhost:${DEFAULT_OTLP_PORT}`;
  if (await answers("localhost", DEFAULT_OTLP_PORT)) {
    return {
      name: "OTLP defaults",
      status: "pass",
      detail: `OpenTelemetry exports ${what} to ${target}, which answers`,
    };
  }
  const off = signals.map((s) => `OTEL_${s.toUpperCase()}_EXPORTER=none`).join(" and ");
  return {
    name: "OTLP defaults",
    status: "warn",
    detail:
      `the app's OpenTelemetry SDK (NodeSDK's defaults) will export ${what} to ${target}, where nothing answers: ` +
      "each export fails and its shutdown() retries for seconds",
    fix: `set ${off}, or OTEL_EXPORTER_OTLP_ENDPOINT to the collector that should receive them`,
  };
}

/** Whether something accepts a TCP connection on `host:port` within {@link CONNECT_TIMEOUT_MS}. */
async function answers(host: string, port: number): Promise<boolean> {
  const net = nodeBuiltin<typeof import("node:net")>("node:net");
  if (!net) return true; // no sockets in this runtime: nothing to say
  return new Promise<boolean>((resolve) => {
    const socket = net.connect({ host, port, autoSelectFamily: true });
    const done = (answered: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), CONNECT_TIMEOUT_MS);
    timer.unref?.();
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}
