/**
 * A loader for code used on first call: runs `load` once and shares its promise; when that promise rejects, the next
 * call runs `load` again. Write the `import()` inside `load` with a literal path, so that bundlers split it off:
 * `loadOnce(() => import("./service.js").then(({ Service }) => new Service()))`.
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
