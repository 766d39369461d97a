type Gzip = (body: Uint8Array) => Promise<Uint8Array>;

interface ZlibLike {
  gzip(
    body: Uint8Array,
    options: { chunkSize: number },
    callback: (error: Error | null, result: Uint8Array) => void,
  ): void;
}

/**
 * Output bytes zlib produces per step on the thread pool. Each step ends with a callback on the main thread;
 * at zlib's default of 16 KiB those callbacks cost the app thread about 3 ms per megabyte of body, at 64 KiB
 * about 1.5 ms, with the same compressed bytes.
 */
const GZIP_CHUNK_SIZE = 64 * 1024;

interface ProcessLike {
  versions?: { node?: string };
  getBuiltinModule?: (name: string) => unknown;
}

/** The globals that tell which runtime the SDK runs in and what it offers for gzip. */
export interface RuntimeGlobals {
  process?: ProcessLike;
  /** Set by the Vercel Edge runtime. */
  EdgeRuntime?: unknown;
  navigator?: { userAgent?: string };
  CompressionStream?: typeof CompressionStream;
}

let cached: Gzip | null | undefined;

/** The gzip function of this runtime (chosen once), or `null` in browser and edge runtimes. */
export function runtimeGzip(): Gzip | null {
  if (cached === undefined) cached = chooseGzip(globalThis as RuntimeGlobals);
  return cached;
}

/**
 * Picks how bodies are gzipped in the runtime these globals describe: `node:zlib` (on the libuv thread pool) on
 * Node-compatible server runtimes, else their `CompressionStream`. Browser and edge runtimes get `null`: they
 * send bodies uncompressed whatever the compression setting.
 */
export function chooseGzip(runtime: RuntimeGlobals): Gzip | null {
  const proc = runtime.process;
  if (isEdgeRuntime(runtime) || !proc?.versions?.node) return null;
  const zlib = proc.getBuiltinModule?.("node:zlib") as ZlibLike | undefined;
  if (zlib) {
    return (body) =>
      new Promise((resolve, reject) =>
        zlib.gzip(body, { chunkSize: GZIP_CHUNK_SIZE }, (error, out) => (error ? reject(error) : resolve(out))),
      );
  }
  const Stream = runtime.CompressionStream;
  if (typeof Stream !== "function") return null;
  return async (body) => {
    const stream = new Blob([body as BlobPart]).stream().pipeThrough(new Stream("gzip"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  };
}

function isEdgeRuntime(runtime: RuntimeGlobals): boolean {
  return typeof runtime.EdgeRuntime === "string" || runtime.navigator?.userAgent === "Cloudflare-Workers";
}
