// TypeDoc plugin (typedoc.json): names each entry point's module after the package it is published as, instead of
// its folder (`client/src` becomes `@svc/client`), so the reference reads as users import.
import { type Application, Converter, ReflectionKind } from "typedoc";

const NAMES: Record<string, string> = {
  "tracing/src": "@svc/tracing",
  "otel/src": "@svc/otel",
  "otel/src/testing": "@svc/otel/testing",
  "client/src": "@svc/client",
  "client/src/browser": "@svc/client/browser",
  "client/src/vitest": "@svc/client/vitest",
  "client/src/node-test": "@svc/client/node-test",
  "langchain/src": "@svc/langchain",
};

export function load(app: Application): void {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.getReflectionsByKind(ReflectionKind.Module)) {
      const name = NAMES[module.name];
      if (name) module.name = name;
    }
  });
}
