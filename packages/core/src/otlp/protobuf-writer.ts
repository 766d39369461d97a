// Protobuf wire encoding in two passes over the same walk of fields: ProtobufMeasure measures every nested message
// and string (protobuf writes the length of each before its content), then ProtobufChunkWriter writes the bytes with
// those lengths, into chunks of at most CHUNK_BYTES handed out as they fill up.

import type { HrTime } from "@opentelemetry/api";

/** Largest piece of body handed out: as large as the steps in which zlib compresses. */
const CHUNK_BYTES = 64 * 1024;
/** Strings up to this many ASCII characters are copied byte by byte: cheaper than a call to `encodeInto`. */
const SHORT_ASCII = 24;
const TWO_POW_32 = 4294967296;

// Wire types.
const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

/** What a walk over a message does with each field: measure it, or write it. */
export interface FieldSink {
  /** Starts a nested message; {@link close} ends it. */
  open(field: number): void;
  close(): void;
  string(field: number, value: string): void;
  /** A trace or span id, given as hex, sent as bytes. */
  id(field: number, hex: string): void;
  bytes(field: number, value: Uint8Array): void;
  /** A uint32, bool, enum, or an int64 given as a whole number. */
  varint(field: number, value: number): void;
  fixed32(field: number, value: number): void;
  /** Nanoseconds since the epoch as fixed64. */
  time(field: number, time: HrTime): void;
  double(field: number, value: number): void;
}

/** Bytes of a tag, for field numbers below 2048 (those of OTLP are below 20). */
function tagSize(field: number): number {
  return field < 16 ? 1 : 2;
}

/** Bytes of a varint: a whole number of uint32 or int64 range (negative numbers take ten). */
function varintSize(value: number): number {
  if (value < 0) return 10;
  let size = 1;
  for (let limit = 0x80; value >= limit && size < 10; limit *= 0x80) size++;
  return size;
}

/** Bytes of the UTF-8 encoding of a string, lone surrogates counted as U+FFFD, as `TextEncoder` writes them. */
export function utf8Length(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) length += 1;
    else if (code >= 0xd800 && code < 0xdc00 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      length += 2; // a surrogate pair: two code units, four bytes
      i++;
    } else length += 2;
  }
  return length;
}

const nodeBuffer = (globalThis as { Buffer?: { byteLength(text: string, encoding: "utf8"): number } }).Buffer;
/** {@link utf8Length}, natively where Node's `Buffer` is there (several times faster on long text). */
const byteLength: (text: string) => number = nodeBuffer ? (text) => nodeBuffer.byteLength(text, "utf8") : utf8Length;

/** The first pass: adds up the bytes, and records the length of every nested message and string, in order. */
export class ProtobufMeasure implements FieldSink {
  readonly sizes: number[] = [];
  total = 0;
  /** For each open message: the index of its length in `sizes`, then `total` when it was opened. */
  readonly #openAt: number[] = [];

  open(field: number): void {
    this.total += tagSize(field);
    this.#openAt.push(this.sizes.length, this.total);
    this.sizes.push(0);
  }

  close(): void {
    const start = this.#openAt.pop() as number;
    const slot = this.#openAt.pop() as number;
    const length = this.total - start;
    this.sizes[slot] = length;
    this.total += varintSize(length);
  }

  string(field: number, value: string): void {
    const length = byteLength(value);
    this.sizes.push(length);
    this.total += tagSize(field) + varintSize(length) + length;
  }

  id(field: number, hex: string): void {
    const length = hex.length >>> 1;
    this.total += tagSize(field) + varintSize(length) + length;
  }

  bytes(field: number, value: Uint8Array): void {
    this.total += tagSize(field) + varintSize(value.length) + value.length;
  }

  varint(field: number, value: number): void {
    this.total += tagSize(field) + varintSize(value);
  }

  fixed32(field: number): void {
    this.total += tagSize(field) + 4;
  }

  time(field: number): void {
    this.total += tagSize(field) + 8;
  }

  double(field: number): void {
    this.total += tagSize(field) + 8;
  }
}

const encoder = new TextEncoder();

/** The second pass: writes the fields into chunks, with the lengths the first pass measured. */
export class ProtobufChunkWriter implements FieldSink {
  #chunk: Uint8Array;
  #view: DataView;
  #pos = 0;
  /** Bytes in finished chunks. */
  #written = 0;
  #ready: Uint8Array[] = [];
  /** The next length to read from `sizes`. */
  #next = 0;

  constructor(
    private readonly sizes: readonly number[],
    private readonly total: number,
  ) {
    this.#chunk = this.#newChunk();
    this.#view = new DataView(this.#chunk.buffer);
  }

  get hasReady(): boolean {
    return this.#ready.length > 0;
  }

  /** The finished chunks, handed over. */
  take(): Uint8Array[] {
    const ready = this.#ready;
    this.#ready = [];
    return ready;
  }

  /** Finishes the last chunk; throws if the bytes written are not the bytes measured. */
  finish(): void {
    this.#flush();
    if (this.#written !== this.total || this.#next !== this.sizes.length)
      throw new Error(`the spans changed while they were encoded (${this.#written} of ${this.total} bytes)`);
  }

  open(field: number): void {
    this.#lengthPrefix(field, this.sizes[this.#next++] as number);
  }

  close(): void {
    // Lengths come first in protobuf; nothing follows a message.
  }

  string(field: number, value: string): void {
    const length = this.sizes[this.#next++] as number;
    this.#lengthPrefix(field, length);
    if (length === value.length && length <= SHORT_ASCII && this.#pos + length <= this.#chunk.length) {
      const chunk = this.#chunk;
      let pos = this.#pos;
      for (let i = 0; i < length; i++) chunk[pos++] = value.charCodeAt(i);
      this.#pos = pos;
      return;
    }
    let rest = value;
    let left = length;
    for (;;) {
      const { read, written } = encoder.encodeInto(rest, this.#chunk.subarray(this.#pos));
      this.#pos += written;
      left -= written;
      if (read === rest.length) break;
      rest = rest.slice(read);
      this.#flush();
    }
    if (left !== 0) throw new Error("a string changed length while it was encoded");
  }

  id(field: number, hex: string): void {
    const length = hex.length >>> 1;
    this.#lengthPrefix(field, length);
    for (let i = 0; i < length; i++) {
      if (this.#pos === this.#chunk.length) this.#flush();
      this.#chunk[this.#pos++] = (hexDigit(hex.charCodeAt(2 * i)) << 4) | hexDigit(hex.charCodeAt(2 * i + 1));
    }
  }

  bytes(field: number, value: Uint8Array): void {
    this.#lengthPrefix(field, value.length);
    let from = 0;
    while (from < value.length) {
      if (this.#pos === this.#chunk.length) this.#flush();
      const count = Math.min(value.length - from, this.#chunk.length - this.#pos);
      this.#chunk.set(value.subarray(from, from + count), this.#pos);
      this.#pos += count;
      from += count;
    }
  }

  varint(field: number, value: number): void {
    this.#room(12);
    this.#tag(field, VARINT);
    if (value >= 0 && value <= 0xffffffff) this.#uint32(value >>> 0);
    else this.#int64(value);
  }

  fixed32(field: number, value: number): void {
    this.#room(6);
    this.#tag(field, FIXED32);
    this.#view.setUint32(this.#pos, value >>> 0, true);
    this.#pos += 4;
  }

  time(field: number, time: HrTime): void {
    this.#room(10);
    this.#tag(field, FIXED64);
    const [low, high] = nanosSinceEpoch(time);
    this.#view.setUint32(this.#pos, low, true);
    this.#view.setUint32(this.#pos + 4, high, true);
    this.#pos += 8;
  }

  double(field: number, value: number): void {
    this.#room(10);
    this.#tag(field, FIXED64);
    this.#view.setFloat64(this.#pos, value, true);
    this.#pos += 8;
  }

  /** The tag of a length-delimited field and its length. */
  #lengthPrefix(field: number, length: number): void {
    this.#room(7);
    this.#tag(field, LENGTH_DELIMITED);
    this.#uint32(length);
  }

  #tag(field: number, wireType: number): void {
    this.#uint32((field << 3) | wireType);
  }

  #uint32(value: number): void {
    const chunk = this.#chunk;
    let v = value;
    while (v > 0x7f) {
      chunk[this.#pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    chunk[this.#pos++] = v;
  }

  /** A whole number of int64 range, negative numbers in two's complement (ten bytes). */
  #int64(value: number): void {
    const chunk = this.#chunk;
    let low = value >>> 0;
    let high = Math.floor(value / TWO_POW_32) >>> 0;
    while (high !== 0 || low > 0x7f) {
      chunk[this.#pos++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    chunk[this.#pos++] = low;
  }

  /** Starts a new chunk unless `bytes` more fit in this one. */
  #room(bytes: number): void {
    if (this.#pos + bytes > this.#chunk.length) this.#flush();
  }

  #flush(): void {
    if (this.#pos === 0) return;
    this.#ready.push(this.#chunk.subarray(0, this.#pos));
    this.#written += this.#pos;
    this.#pos = 0;
    this.#chunk = this.#newChunk();
    this.#view = new DataView(this.#chunk.buffer);
  }

  /** A chunk for what is left (at least room for any single field's header), at most {@link CHUNK_BYTES}. */
  #newChunk(): Uint8Array {
    return new Uint8Array(Math.min(CHUNK_BYTES, Math.max(this.total - this.#written, 32)));
  }
}

/** The value of a hex digit (either case). */
function hexDigit(code: number): number {
  return code <= 0x39 ? code - 0x30 : (code | 0x20) - 0x57;
}

/** An HrTime as nanoseconds since the epoch, split in the low and high 32 bits of a uint64. */
function nanosSinceEpoch([seconds, nanos]: HrTime): [number, number] {
  const exact = Number.isInteger(seconds) && seconds >= 0 && seconds < TWO_POW_32;
  if (exact && Number.isInteger(nanos) && nanos >= 0 && nanos < TWO_POW_32) {
    // seconds × 10^9 = (seconds × 5^9) × 2^9, and seconds × 5^9 stays below 2^53: exact in a double.
    const scaled = seconds * 1953125;
    const high = Math.floor(scaled / 8388608); // the bits of seconds × 10^9 above 2^32
    const low = (scaled - high * 8388608) * 512 + nanos;
    const carry = Math.floor(low / TWO_POW_32);
    return [(low - carry * TWO_POW_32) >>> 0, (high + carry) >>> 0];
  }
  const whole = (n: number) => BigInt(Number.isFinite(n) ? Math.trunc(n) : 0);
  const total = BigInt.asUintN(64, whole(seconds) * 1_000_000_000n + whole(nanos));
  return [Number(total & 0xffffffffn), Number(total >> 32n)];
}
