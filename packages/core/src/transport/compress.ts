import { currentRuntime, detectRuntime, isServerRuntime, type RuntimeGlobals, type RuntimeInfo } from "./runtime.js";

/** Gzips the pieces (text as UTF-8, or bytes), taken one at a time as the compressor is ready for more. */
export type Gzip = (pieces: Iterator<string | Uint8Array>) => Promise<Uint8Array>;

interface GzipStreamLike {
  write(chunk: string | Uint8Array): boolean;
  end(): void;
  destroy(error?: Error): void;
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  once(event: "drain", listener: () => void): unknown;
}

interface ZlibLike {
  createGzip(options: { chunkSize: number; writableHighWaterMark: number }): GzipStreamLike;
}

/**
 * Output bytes zlib produces per step on the thread pool. Each step ends with a callback on the main thread;
 * at zlib's default of 16 KiB those callbacks cost the app thread about 3 ms per megabyte of body, at 64 KiB
 * about 1.5 ms, with the same compressed bytes.
 */
const GZIP_CHUNK_SIZE = 64 * 1024;
/** Input the gzip stream takes ahead of compressing it, before it asks for no more (a few pieces). */
const GZIP_INPUT_BUFFER = 256 * 1024;

let cached: Gzip | null | undefined;

/** The gzip function of this runtime (chosen once), or `null` in browser and edge runtimes. */
export function runtimeGzip(): Gzip | null {
  if (cached === undefined) cached = chooseGzip(globalThis as RuntimeGlobals, currentRuntime());
  return cached;
}

/**
 * Picks how bodies are gzipped in the runtime these globals describe: `node:zlib` (on the libuv thread pool) on
 * the server runtimes (Node, Bun, Deno) that can load it, else their `CompressionStream`. Browsers, Cloudflare
 * Workers and edge runtimes get `null`: they send bodies uncompressed whatever the compression setting.
 */
export function chooseGzip(runtime: RuntimeGlobals, kind: RuntimeInfo = detectRuntime(runtime)): Gzip | null {
  if (!isServerRuntime(kind)) return null;
  const zlib = runtime.process?.getBuiltinModule?.("node:zlib") as ZlibLike | undefined;
  if (zlib) return (pieces) => gzipWithZlib(zlib, pieces);
  const Stream = runtime.CompressionStream;
  if (typeof Stream !== "function") return null;
  return async (pieces) => {
    const encoder = new TextEncoder();
    const source = new ReadableStream<BufferSource>({
      pull(controller) {
        const next = pieces.next();
        if (next.done) controller.close();
        else
          controller.enqueue(
            typeof next.value === "string" ? encoder.encode(next.value) : (next.value as Uint8Array<ArrayBuffer>),
          );
      },
    });
    return new Uint8Array(await new Response(source.pipeThrough(new Stream("gzip"))).arrayBuffer());
  };
}

/**
 * Feeds the pieces to a zlib gzip stream (compressing on the thread pool), the next one only when the stream
 * wants more, and collects the compressed bytes.
 */
function gzipWithZlib(zlib: ZlibLike, pieces: Iterator<string | Uint8Array>): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const gzip = zlib.createGzip({ chunkSize: GZIP_CHUNK_SIZE, writableHighWaterMark: GZIP_INPUT_BUFFER });
    const out: Uint8Array[] = [];
    let size = 0;
    gzip.on("data", (chunk) => {
      out.push(chunk);
      size += chunk.length;
    });
    gzip.on("end", () => resolve(concatBytes(out, size)));
    gzip.on("error", reject);
    const feed = (): void => {
      try {
        for (let next = pieces.next(); !next.done; next = pieces.next()) {
          if (!gzip.write(next.value)) {
            gzip.once("drain", feed);
            return;
          }
        }
        gzip.end();
      } catch (error) {
        gzip.destroy(error instanceof Error ? error : new Error(String(error)));
        reject(error);
      }
    };
    feed();
  });
}

/** The chunks as one array of `size` bytes (the only chunk itself when there is one). */
export function concatBytes(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
