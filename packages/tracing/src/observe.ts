import { readField, safely } from "@svc/core";
import { isCallable } from "./internal/options.js";
import { activeContext, parentContext, type RunMode, runObserved } from "./internal/run.js";
import { createObservation } from "./observation.js";
import type { ObserveOptions, SvcObservationType } from "./types.js";

// biome-ignore lint/suspicious/noExplicitAny: matches any function signature so the wrapper keeps it.
type AnyFunction = (...args: any[]) => any;

/**
 * Wraps a function so that each call is recorded as an observation that is active while it runs.
 * Works for sync, async and generator functions, keeps `this` and the function's type; records the
 * arguments as input and the result (or the yielded items) as output unless told not to. A throw or
 * rejection is recorded as level ERROR and passed on unchanged.
 * @example
 * const answer = observe(async (question: string) => callModel(question), { name: "answer", asType: "generation" });
 */
export function observe<F extends AnyFunction>(fn: F, options: ObserveOptions<SvcObservationType> = {}): F {
  if (!isCallable(fn, "observe")) return fn;
  const fnName = safely("observe: read the function name", () => fn.name);
  const name = readField<string>(options, "name") ?? (fnName || "anonymous-function");
  const type = readField<SvcObservationType>(options, "asType") ?? "span";
  const captureInput = readField(options, "captureInput") !== false;
  const parentSpanContext = readField(options, "parentSpanContext");
  const mode: RunMode = {
    captureOutput: readField(options, "captureOutput") !== false,
    endOnExit: readField(options, "endOnExit") !== false,
    failMessage: "Function threw an error",
    generators: true,
  };

  const observed = function (this: unknown, ...args: unknown[]): unknown {
    const parent = parentContext(parentSpanContext);
    const attributes = captureInput && args.length > 0 ? { input: args.length === 1 ? args[0] : args } : undefined;
    const observation = createObservation(name, attributes, type, undefined, parent);
    return runObserved(observation, activeContext(parent, observation), mode, fn, this, ...args);
  };
  safely("observe: copy the function name and length", () => {
    Object.defineProperty(observed, "name", { value: fn.name, configurable: true });
    Object.defineProperty(observed, "length", { value: fn.length, configurable: true });
  });
  return observed as F;
}
