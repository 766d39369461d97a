/**
 * Runs `load` once and shares its promise; after a rejection the next call runs it again. Write the `import()` in
 * `load` with a literal path, so that bundlers split it off.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
