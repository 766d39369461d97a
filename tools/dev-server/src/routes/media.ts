import { createHash } from "node:crypto";
import { HttpError } from "../http.ts";
import type { Route } from "../route.ts";
import type { StoredMedia } from "../store.ts";

/** The largest media file the server takes, in bytes (the server's default limit). */
export const MAX_MEDIA_BYTES = 1_000_000_000;
/** How long a media download URL stays valid, in milliseconds. */
const URL_TTL_MS = 60 * 60 * 1000;
/** Where the server stores and serves media bytes; stands in for the object store of a real deployment. */
export const MEDIA_STORAGE_PATH = "/dev-storage/media";

/** The media id the server derives from a SHA-256 hash (standard base64): its first 22 base64url characters. */
export function mediaIdFromHash(sha256Hash: string): string {
  const digest = Buffer.from(sha256Hash, "base64");
  if (digest.length !== 32) throw new HttpError(400, "sha256Hash must be the base64 of a 32-byte SHA-256 digest");
  return digest.toString("base64url").slice(0, 22);
}

const orNull = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);

/** The media record the server hands out for stored media: its type, size and a signed, expiring download URL. */
export function mediaRecord(media: StoredMedia, baseUrl: string) {
  return {
    mediaId: media.mediaId,
    contentType: media.contentType,
    contentLength: media.contentLength,
    url: `${baseUrl}${MEDIA_STORAGE_PATH}/${media.mediaId}`,
    urlExpiry: new Date(Date.now() + URL_TTL_MS).toISOString(),
  };
}

export const mediaRoutes: Route[] = [
  {
    method: "POST",
    path: "/api/public/media",
    auth: "basic",
    body: "json",
    handle(ctx) {
      const body = (ctx.body ?? {}) as Record<string, unknown>;
      const { contentType, contentLength, sha256Hash, field } = body;
      if (typeof contentType !== "string" || !/^[\w.+-]+\/[\w.+-]+$/.test(contentType)) {
        throw new HttpError(400, `contentType must be a MIME type, got ${JSON.stringify(contentType)}`);
      }
      if (typeof contentLength !== "number" || !Number.isInteger(contentLength) || contentLength < 0) {
        throw new HttpError(400, "contentLength must be a non-negative integer");
      }
      if (contentLength > MAX_MEDIA_BYTES) {
        throw new HttpError(400, `contentLength ${contentLength} is above the limit of ${MAX_MEDIA_BYTES} bytes`);
      }
      if (typeof sha256Hash !== "string") throw new HttpError(400, "sha256Hash must be a string");
      if (typeof field !== "string") throw new HttpError(400, "field must be a string");
      const mediaId = mediaIdFromHash(sha256Hash);
      const existing = ctx.store.media.get(mediaId);
      if (existing?.bytes) return { body: { mediaId, uploadUrl: null } };
      const media: StoredMedia = {
        mediaId,
        contentType,
        contentLength,
        sha256Hash,
        field,
        traceId: orNull(body.traceId),
        observationId: orNull(body.observationId),
        datasetId: orNull(body.datasetId),
        datasetItemId: orNull(body.datasetItemId),
        createdAt: new Date().toISOString(),
        bytes: undefined,
        uploadedAt: undefined,
        uploadHttpStatus: undefined,
        uploadHttpError: null,
      };
      ctx.store.media.set(mediaId, media);
      return { body: { mediaId, uploadUrl: `${ctx.baseUrl}${MEDIA_STORAGE_PATH}/${mediaId}` } };
    },
  },
  {
    method: "PUT",
    path: `${MEDIA_STORAGE_PATH}/{mediaId}`,
    auth: "none",
    body: "raw",
    handle(ctx) {
      const media = ctx.store.media.get(ctx.params.mediaId!);
      if (!media) throw new HttpError(404, `No upload was requested for media ${ctx.params.mediaId}`);
      const hash = createHash("sha256").update(ctx.rawBody).digest("base64");
      if (hash !== media.sha256Hash) {
        throw new HttpError(400, "Uploaded bytes do not match the sha256Hash given when the upload URL was requested");
      }
      const sentType = String(ctx.headers["content-type"] ?? "")
        .split(";")[0]!
        .trim();
      if (sentType !== media.contentType) {
        throw new HttpError(400, `Content-Type "${sentType}" differs from the requested "${media.contentType}"`);
      }
      media.bytes = Buffer.from(ctx.rawBody);
      return { status: 200, body: {} };
    },
  },
  {
    method: "GET",
    path: `${MEDIA_STORAGE_PATH}/{mediaId}`,
    auth: "none",
    body: "none",
    handle(ctx) {
      const media = ctx.store.media.get(ctx.params.mediaId!);
      if (!media?.bytes) throw new HttpError(404, `Media ${ctx.params.mediaId} has not been uploaded`);
      return { raw: { contentType: media.contentType, data: media.bytes } };
    },
  },
  {
    method: "PATCH",
    path: "/api/public/media/{mediaId}",
    auth: "basic",
    body: "json",
    handle(ctx) {
      const media = ctx.store.media.get(ctx.params.mediaId!);
      if (!media) throw new HttpError(404, `Media not found: ${ctx.params.mediaId}`);
      const body = (ctx.body ?? {}) as Record<string, unknown>;
      if (typeof body.uploadedAt !== "string" || typeof body.uploadHttpStatus !== "number") {
        throw new HttpError(400, "uploadedAt (date-time) and uploadHttpStatus (integer) are required");
      }
      media.uploadedAt = new Date(body.uploadedAt).toISOString();
      media.uploadHttpStatus = body.uploadHttpStatus;
      media.uploadHttpError = orNull(body.uploadHttpError);
      return { status: 204 };
    },
  },
  {
    method: "GET",
    path: "/api/public/media/{mediaId}",
    auth: "basic",
    body: "none",
    handle(ctx) {
      const media = ctx.store.media.get(ctx.params.mediaId!);
      if (!media?.bytes) throw new HttpError(404, `Media not found: ${ctx.params.mediaId}`);
      const { mediaId, contentType, contentLength, url, urlExpiry } = mediaRecord(media, ctx.baseUrl);
      return {
        body: {
          mediaId,
          contentType,
          contentLength,
          uploadedAt: media.uploadedAt ?? media.createdAt,
          url,
          urlExpiry,
        },
      };
    },
  },
];
