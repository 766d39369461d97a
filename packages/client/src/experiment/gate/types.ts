/** Options of `result.compareWithBaseline()`: which run to compare with, the thresholds, and where to write. */
export interface GateOptions {
  /**
   * Run name of the baseline. Without it, the latest earlier run of the same dataset (local data: of no dataset, its
   * name starting with the experiment's name).
   */
  baseline?: string;
  /** Largest drop of a score that passes, for all or per name (else the `"*"` entry, else 0). @defaultValue 0 */
  maxDrop?: number | Record<string, number>;
  /** Item assertions such as `"exact_match >= 1"` that decide whether an item (whose task succeeded) passes. */
  assertions?: string[];
  /** Whether an item that went from pass to fail fails the gate. @defaultValue false */
  failOnFlips?: boolean;
  /** File the Markdown table is appended to, for example `process.env.GITHUB_STEP_SUMMARY`. */
  summaryPath?: string;
  /** File the comparison is written to as JSON (replaced), without `markdown`, `baseline: null` when none was found. */
  jsonPath?: string;
}

/** One run score of the comparison. */
export interface GateScore {
  /** Score name. */
  name: string;
  /** `item mean`: the mean of an item evaluation over every item and trial; `run`: a run evaluation. */
  kind: "item mean" | "run";
  /** The baseline's value; `undefined` when the baseline has no such score. */
  baseline: number | undefined;
  /** This run's value; `undefined` when this run has no such score. */
  current: number | undefined;
  /** `current - baseline`, when both are known. */
  change: number | undefined;
  /** Largest drop that passes. */
  maxDrop: number;
  /** Whether the score passes: no baseline value, or a drop no larger than `maxDrop`. A missing current value fails. */
  passed: boolean;
}

/** An item whose pass or fail differs between the baseline and this run. */
export interface GateFlip {
  /** Item id (the dataset item's id, or the hash of its input for local data). */
  itemId: string;
  /** The item's input. */
  input: unknown;
  /** `regressed`: passed in the baseline, fails now; `fixed`: the other way round. */
  direction: "regressed" | "fixed";
}

/** The run a comparison was made against. */
export interface GateBaseline {
  /** Experiment id. */
  experimentId: string;
  /** Run name. */
  runName: string;
}

/** Outcome of a comparison with a baseline run. */
export interface GateResult {
  /** Whether every score passes (and no item regressed, with `failOnFlips`). True when there is no baseline. */
  passed: boolean;
  /** Name of the run compared. */
  runName: string;
  /** The baseline; `undefined` when no earlier run was found. */
  baseline: GateBaseline | undefined;
  /** One entry per score, item means first, by name. */
  scores: GateScore[];
  /** Items that flipped, regressions first. */
  flips: GateFlip[];
  /** The comparison as a Markdown section: a heading, the score table and the flipped items. */
  markdown: string;
}

/** A score as the experiment routes list it. */
export interface ListedScore {
  name: string;
  value: unknown;
}

/** The REST calls a comparison makes to read its baseline; `svc.api` has them. */
export interface GateApi {
  experiments: {
    list(request: {
      fromStartTime: string;
      datasetId?: string | null;
      name?: string | null;
      fields?: string | null;
      limit?: number | null;
      cursor?: string | null;
    }): PromiseLike<{
      data: { id: string; name: string; datasetId: string | null; scores?: ListedScore[] | null }[];
      meta?: { cursor?: string | null };
    }>;
    listItems(request: {
      fromStartTime: string;
      experimentId?: string | null;
      fields?: string | null;
      limit?: number | null;
      cursor?: string | null;
    }): PromiseLike<{
      data: { experimentItemId: string; level: string; scores?: ListedScore[] | null }[];
      meta?: { cursor?: string | null };
    }>;
  };
}
