import { type Context, context } from "@opentelemetry/api";
import { isThenable, readField, safely } from "@svc/core";
import { activeContext, parentContext } from "./internal/context.js";
import { isCallable } from "./internal/options.js";
import { createObservation, markFailed, type SvcObservationBase, setOutput } from "./observation.js";
import type { ObserveOptions, SvcObservationType } from "./types.js";

/** Yielded items kept as the output of an observed generator; later items are counted, not kept. */
export const MAX_CAPTURED_YIELDS = 1000;

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
  const captureOutput = readField(options, "captureOutput") !== false;
  const endOnExit = readField(options, "endOnExit") !== false;
  const parentSpanContext = readField(options, "parentSpanContext");

  const observed = function (this: unknown, ...args: unknown[]): unknown {
    const parent = parentContext(parentSpanContext);
    const attributes = captureInput && args.length > 0 ? { input: args.length === 1 ? args[0] : args } : undefined;
    const observation = createObservation(name, attributes, type, undefined, parent);
    const active = activeContext(parent, observation);
    let result: unknown;
    try {
      result = context.with(active, fn as AnyFunction, this, ...args);
    } catch (err) {
      fail(observation, err, captureOutput);
      if (endOnExit) observation.end();
      throw err;
    }
    return settle(observation, active, result, captureOutput, endOnExit);
  };
  safely("observe: copy the function name and length", () => {
    Object.defineProperty(observed, "name", { value: fn.name, configurable: true });
    Object.defineProperty(observed, "length", { value: fn.length, configurable: true });
  });
  return observed as F;
}

function settle(
  observation: SvcObservationBase,
  active: Context,
  result: unknown,
  captureOutput: boolean,
  endOnExit: boolean,
): unknown {
  if (isThenable(result)) {
    return result.then(
      (value) => {
        if (captureOutput) setOutput(observation, value);
        if (endOnExit) observation.end();
        return value;
      },
      (err: unknown) => {
        fail(observation, err, captureOutput);
        if (endOnExit) observation.end();
        throw err;
      },
    );
  }
  if (isAsyncGenerator(result)) return traceAsyncGenerator(observation, active, result, captureOutput, endOnExit);
  if (isGenerator(result)) return traceGenerator(observation, active, result, captureOutput, endOnExit);
  if (captureOutput) setOutput(observation, result);
  if (endOnExit) observation.end();
  return result;
}

function fail(observation: SvcObservationBase, err: unknown, captureOutput: boolean): void {
  markFailed(observation, err, "Function threw an error");
  if (captureOutput) setOutput(observation, { error: safeString(err) });
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return "unknown error";
  }
}

function* traceGenerator<Y, R, N>(
  observation: SvcObservationBase,
  active: Context,
  inner: Generator<Y, R, N>,
  captureOutput: boolean,
  endOnExit: boolean,
): Generator<Y, R, N> {
  const yielded = new YieldRecorder(captureOutput);
  let finished = false;
  let resume: { throw: false; value: N } | { throw: true; error: unknown } | undefined;
  try {
    for (;;) {
      let step: IteratorResult<Y, R>;
      try {
        const current = resume;
        step = context.with(active, () =>
          current?.throw ? inner.throw(current.error) : inner.next(...((current ? [current.value] : []) as [N])),
        );
      } catch (err) {
        finished = true;
        fail(observation, err, captureOutput);
        throw err;
      }
      if (step.done) {
        finished = true;
        yielded.record(observation);
        return step.value;
      }
      yielded.push(step.value);
      try {
        resume = { throw: false, value: yield step.value };
      } catch (error) {
        resume = { throw: true, error };
      }
    }
  } finally {
    try {
      // The consumer stopped early (return() or break): let the inner generator clean up too.
      if (!finished) context.with(active, () => inner.return(undefined as R));
    } finally {
      if (!finished) yielded.record(observation);
      if (endOnExit) observation.end();
    }
  }
}

async function* traceAsyncGenerator<Y, R, N>(
  observation: SvcObservationBase,
  active: Context,
  inner: AsyncGenerator<Y, R, N>,
  captureOutput: boolean,
  endOnExit: boolean,
): AsyncGenerator<Y, R, N> {
  const yielded = new YieldRecorder(captureOutput);
  let finished = false;
  let resume: { throw: false; value: N } | { throw: true; error: unknown } | undefined;
  try {
    for (;;) {
      let step: IteratorResult<Y, R>;
      try {
        const current = resume;
        step = await context.with(active, () =>
          current?.throw ? inner.throw(current.error) : inner.next(...((current ? [current.value] : []) as [N])),
        );
      } catch (err) {
        finished = true;
        fail(observation, err, captureOutput);
        throw err;
      }
      if (step.done) {
        finished = true;
        yielded.record(observation);
        return step.value;
      }
      yielded.push(step.value);
      try {
        resume = { throw: false, value: yield step.value };
      } catch (error) {
        resume = { throw: true, error };
      }
    }
  } finally {
    try {
      if (!finished) await context.with(active, () => inner.return(undefined as R));
    } finally {
      if (!finished) yielded.record(observation);
      if (endOnExit) observation.end();
    }
  }
}

class YieldRecorder {
  readonly #items: unknown[] = [];
  readonly #capture: boolean;
  #skipped = 0;

  constructor(capture: boolean) {
    this.#capture = capture;
  }

  push(item: unknown): void {
    if (!this.#capture) return;
    if (this.#items.length < MAX_CAPTURED_YIELDS) this.#items.push(item);
    else this.#skipped++;
  }

  record(observation: SvcObservationBase): void {
    if (!this.#capture) return;
    const items = this.#skipped > 0 ? [...this.#items, `[${this.#skipped} more items]`] : this.#items;
    setOutput(observation, items);
  }
}

// Only real generator objects are wrapped: other iterables (streams with extra methods) pass through untouched.
function isGenerator(value: unknown): value is Generator {
  return tagOf(value) === "[object Generator]";
}

function isAsyncGenerator(value: unknown): value is AsyncGenerator {
  return tagOf(value) === "[object AsyncGenerator]";
}

function tagOf(value: unknown): string | undefined {
  if (value === null || typeof value !== "object") return undefined;
  try {
    return Object.prototype.toString.call(value);
  } catch {
    return undefined;
  }
}
