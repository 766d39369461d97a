// The provider svc creates its spans with lives in the core, where the test kit of `@svc/otel` can set it too.
export { getSvcTracer, getSvcTracerProvider, setSvcTracerProvider } from "@svc/core";
