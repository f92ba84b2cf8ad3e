/**
 * A part of a function loaded at the first request that needs it, not at cold start: `load`
 * (typically an `import()` and what is built from it) runs once, and every later call gets the
 * same result. A load that failed is tried again by the next call rather than kept: a request
 * that met a passing fault (a file read, a throw while building) does not fail every request
 * after it for the life of the instance.
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
