/** Metadata of an item, an experiment or an evaluation: a JSON-serializable object. */
export type ExperimentMetadata = Record<string, unknown>;

/**
 * One item an experiment runs the task on: local data (`input`, `expectedOutput`, `metadata`), or a
 * dataset item, which also carries its `id` and `datasetId`.
 */
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

/** The function under test: turns an item into an output. It may be async. */
export type ExperimentTask<
  Input = unknown,
  ExpectedOutput = unknown,
  Metadata = ExperimentMetadata,
  Output = unknown,
> = (params: ExperimentTaskParams<Input, ExpectedOutput, Metadata>) => Output | Promise<Output>;

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

/** The outcome of one item. */
export interface ExperimentItemResult<
  Input = unknown,
  ExpectedOutput = unknown,
  Metadata = ExperimentMetadata,
  Output = unknown,
> {
  /** The item as given. */
  item: ExperimentItem<Input, ExpectedOutput, Metadata>;
  /** The item's input. */
  input: Input | undefined;
  /** The item's expected output. */
  expectedOutput: ExpectedOutput | undefined;
  /** What the task returned; `undefined` when it failed. */
  output: Output | undefined;
  /** Evaluations sent as scores on the item's trace. */
  evaluations: Evaluation[];
  /** Id of the item's trace; `undefined` only when no span could be started. */
  traceId: string | undefined;
  /** Message of the error the task threw; the item then has no evaluations. */
  error?: string;
  /** Evaluators that threw or returned something that is not an evaluation. */
  evaluationFailures: EvaluationFailure[];
}

/** What a run evaluator receives: every item result, in input order. */
export interface RunEvaluatorParams<
  Input = unknown,
  ExpectedOutput = unknown,
  Metadata = ExperimentMetadata,
  Output = unknown,
> {
  /** Results of every item, failed ones included, in input order. */
  itemResults: ExperimentItemResult<Input, ExpectedOutput, Metadata, Output>[];
}

/** Judges the whole run once, after every item; its evaluations are sent as run-level scores. */
export type RunEvaluator<Input = unknown, ExpectedOutput = unknown, Metadata = ExperimentMetadata, Output = unknown> = (
  params: RunEvaluatorParams<Input, ExpectedOutput, Metadata, Output>,
) => Evaluation | Evaluation[] | Promise<Evaluation | Evaluation[]>;

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
  /** Judge each item's output. */
  evaluators?: Evaluator<Input, ExpectedOutput, Metadata, Output>[];
  /** Judge the whole run once. */
  runEvaluators?: RunEvaluator<Input, ExpectedOutput, Metadata, Output>[];
  /** Most items in flight at once. @defaultValue 50 */
  maxConcurrency?: number;
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
