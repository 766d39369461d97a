import { BoundedMap } from "./bounded-map.js";

/** The prompt version a generation is linked to, as attached to a run's metadata under `svcPrompt`. */
export interface PromptLink {
  name: string;
  version: number;
  isFallback: boolean;
}

/** The metadata key under which a run carries the prompt its generation should link to. */
export const PROMPT_METADATA_KEY = "svcPrompt";

/**
 * Reads a prompt link from a value such as a prompt fetched with `svc.prompt.get`: a non-empty `name`, an
 * integer `version` (or digit string) and an optional boolean `isFallback`. Returns a reason when it is not one.
 */
export function parsePromptLink(value: unknown): PromptLink | string {
  if (typeof value !== "object" || value === null) return "not an object";
  const { name, version, isFallback } = value as Record<string, unknown>;
  if (typeof name !== "string" || name === "") return "name must be a non-empty string";
  const parsedVersion = typeof version === "string" && /^\d+$/.test(version) ? Number(version) : version;
  if (typeof parsedVersion !== "number" || !Number.isSafeInteger(parsedVersion)) {
    return `version must be an integer (name="${name}")`;
  }
  return { name, version: parsedVersion, isFallback: isFallback === true };
}

/**
 * Prompt links waiting for a generation: a run that carries a prompt (typically a sequence's prompt template step)
 * registers it under its parent run; the next generation with that parent takes it.
 */
export class PromptLinks {
  readonly #byParentRun: BoundedMap<string, PromptLink>;

  constructor(limit = 1000) {
    this.#byParentRun = new BoundedMap(limit);
  }

  register(parentRunId: string, link: PromptLink): void {
    this.#byParentRun.set(parentRunId, link);
  }

  take(parentRunId: string | undefined): PromptLink | undefined {
    return parentRunId === undefined ? undefined : this.#byParentRun.take(parentRunId);
  }

  /** Drops the link registered under `runId`, when that run ends before a generation took it. */
  release(runId: string): void {
    this.#byParentRun.delete(runId);
  }
}
