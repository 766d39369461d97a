type Gzip = (body: Uint8Array) => Promise<Uint8Array>;

interface ZlibLike {
  gzip(body: Uint8Array, callback: (error: Error | null, result: Uint8Array) => void): void;
}

interface ProcessLike {
  versions?: { node?: string };
  getBuiltinModule?: (name: string) => unknown;
}

let cached: Gzip | null | undefined;

/**
 * The gzip function of this runtime, or `null` in browser and edge runtimes, which send bodies
 * uncompressed. On Node-compatible runtimes compression runs on the libuv thread pool.
 */
export function runtimeGzip(): Gzip | null {
  if (cached !== undefined) return cached;
  const proc = (globalThis as { process?: ProcessLike }).process;
  if (!proc?.versions?.node) {
    cached = null;
    return cached;
  }
  const zlib = proc.getBuiltinModule?.("node:zlib") as ZlibLike | undefined;
  if (zlib) {
    cached = (body) =>
      new Promise((resolve, reject) => zlib.gzip(body, (error, out) => (error ? reject(error) : resolve(out))));
  } else if (typeof CompressionStream === "function") {
    cached = async (body) => {
      const stream = new Blob([body as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
      return new Uint8Array(await new Response(stream).arrayBuffer());
    };
  } else {
    cached = null;
  }
  return cached;
}
