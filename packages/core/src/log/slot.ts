/**
 * A process-wide object under `Symbol.for(name)`, created on first use. A process may hold more than one copy of
 * the core (two versions of the SDK, or its ES module and CommonJS builds); state that must be the same for all of
 * them (the logger setting, the secrets to redact, the tracer provider) lives in such a slot and nowhere else.
 */
export function globalSlot<T extends object>(name: string, create: () => T): () => T {
  const key = Symbol.for(name);
  let found: T | undefined;
  return () => {
    if (found !== undefined) return found;
    const holder = globalThis as unknown as Record<symbol, T | undefined>;
    let current = holder[key];
    if (current === undefined) {
      current = create();
      Object.defineProperty(globalThis, key, {
        value: current,
        writable: false,
        configurable: false,
        enumerable: false,
      });
    }
    found = current;
    return current;
  };
}
