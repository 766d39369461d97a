import type * as NodeZlib from "node:zlib";
import { detectRuntime, isServerRuntime, nodeBuiltin, type RuntimeGlobals } from "./runtime.js";

/** Gzips the pieces (text as UTF-8, or bytes), taken one at a time as the compressor is ready for more. */
export type Gzip = (pieces: Iterator<string | Uint8Array>) => Promise<Uint8Array>;

/** Output bytes per zlib step: each step's callback costs the app thread (3 ms/MB at 16 KiB, 1.5 ms at 64 KiB). */
const GZIP_CHUNK_SIZE = 64 * 1024;
/** Input the gzip stream takes ahead of compressing it, before it asks for no more (a few pieces). */
const GZIP_INPUT_BUFFER = 256 * 1024;

let cached: Gzip | null | undefined;

/** The gzip function of this runtime (chosen once), or `null` in browser and edge runtimes. */
export function runtimeGzip(): Gzip | null {
  if (cached === undefined) cached = chooseGzip(globalThis as RuntimeGlobals);
  return cached;
}

/** Gzip by `node:zlib` on server runtimes that load it, else their `CompressionStream`; `null` elsewhere (no gzip). */
export function chooseGzip(runtime: RuntimeGlobals): Gzip | null {
  if (!isServerRuntime(detectRuntime(runtime))) return null;
  const zlib = nodeBuiltin<typeof NodeZlib>("node:zlib", runtime);
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

/** Feeds the pieces to a zlib gzip stream, the next one only when it wants more, and collects the bytes. */
function gzipWithZlib(zlib: typeof NodeZlib, pieces: Iterator<string | Uint8Array>): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    // `writableHighWaterMark` is a stream option, which zlib's own option type leaves out.
    const options = { chunkSize: GZIP_CHUNK_SIZE, writableHighWaterMark: GZIP_INPUT_BUFFER } as NodeZlib.ZlibOptions;
    const gzip = zlib.createGzip(options);
    const out: Uint8Array[] = [];
    let size = 0;
    gzip.on("data", (chunk: Uint8Array) => {
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
