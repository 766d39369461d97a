import type { Attributes, AttributeValue } from "@opentelemetry/api";
import {
  BASE64_MARKER,
  describeError,
  findDataUris,
  formatMediaReference,
  isThenable,
  type MediaUploader,
  mediaHash,
  parseDataUri,
  type ReadableSpan,
  RepeatLog,
  settleWithin,
} from "@svc/core";
import { type MaskFunction, PROCESSOR_NAME } from "../config.js";

/** Keys that hold input, output and metadata (per-key metadata included): what the mask and the media scan see. */
const DATA_KEY = /^svc\.(?:observation|trace)\.(?:input|output|metadata)/;
/** The field of the observation a data key holds; metadata for any other. */
const FIELD = /^svc\.(?:observation|trace)\.(input|output)(?:\.|$)/;

/** Exported in place of a value whose mask failed: it threw, rejected, timed out or returned what cannot be sent. */
export const MASK_FAILED_MARKER = "<fully masked due to failed mask function>";

/** A span on its way out, with the attributes to export once the enrich stage has run. */
export interface OutgoingSpan {
  span: ReadableSpan;
  /** The attributes to export: masked, media replaced. Unset until enriched. */
  attributes?: Attributes;
  /** The usage read from other instrumentation's attributes (JSON), to be written as the explicit usage when sent. */
  usage?: string;
  /** The provider whose SDK's own tracing also records this span's call, when its instrumentation may repeat it. */
  repeatsOwnTracing?: string;
  /** Attributes added to the span's own when it is enriched (the explicit usage). */
  extra?: Attributes;
}

/**
 * The enrich stage, run when a span's batch is first sent (never in `span.end()`): applies the mask to input,
 * output and metadata (whatever fails, the value is exported as a fixed marker, never unmasked), then replaces
 * base64 data URIs left in them with media references and uploads the media. Never rejects.
 */
export class EnrichStage {
  constructor(
    private readonly mask: MaskFunction | undefined,
    private readonly uploader: MediaUploader | undefined,
    private readonly maskTimeoutMs: number,
    private readonly repeats = new RepeatLog(),
  ) {}

  /**
   * Fills `attributes` of every span not yet enriched. When `signal` aborts (at shutdown), masks still pending are
   * no longer waited for: their values stay the fixed marker.
   */
  async enrich(batch: readonly OutgoingSpan[], signal?: AbortSignal): Promise<void> {
    const work: Promise<void>[] = [];
    for (const item of batch) {
      if (item.attributes !== undefined) continue;
      const pending = this.#enrichOne(item, signal);
      if (pending) work.push(pending);
    }
    if (work.length > 0) await Promise.all(work);
  }

  /** Enriches one span; returns a promise only when there is asynchronous work (an async mask, media). */
  #enrichOne(item: OutgoingSpan, signal: AbortSignal | undefined): Promise<void> | undefined {
    const source = item.extra ? { ...item.span.attributes, ...item.extra } : item.span.attributes;
    if (!this.mask && !this.uploader) {
      item.attributes = source;
      return undefined;
    }
    let attributes = source;
    const pending: Promise<void>[] = [];
    for (const key in source) {
      if (!DATA_KEY.test(key)) continue;
      if (this.mask) {
        const masked = this.#applyMask(key, source[key], signal);
        if (attributes === source) attributes = { ...source };
        if (masked instanceof Promise) {
          const own = attributes;
          own[key] = MASK_FAILED_MARKER; // until the mask settles, never the unmasked value
          pending.push(masked.then((v) => this.#store(own, key, v, item)));
          continue;
        }
        this.#store(attributes, key, masked, undefined);
      }
      const current = attributes[key];
      if (this.uploader && typeof current === "string" && current.includes(BASE64_MARKER)) {
        if (attributes === source) attributes = { ...source };
        pending.push(this.#replaceMedia(attributes, key, current, item.span));
      }
    }
    item.attributes = attributes;
    return pending.length === 0 ? undefined : Promise.all(pending).then(() => undefined);
  }

  /** Writes a masked value; for an async mask, also looks for media in what it returned. */
  #store(attributes: Attributes, key: string, value: AttributeValue | undefined, item: OutgoingSpan | undefined) {
    if (value === undefined) delete attributes[key];
    else attributes[key] = value;
    if (item && this.uploader && typeof value === "string" && value.includes(BASE64_MARKER))
      return this.#replaceMedia(attributes, key, value, item.span);
  }

  #applyMask(key: string, value: AttributeValue | undefined, signal: AbortSignal | undefined) {
    let masked: unknown;
    try {
      masked = (this.mask as MaskFunction)({ data: value });
    } catch (error) {
      return this.#maskFailed(key, error);
    }
    return isThenable(masked) ? this.#settleMask(key, masked, signal) : this.#toAttribute(key, masked);
  }

  async #settleMask(key: string, pending: PromiseLike<unknown>, signal: AbortSignal | undefined) {
    const masked = await settleWithin(() => pending, { timeoutMs: this.maskTimeoutMs, signal });
    switch (masked.kind) {
      case "value":
        return this.#toAttribute(key, masked.value);
      case "error":
        return this.#maskFailed(key, masked.error);
      case "timeout":
        return this.#maskFailed(key, new Error(`it did not settle within ${this.maskTimeoutMs} ms`));
      case "aborted":
        return MASK_FAILED_MARKER; // shutdown stopped waiting: the span is not sent
    }
  }

  #toAttribute(key: string, masked: unknown): AttributeValue | undefined {
    if (masked === undefined || masked === null) return undefined;
    if (typeof masked === "string" || typeof masked === "number" || typeof masked === "boolean") return masked;
    let text: string | undefined;
    let cause: unknown;
    try {
      text = JSON.stringify(masked);
    } catch (error) {
      cause = error;
    }
    if (typeof text === "string") return text;
    return this.#maskFailed(key, new Error("it returned a value that cannot be serialized to JSON", { cause }));
  }

  #maskFailed(key: string, error: unknown): string {
    const kind = `${PROCESSOR_NAME}: mask function failed; the value is exported as a fixed marker`;
    this.repeats.error(kind, `${kind} (${key}): ${describeError(error)}`);
    return MASK_FAILED_MARKER;
  }

  /** Replaces each data URI in the value with a media reference and starts its upload. */
  async #replaceMedia(attributes: Attributes, key: string, value: string, span: ReadableSpan): Promise<void> {
    const uploader = this.uploader as MediaUploader;
    const { traceId, spanId } = span.spanContext();
    const field = (FIELD.exec(key)?.[1] ?? "metadata") as "input" | "output" | "metadata";
    let next = value;
    try {
      for (const uri of findDataUris(value)) {
        const parsed = parseDataUri(uri);
        if (typeof parsed === "string") continue;
        const { contentType, bytes } = parsed;
        const { sha256Hash, mediaId } = await mediaHash(bytes);
        next = next.replaceAll(uri, formatMediaReference({ contentType, mediaId, source: "base64_data_uri" }));
        const target = { traceId, observationId: spanId, field };
        void uploader.upload({ mediaId, sha256Hash, contentType, bytes, target }).then((result) => {
          if (result.ok) return;
          const kind = `${PROCESSOR_NAME}: media upload failed; the span keeps its media reference without content`;
          this.repeats.error(kind, `${kind} (mediaId=${mediaId}, traceId=${traceId}): ${result.reason}`);
        });
      }
      attributes[key] = next;
    } catch (error) {
      const kind = `${PROCESSOR_NAME}: media handling failed; the value is exported as it was`;
      this.repeats.error(kind, `${kind} (span "${span.name}"): ${describeError(error)}`);
    }
  }
}
