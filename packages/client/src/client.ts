import { type Connection, describeError, MediaUploader, redactSecrets } from "@svc/core";
import { SvcAPIError } from "./api/errors.js";
import { createSvcApiClient, type SvcApiClient } from "./api/generated/client.js";
import { RequestRuntime } from "./api/request-runtime.js";
import { resolveClientConfig, type SvcClientConfig, type SvcClientParams } from "./config.js";
import { createDatasetManager, type DatasetManager } from "./dataset/dataset-manager.js";
import type { DoctorOptions } from "./doctor/doctor.js";
import type { DoctorReport } from "./doctor/report.js";
import { ExperimentManager } from "./experiment/experiment-manager.js";
import { missingChunkFix, type SvcClientHealth } from "./health.js";
import { MediaManager } from "./media/media-manager.js";
import { PromptManager } from "./prompt/prompt-manager.js";
import { createScoreManager, type ScoreManager } from "./score/score-manager.js";

const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/**
 * Entry point to the svc API: prompts, scores, datasets, media and the REST client. Never throws from its
 * constructor: missing keys, an invalid base URL and invalid options are logged once.
 * @example
 * ```ts
 * const svc = new SvcClient({ publicKey: "pk-...", secretKey: "sk-..." });
 * const prompt = await svc.prompt.get("greeting", { type: "text" });
 * svc.score.create({ name: "accuracy", value: 0.9, traceId });
 * await svc.flush();
 * ```
 */
export class SvcClient {
  /** Settings in force, after options, environment and defaults (the secret key is not among them). */
  readonly config: Readonly<SvcClientConfig>;
  /** The REST client: `svc.api.<namespace>.<method>(...pathArgs, request, requestOptions)`. */
  readonly api: SvcApiClient;
  /** Fetches (with a cache), creates and relabels prompts. */
  readonly prompt: PromptManager;
  /** Queues scores and sends them in batches. */
  readonly score: ScoreManager;
  /** Reads datasets with their items and adds items. */
  readonly dataset: DatasetManager;
  /** Resolves media references into the media's content. */
  readonly media: MediaManager;
  /** Runs experiments on local data and deletes an experiment's data. */
  readonly experiment: ExperimentManager;
  #projectId: Promise<string> | undefined;
  /** The address and keys, for the doctor; private, so never printed. */
  readonly #connection: Connection;

  constructor(params: SvcClientParams = {}) {
    const { config, headers, connection, backend } = resolveClientConfig(params);
    this.#connection = connection;
    this.config = Object.freeze(config);
    const runtime = new RequestRuntime({ ...config, headers, backend });
    // Kept off the enumerable keys: printing the client shows its managers, not its settings.
    Object.defineProperty(this, "config", { enumerable: false });
    this.api = createSvcApiClient(runtime);
    this.score = createScoreManager(runtime, config);
    this.prompt = new PromptManager(this.api);
    this.experiment = new ExperimentManager({
      score: this.score,
      api: this.api,
      getExperimentUrl: (experimentId) => this.getExperimentUrl(experimentId),
      sampleRate: config.score.sampleRate,
    });
    const uploader = new MediaUploader({
      baseUrl: config.baseUrl,
      headers,
      timeoutMs: config.timeoutSeconds * 1000,
      backend,
    });
    this.dataset = createDatasetManager(this.api, uploader, (dataset) => ({
      ...dataset,
      runExperiment: (params) =>
        this.experiment.run({ ...params, data: dataset.items, datasetVersion: dataset.version }),
    }));
    this.media = new MediaManager(this.api, {
      downloadTimeoutMs: config.timeoutSeconds * 1000,
      backend,
    });
  }

  /** Sends every score queued so far; resolves when they were sent or dropped, or after `flushTimeout`. Never rejects. */
  async flush(): Promise<void> {
    await this.score.flush();
  }

  /** Sends what is still queued, within `flushTimeout`, then stops; call before the process exits. Never rejects. */
  async shutdown(): Promise<void> {
    await this.score.shutdown();
  }

  /** What the managers have done so far, cheap to call at any time: score delivery, prompt fetches, media downloads. */
  health(): SvcClientHealth {
    return { score: this.score.health(), prompt: this.prompt.health(), media: this.media.health() };
  }

  /**
   * Checks the set-up, in order: keys, base URL, that the server answers and accepts the keys, the clock, that the OTLP
   * endpoint accepts a test span (environment `sdk-doctor`), that svc spans are recorded and would be exported, and
   * whether OpenTelemetry exports to a default `localhost:4318` where nothing answers. Each request waits at most
   * `timeout` seconds, the whole run twice that. Never rejects; prints nothing.
   * @example
   * ```ts
   * const report = await svc.doctor();
   * console.log(report.toString()); // one line per check: PASS, WARN, FAIL or SKIP, what was found, and the fix
   * if (!report.ok) process.exitCode = 1;
   * ```
   */
  doctor(options: DoctorOptions = {}): Promise<DoctorReport> {
    // Loaded on the first call: an application that never calls the doctor does not carry the checks.
    return import("./doctor/client-doctor.js").then(
      ({ runClientDoctor }) => runClientDoctor(this.#connection, options, this.config.score.spill),
      (error: unknown): DoctorReport => {
        const detail = `the checks could not be loaded: ${describeError(error)}`;
        const fix = missingChunkFix("client-doctor");
        return {
          ok: false,
          checks: [{ name: "doctor", status: "fail", detail, fix }],
          toString: () => `svc doctor: ${detail}. Fix: ${fix}`,
        };
      },
    );
  }

  /**
   * The id of the project the keys belong to, fetched once from `GET /api/public/projects` and then cached.
   * @throws {@link SvcAPIError} when the request fails or lists no project.
   */
  getProjectId(): Promise<string> {
    this.#projectId ??= this.#fetchProjectId().catch((error: unknown) => {
      this.#projectId = undefined; // a failure is not cached: the next call tries again
      throw error;
    });
    return this.#projectId;
  }

  /** Link to a trace in the web app. @throws {@link SvcAPIError} when the project id cannot be fetched. */
  async getTraceUrl(traceId: string): Promise<string> {
    return `${webBase(this.config.baseUrl)}/project/${encodeURIComponent(await this.getProjectId())}/traces/${encodeURIComponent(traceId)}`;
  }

  /** Link to the comparison view of an experiment. @throws {@link SvcAPIError} when the project id cannot be fetched. */
  async getExperimentUrl(experimentId: string): Promise<string> {
    const projectId = encodeURIComponent(await this.getProjectId());
    return `${webBase(this.config.baseUrl)}/project/${projectId}/experiments/results?baseline=${encodeURIComponent(experimentId)}`;
  }

  /** Short form for `console.log`: the address (credentials written into it redacted) and the public key. */
  [INSPECT](): string {
    return `SvcClient { baseUrl: ${JSON.stringify(redactSecrets(this.config.baseUrl))}, publicKey: ${JSON.stringify(this.config.publicKey ?? null)} }`;
  }

  async #fetchProjectId(): Promise<string> {
    const projects = await this.api.projects.get({});
    const id = projects.data?.[0]?.id;
    if (!id) throw new SvcAPIError("GET /api/public/projects listed no project for these keys");
    return id;
  }
}

/** The base URL for links to the web app: without credentials written into it, which a browser link must not carry. */
function webBase(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    url.username = "";
    url.password = "";
    return url.href.replace(/\/+$/, "");
  } catch {
    return baseUrl;
  }
}
