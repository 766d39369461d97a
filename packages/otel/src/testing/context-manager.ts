import type * as NodeAsyncHooks from "node:async_hooks";
import { type Context, type ContextManager, ROOT_CONTEXT } from "@opentelemetry/api";

/**
 * An OpenTelemetry context manager on Node's `AsyncLocalStorage`, so that observations nest across `await` in tests
 * that have no context manager of their own (a bare tracer provider registers none).
 */
export class AsyncStorageContextManager implements ContextManager {
  readonly #storage = new (
    process.getBuiltinModule("node:async_hooks") as typeof NodeAsyncHooks
  ).AsyncLocalStorage<Context>();

  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(context, () => fn.call(thisArg, ...args));
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== "function") return target;
    const manager = this;
    return function (this: unknown, ...args: unknown[]) {
      return manager.with(context, () => target.apply(this, args));
    } as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.#storage.disable();
    return this;
  }
}
