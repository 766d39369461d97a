import type { GateApi, GateOptions, GateResult } from "./gate/types.js";

/** Metadata of an item, an experiment or an evaluation: a JSON-serializable object. */
export type ExperimentMetadata = Record<string, unknown>;

/** One item an experiment runs the task on: local data, or a dataset item (which also has `id` and `datasetId`). */
export interface ExperimentItem<Input = unknown, ExpectedOutput = unknown, Metadata = ExperimentMetadata> {
  /** What the task receives. An item without input is not run. */
  input?: Input;
  /** What the task should produce; passed to evaluators. */
  expectedOutput?: ExpectedOutput;
  /** Free-form data about the item; recorded on the item's trace and passed to evaluators. */
  metadata?: Metadata;
  /** Dataset item id; set on dataset items only. */
  id?: string;
  /** Id of the dataset the item belongs to; set on dataset items only. */
  datasetId?: string;
}

/** What a task receives: the item itself. */
export type ExperimentTaskParams<
  Input = unknown,
  ExpectedOutput = unknown,
  Metadata = ExperimentMetadata,
> = ExperimentItem<Input, ExpectedOutput, Metadata>;

/** What a task receives besides the item. A task may ignore it. */
export interface ExperimentTaskContext {
  /** Aborts when the attempt runs out of time or the run is aborted; pass it on to `fetch` and model clients. */
  signal: AbortSignal;
  /** 1 for the first attempt, 2 for the first retry, and so on. */
  attempt: number;
}

/** The function under test: turns an item into an output. It may be async. */
export type ExperimentTask<
  Input = unknown,
  ExpectedOutput = unknown,
  Metadata = ExperimentMetadata,
  Output = unknown,
> = (
  params: ExperimentTaskParams<Input, ExpectedOutput, Metadata>,
  context: ExperimentTaskContext,
) => Output | Promise<Output>;

/** One judgement of an output, sent as a score. */
export interface Evaluation {
  /** Score name; must not be empty. */
  name: string;
  /** Score value. `true`/`false` are sent as 1/0 with data type `BOOLEAN`. */
  value: number | string | boolean;
  /** Why the value was given. */
  comment?: string;
  /** Free-form data stored with the score. */
  metadata?: ExperimentMetadata;
  /** Score data type; inferred by the server when omitted. */
  dataType?: "NUMERIC" | "CATEGORICAL" | "BOOLEAN";
  /** Id of the score config the value follows. */
  configId?: string;
}

/** A score as the experiment runner hands it to the score manager (fields of `POST /api/public/scores`). */
export interface ExperimentScoreBody {
  name: string;
  value: number | string;
  traceId?: string;
  observationId?: string;
  datasetRunId?: string;
  comment?: string;
  metadata?: Record<string, unknown>;
  dataType?: "NUMERIC" | "CATEGORICAL" | "BOOLEAN";
  configId?: string;
}

/** What an item evaluator receives. */
export interface EvaluatorParams<
  Input = unknown,
  ExpectedOutput = unknown,
  Metadata = ExperimentMetadata,
  Output = unknown,
> {
  /** The item's input. */
  input: Input | undefined;
  /** What the task returned for the item. */
  output: Output;
  /** The item's expected output. */
  expectedOutput: ExpectedOutput | undefined;
  /** The item's metadata. */
  metadata: Metadata | undefined;
}

/** Judges one item's output; returns one evaluation or several. It may be async. */
export type Evaluator<Input = unknown, ExpectedOutput = unknown, Metadata = ExperimentMetadata, Output = unknown> = (
  params: EvaluatorParams<Input, ExpectedOutput, Metadata, Output>,
) => Evaluation | Evaluation[] | Promise<Evaluation | Evaluation[]>;

/** Something that went wrong in one evaluator; the other evaluations are kept. */
export interface EvaluationFailure {
  /** The evaluator's function name, or `evaluator #<index>` for an anonymous one. */
  evaluator: string;
  /** The error message. */
  message: string;
}

/**
 * How an item ended: `ok`, the task returned; `failed`, it threw on every attempt, or the item has no input;
 * `timeout`, the last attempt outran `itemTimeoutMs`; `skipped`, the run was aborted before the item ended (not
 * started, or abandoned while it ran).
 */
export type ExperimentItemStatus = "ok" | "failed" | "timeout" | "skipped";

/** Mean and spread of one evaluator's numeric values over the trials of an item (booleans count as 1 and 0). */
export interface ScoreSummary {
  /** Mean of the values. */
  mean: number;
  /** Population standard deviation of the values; 0 for one value. */
  stdev: number;
  /** Smallest value. */
  min: number;
  /** Largest value. */
  max: number;
  /** Number of values: trials that produced the evaluation. */
  count: number;
}

/** One run of the task on an item: each trial is a trace of its own, linked to the same item and run. */
export interface ExperimentTrialResult<Output = unknown> {
  /** 1 for the first trial, up to `trials`. */
  trial: number;
  /** How the trial ended. */
  status: ExperimentItemStatus;
  /** Attempts of the task in this trial. */
  attempts: number;
  /** What the task returned; `undefined` when it failed. */
  output: Output | undefined;
  /** Evaluations sent as scores on the trial's trace. */
  evaluations: Evaluation[];
  /** Id of the trial's trace. */
  traceId: string | undefined;
  /** Why the trial is not `ok`. */
  error?: string;
  /** Evaluators that failed in this trial. */
  evaluationFailures: EvaluationFailure[];
}

/**
 * The outcome of one item. With several `trials`, its own fields are those of its first trial that did not end `ok`,
 * else of its first trial; `trials` lists every trial and `scores` sums up each evaluator over them.
 */
export interface ExperimentItemResult<
  Input = unknown,
  ExpectedOutput = unknown,
  Metadata = ExperimentMetadata,
  Output = unknown,
> {
  /** The item as given. */
  item: ExperimentItem<Input, ExpectedOutput, Metadata>;
  /** How the item ended; only `ok` items have an output and evaluations. */
  status: ExperimentItemStatus;
  /** Attempts of the task: 0 for an item that was not started, at most `maxRetries + 1`. */
  attempts: number;
  /** The item's input. */
  input: Input | undefined;
  /** The item's expected output. */
  expectedOutput: ExpectedOutput | undefined;
  /** What the task returned; `undefined` when it failed. */
  output: Output | undefined;
  /** Evaluations sent as scores on the item's trace. */
  evaluations: Evaluation[];
  /** Id of the item's trace; `undefined` when the item or its span was not started. */
  traceId: string | undefined;
  /** Why the item is not `ok`: the task's error message, the time-out, or the abort. */
  error?: string;
  /** Evaluators that threw or returned something that is not an evaluation. */
  evaluationFailures: EvaluationFailure[];
  /** Every trial of the item, in order; one unless the run sets `trials`. */
  trials: ExperimentTrialResult<Output>[];
  /** Per evaluator name, the mean and spread of its numeric values over the item's trials. */
  scores: Record<string, ScoreSummary>;
}

/** An item result as the runner handles it, whatever the run's types. */
export type AnyItemResult = ExperimentItemResult<unknown, unknown, unknown, unknown>;

/** What a run evaluator receives: every item result, in input order. */
export interface RunEvaluatorParams<
  Input = unknown,
  ExpectedOutput = unknown,
  Metadata = ExperimentMetadata,
  Output = unknown,
> {
  /** Results of every item, failed ones included, in input order; each holds all its `trials`. */
  itemResults: ExperimentItemResult<Input, ExpectedOutput, Metadata, Output>[];
}

/** Judges the whole run once, after every item; its evaluations are sent as run-level scores. */
export type RunEvaluator<Input = unknown, ExpectedOutput = unknown, Metadata = ExperimentMetadata, Output = unknown> = (
  params: RunEvaluatorParams<Input, ExpectedOutput, Metadata, Output>,
) => Evaluation | Evaluation[] | Promise<Evaluation | Evaluation[]>;

/** Where a run stands, passed to `onProgress` after each item ends; with several `trials`, counts are of trials. */
export interface ExperimentProgress {
  /** Items in the run, times `trials`. */
  total: number;
  /** Items that have ended, whatever their status. */
  done: number;
  /** Items whose task returned. */
  ok: number;
  /** Items whose task threw on every attempt, or that have no input. */
  failed: number;
  /** Items whose last attempt ran out of time. */
  timedOut: number;
  /** Items the run left out after it was aborted. */
  skipped: number;
  /** Items whose task has started and that have not ended yet (retries and evaluators included). */
  running: number;
  /** Attempts made after an item's first, over all items so far. */
  retries: number;
  /** Milliseconds since the run started. */
  elapsedMs: number;
}

/** Options of {@link ExperimentManager.run}. */
export interface ExperimentParams<
  Input = unknown,
  ExpectedOutput = unknown,
  Metadata = ExperimentMetadata,
  Output = unknown,
> {
  /** Experiment name, shared by all its runs. */
  name: string;
  /** Name of this run. @defaultValue `<name> - <ISO time>` */
  runName?: string;
  /** Description of this run. */
  description?: string;
  /** Metadata of this run, recorded on every item's trace. */
  metadata?: ExperimentMetadata;
  /** The items to run the task on. */
  data: ExperimentItem<Input, ExpectedOutput, Metadata>[];
  /** The function under test. */
  task: ExperimentTask<Input, ExpectedOutput, Metadata, Output>;
  /**
   * Times the task runs on each item, each trial a trace of its own (same item id and run) with its own place under
   * `maxConcurrency`, retries and time limit. At most 100. @defaultValue 1
   */
  trials?: number;
  /** Judge each item's output. */
  evaluators?: Evaluator<Input, ExpectedOutput, Metadata, Output>[];
  /** Judge the whole run once. */
  runEvaluators?: RunEvaluator<Input, ExpectedOutput, Metadata, Output>[];
  /**
   * Most items in flight at once; an item keeps its place while it waits to retry, a timed-out attempt gives it up.
   * @defaultValue 50
   */
  maxConcurrency?: number;
  /**
   * Longest time in milliseconds of one attempt of the task and of one evaluator call. An attempt that runs out is
   * abandoned (its `signal` aborts) and retried while retries are left, else the item ends `timeout`; an evaluator
   * that runs out is reported as failed. No limit by default.
   */
  itemTimeoutMs?: number;
  /**
   * Retries of a task that throws or runs out of time, after 1 s doubling each retry (±25 %, at most 30 s); each
   * attempt is then a child span `experiment-item-attempt`. At most 10. @defaultValue 0
   */
  maxRetries?: number;
  /**
   * Aborts the run: remaining items are skipped (running ones abandoned, their `signal` aborted), run evaluators not
   * called; what was recorded is still flushed before `run` resolves.
   */
  signal?: AbortSignal;
  /** Called after each item ends, with the counts so far; an error it throws is logged and ignored. */
  onProgress?: (progress: ExperimentProgress) => void;
  /** Whether to draw a progress line on stderr when it is a terminal (never in a pipe or CI). @defaultValue true */
  showProgress?: boolean;
  /** Dataset version the items come from, recorded as `svc.experiment.item.version`. */
  datasetVersion?: string | Date;
}

/** Options of {@link ExperimentResult.format}. */
export interface FormatOptions {
  /** List every item. @defaultValue true */
  includeItemResults?: boolean;
}

/** The outcome of a run. */
export interface ExperimentResult<
  Input = unknown,
  ExpectedOutput = unknown,
  Metadata = ExperimentMetadata,
  Output = unknown,
> {
  /** Id recorded as `svc.experiment.id` on every item's spans; run-level scores carry it as `datasetRunId`. */
  experimentId: string;
  /** Name of this run. */
  runName: string;
  /** One result per item, in input order. */
  itemResults: ExperimentItemResult<Input, ExpectedOutput, Metadata, Output>[];
  /** Evaluations of the run evaluators, sent as run-level scores. */
  runEvaluations: Evaluation[];
  /** Run evaluators that threw or returned something that is not an evaluation. */
  runEvaluationFailures: EvaluationFailure[];
  /** Link to the experiment comparison view; `undefined` when the project id could not be read. */
  experimentUrl: string | undefined;
  /** Renders a readable summary: items, outputs, evaluations, run evaluations and the link. */
  format(options?: FormatOptions): string;
  /**
   * Compares this run with a baseline run on the server (named, or the latest of the same dataset): each score's change
   * against its threshold and the items that flipped; writes the Markdown and JSON to the paths given.
   * @throws the REST client's typed errors when the baseline cannot be read.
   */
  compareWithBaseline(options?: GateOptions): Promise<GateResult>;
}

/** Options of a run on a fetched dataset: the dataset supplies the items and its version. */
export type RunExperimentOnDatasetParams<
  Input = unknown,
  ExpectedOutput = unknown,
  Metadata = ExperimentMetadata,
  Output = unknown,
> = Omit<ExperimentParams<Input, ExpectedOutput, Metadata, Output>, "data" | "datasetVersion">;

/** `runExperiment` of a dataset returned by `svc.dataset.get()`. */
export type RunExperimentOnDataset = <Output = unknown>(
  params: RunExperimentOnDatasetParams<unknown, unknown, unknown, Output>,
) => Promise<ExperimentResult<unknown, unknown, unknown, Output>>;

/** Options of {@link ExperimentManager.deleteData}. */
export interface DeleteExperimentDataParams {
  /** Dataset the experiment ran on. */
  datasetName: string;
  /** Experiment name as the server lists it: the run's `runName`, recorded as `svc.experiment.name`. */
  experimentName: string;
}

/** What {@link ExperimentManager.deleteData} removed. */
export interface DeleteExperimentDataResult {
  /** Ids of the deleted traces, each once. */
  deletedTraceIds: string[];
}

/** Items in flight at once when `maxConcurrency` is not given. */
export const DEFAULT_EXPERIMENT_MAX_CONCURRENCY = 50;

/** The REST calls the deletion procedure makes; `svc.api` has them. */
export interface ExperimentDataApi {
  datasets: { get(datasetName: string): PromiseLike<{ id: string; createdAt: string | Date }> };
  experiments: {
    listItems(request: {
      datasetId: string;
      experimentName: string;
      fromStartTime: string;
      cursor?: string;
    }): PromiseLike<{ data: { traceId: string }[]; meta?: { cursor?: string | null } }>;
  };
  trace: { deleteMultiple(request: { traceIds: string[] }): PromiseLike<unknown> };
}

/** What the experiment runner needs from {@link SvcClient}. */
export interface ExperimentManagerDeps {
  /** Queues scores and sends them. */
  score: { create(body: ExperimentScoreBody): void; flush(): Promise<void> };
  /** Link to the experiment comparison view. */
  getExperimentUrl(experimentId: string): Promise<string>;
  /** REST calls of {@link ExperimentManager.deleteData} and of the comparison with a baseline run. */
  api: ExperimentDataApi & GateApi;
  /** The client's `sampleRate`: below 1, a run warns that some of its items' scores are not sent. @defaultValue 1 */
  sampleRate?: number;
  /** Where the progress line is drawn, when it is a terminal. @defaultValue `process.stderr` */
  progressStream?: ProgressStream;
}

/** Where the progress line is drawn: stderr, or a stream given in its place. */
export interface ProgressStream {
  /** Whether the stream is a terminal; the line is drawn only then. */
  isTTY?: boolean;
  /** Width of the terminal in characters, when known. */
  columns?: number;
  /** Writes text as it is (the line is redrawn with a carriage return). */
  write(text: string): unknown;
}
