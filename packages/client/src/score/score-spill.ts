import { outcomeOf, type RepeatLog, type SendOutcome, Spill } from "@svc/core";
import { parseBody } from "../api/errors.js";
import type { Operation } from "../api/operation.js";
import type { RequestRuntime } from "../api/request-runtime.js";
import type { ScoreManagerConfig } from "./config.js";
import { rejectionOf } from "./validate-score.js";

/** What posting scores needs of the score manager's context. */
interface ScoreSendContext {
  runtime: RequestRuntime;
  config: ScoreManagerConfig;
  hasCredentials: boolean;
  server?: string | undefined;
  identity?: string | undefined;
}

/** Lines of partial rejections (HTTP 207) logged in full before the others are counted. */
const REJECTION_LINES_IN_FULL = 3;
/** The route of `svc.api.scores.create`, to which the queue posts its batches already encoded. */
const CREATE_SCORES: Operation = { method: "POST", path: "/api/public/scores", body: true };

/**
 * Posts a score batch body (the JSON array as it goes on the wire) and says what became of its `count` scores:
 * delivered, partly rejected (HTTP 207, logged), to be retried, or dropped; `"tooLarge"` when the server answered 413.
 */
export async function postScoreBody(
  context: ScoreSendContext,
  body: Uint8Array,
  count: number,
  signal: AbortSignal,
  repeats: RepeatLog,
  owner: string,
): Promise<SendOutcome<number> | "tooLarge"> {
  const result = await context.runtime.send(
    CREATE_SCORES,
    {},
    undefined,
    { maxRetries: 0, abortSignal: signal, timeoutInSeconds: context.config.attemptTimeoutSeconds },
    body,
  );
  if (!result.ok && result.failure.kind === "status" && result.failure.status === 413) return "tooLarge";
  if (!result.ok)
    return outcomeOf(
      result,
      Array.from({ length: count }, (_, i) => i),
      "POST",
    );
  const rejection = rejectionOf(parseBody(new TextDecoder().decode(result.response.body)), count);
  if (!rejection) return { delivered: count };
  repeats.error(`${owner}: scores rejected by the server`, rejection.line, {
    count: rejection.rejected,
    unit: "scores",
    inFull: REJECTION_LINES_IN_FULL,
  });
  return {
    delivered: count - rejection.rejected,
    dropped: [{ count: rejection.rejected, reason: "rejected", detail: rejection.line, logged: true }],
  };
}

/**
 * The score queue's spill directory, when `spillDir` (or SVC_SPILL_DIR) names one on a server runtime: a batch is
 * written as the JSON array it is posted as (each score with its own timestamp), and posted again with the client's
 * current keys. Undefined otherwise.
 */
export function scoreSpill<T extends { json: string }>(
  context: ScoreSendContext,
  repeats: RepeatLog,
  owner: string,
): Spill<T> | undefined {
  const settings = context.config.spill;
  if (settings === undefined || !context.hasCredentials) return undefined;
  return new Spill<T>(settings, {
    owner,
    items: "scores",
    identity: context.identity ?? context.server ?? "",
    encode: async (batch) => ({
      body: scoreBatchBody(batch),
      header: { contentType: "application/json" },
    }),
    send: async (body, _header, count, signal) => {
      const outcome = await postScoreBody(context, body, count, signal, repeats, owner);
      if (outcome !== "tooLarge") return outcome;
      const detail = `a spilled batch of ${count} scores was refused as too large (HTTP 413)`;
      return { delivered: 0, dropped: [{ count, reason: "tooLarge", detail }] };
    },
  });
}

/** The body of `POST /api/public/scores` for queued scores: their JSON texts joined into an array. */
export function scoreBatchBody(batch: readonly { json: string }[]): Uint8Array {
  return new TextEncoder().encode(`[${batch.map((item) => item.json).join(",")}]`);
}
