// Running user code with an observation active, for `startActiveObservation` and `observe`: the observation records
// a throw or rejection and ends when the code returns, throws or settles (or, for `observe`, when a generator ends).
import { type Context, context, trace } from "@opentelemetry/api";
import { isThenable, safely, stableText, withTraceIdClaim } from "@svc/core";
import { markFailed, type SvcObservationBase, setOutput } from "../observation.js";
import { validSpanContext } from "./options.js";

/** Yielded items kept as the output of an observed generator; later items are counted, not kept. */
const MAX_CAPTURED_YIELDS = 1000;

/** How a run is recorded; one object per caller, made once. */
export interface RunMode {
  /** Record the result (the resolved value, the yielded items, the error) as output. */
  captureOutput: boolean;
  endOnExit: boolean;
  /** The status message of a throw whose value has no message. */
  failMessage: string;
  /** Trace a returned generator through its items rather than ending at once. */
  generators: boolean;
}

/** The context new observations start in: the active one, re-parented when a parent is given. */
export function parentContext(parentSpanContext: unknown): Context {
  const active = context.active();
  if (parentSpanContext === undefined) return active;
  const valid = validSpanContext(parentSpanContext);
  if (valid === undefined) return active;
  return safely("parentSpanContext", () => trace.setSpanContext(active, valid)) ?? active;
}

/** `parent` with `observation` as active span and the trace-id claim for its trace. */
export function activeContext(parent: Context, observation: SvcObservationBase): Context {
  return (
    safely("activate observation", () =>
      withTraceIdClaim(trace.setSpan(parent, observation.otelSpan), observation.traceId),
    ) ?? parent
  );
}

/** Calls `fn` in `active` and records its outcome on `observation` as `mode` says; returns what `fn` returns. */
export function runObserved<A extends unknown[]>(
  observation: SvcObservationBase,
  active: Context,
  mode: RunMode,
  fn: (...args: A) => unknown,
  self: unknown,
  ...args: A
): unknown {
  let result: unknown;
  try {
    result = context.with(active, fn, self, ...args);
  } catch (err) {
    fail(observation, err, mode);
    if (mode.endOnExit) observation.end();
    throw err;
  }
  if (isThenable(result))
    return result.then(
      (value) => {
        succeed(observation, value, mode);
        return value;
      },
      (err: unknown) => {
        fail(observation, err, mode);
        if (mode.endOnExit) observation.end();
        throw err;
      },
    );
  if (mode.generators) {
    const tag = tagOf(result);
    if (tag === "[object AsyncGenerator]")
      return traceAsyncGenerator(new GeneratorRun(observation, active, mode), result as AsyncGenerator);
    if (tag === "[object Generator]")
      return traceGenerator(new GeneratorRun(observation, active, mode), result as Generator);
  }
  succeed(observation, result, mode);
  return result;
}

function succeed(observation: SvcObservationBase, output: unknown, mode: RunMode): void {
  if (mode.captureOutput) setOutput(observation, output);
  if (mode.endOnExit) observation.end();
}

function fail(observation: SvcObservationBase, err: unknown, mode: RunMode): void {
  markFailed(observation, err, mode.failMessage);
  if (mode.captureOutput) setOutput(observation, { error: stableText(err) });
}

/** What the consumer of a traced generator passed in: the value of `next()`, or the error of `throw()`. */
type Resume<N> = { throw: false; value: N } | { throw: true; error: unknown } | undefined;

function resume<N>(inner: Generator<unknown, unknown, N> | AsyncGenerator<unknown, unknown, N>, given: Resume<N>) {
  return given?.throw ? inner.throw(given.error) : inner.next(...((given ? [given.value] : []) as [N]));
}

/** An observed generator's run: the items it yielded (up to {@link MAX_CAPTURED_YIELDS}, the rest counted). */
class GeneratorRun {
  readonly #items: unknown[] | undefined;
  #skipped = 0;
  finished = false;

  constructor(
    readonly observation: SvcObservationBase,
    readonly active: Context,
    readonly mode: RunMode,
  ) {
    this.#items = mode.captureOutput ? [] : undefined;
  }

  /** Records the inner generator's throw, which finishes the run. */
  failed(err: unknown): void {
    this.finished = true;
    fail(this.observation, err, this.mode);
  }

  /** Records a step of the inner generator; true when it is the last (the items are then its output). */
  took(step: IteratorResult<unknown, unknown>): boolean {
    if (step.done) {
      this.finished = true;
      this.#record();
    } else if (this.#items !== undefined) {
      if (this.#items.length < MAX_CAPTURED_YIELDS) this.#items.push(step.value);
      else this.#skipped++;
    }
    return step.done === true;
  }

  /** When the consumer is done with the generator, early or not: ends the observation. */
  closed(): void {
    if (!this.finished) this.#record();
    if (this.mode.endOnExit) this.observation.end();
  }

  #record(): void {
    if (this.#items === undefined) return;
    setOutput(this.observation, this.#skipped > 0 ? [...this.#items, `[${this.#skipped} more items]`] : this.#items);
  }
}

function* traceGenerator<Y, R, N>(run: GeneratorRun, inner: Generator<Y, R, N>): Generator<Y, R, N> {
  let given: Resume<N>;
  try {
    for (;;) {
      let step: IteratorResult<Y, R>;
      try {
        step = context.with(run.active, resume, undefined, inner, given) as IteratorResult<Y, R>;
      } catch (err) {
        run.failed(err);
        throw err;
      }
      if (run.took(step)) return step.value as R;
      try {
        given = { throw: false, value: yield step.value as Y };
      } catch (error) {
        given = { throw: true, error };
      }
    }
  } finally {
    try {
      // The consumer stopped early (return() or break): let the inner generator clean up too.
      if (!run.finished) context.with(run.active, () => inner.return(undefined as R));
    } finally {
      run.closed();
    }
  }
}

async function* traceAsyncGenerator<Y, R, N>(
  run: GeneratorRun,
  inner: AsyncGenerator<Y, R, N>,
): AsyncGenerator<Y, R, N> {
  let given: Resume<N>;
  try {
    for (;;) {
      let step: IteratorResult<Y, R>;
      try {
        step = (await context.with(run.active, resume, undefined, inner, given)) as IteratorResult<Y, R>;
      } catch (err) {
        run.failed(err);
        throw err;
      }
      if (run.took(step)) return step.value as R;
      try {
        given = { throw: false, value: yield step.value as Y };
      } catch (error) {
        given = { throw: true, error };
      }
    }
  } finally {
    try {
      if (!run.finished) await context.with(run.active, () => inner.return(undefined as R));
    } finally {
      run.closed();
    }
  }
}

// Only real generator objects are traced: other iterables (streams with extra methods) pass through untouched.
function tagOf(value: unknown): string | undefined {
  if (value === null || typeof value !== "object") return undefined;
  try {
    return Object.prototype.toString.call(value);
  } catch {
    return undefined;
  }
}
