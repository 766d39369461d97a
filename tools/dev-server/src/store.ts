import type { OtlpSpan } from "./otlp/span.ts";

/** A stored span and when the server accepted it. */
export interface StoredSpan extends OtlpSpan {
  receivedAt: string;
}

/** A score as stored; `value` is the number or string that was sent. */
export interface StoredScore {
  id: string;
  name: string;
  value: number | string;
  dataType: "NUMERIC" | "BOOLEAN" | "CATEGORICAL" | "TEXT" | "CORRECTION";
  source: string;
  timestamp: string;
  environment: string;
  createdAt: string;
  updatedAt: string;
  comment: string | null;
  configId: string | null;
  metadata: Record<string, unknown> | null;
  queueId: string | null;
  traceId: string | null;
  observationId: string | null;
  sessionId: string | null;
  datasetRunId: string | null;
}

/** One version of a prompt. */
export interface StoredPrompt {
  name: string;
  version: number;
  type: "text" | "chat";
  prompt: unknown;
  config: unknown;
  labels: string[];
  tags: string[];
  commitMessage: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface StoredDataset {
  id: string;
  name: string;
  description: string | null;
  metadata: unknown;
  inputSchema: unknown;
  expectedOutputSchema: unknown;
  projectId: string;
  createdAt: string;
  updatedAt: string;
}

export interface StoredDatasetItem {
  id: string;
  status: "ACTIVE" | "ARCHIVED";
  input: unknown;
  expectedOutput: unknown;
  metadata: unknown;
  sourceTraceId: string | null;
  sourceObservationId: string | null;
  datasetId: string;
  datasetName: string;
  createdAt: string;
  updatedAt: string;
}

export interface StoredMedia {
  mediaId: string;
  contentType: string;
  contentLength: number;
  sha256Hash: string;
  field: string;
  traceId: string | null;
  observationId: string | null;
  datasetId: string | null;
  datasetItemId: string | null;
  createdAt: string;
  bytes: Buffer | undefined;
  uploadedAt: string | undefined;
  uploadHttpStatus: number | undefined;
  uploadHttpError: string | null;
}

/** The project every key of the server belongs to. */
export interface DevProject {
  id: string;
  name: string;
  organization: { id: string; name: string };
  metadata: Record<string, unknown>;
}

/** Everything the server holds, in memory. A write is stored before its request is answered. */
export class DevStore {
  /** Spans by `traceId:spanId`; a re-sent span replaces the earlier copy. */
  readonly spans = new Map<string, StoredSpan>();
  readonly scores = new Map<string, StoredScore>();
  /** Prompt versions by prompt name, in version order. */
  readonly prompts = new Map<string, StoredPrompt[]>();
  /** Datasets by name. */
  readonly datasets = new Map<string, StoredDataset>();
  readonly datasetItems = new Map<string, StoredDatasetItem>();
  readonly media = new Map<string, StoredMedia>();
  readonly project: DevProject;

  constructor(project: DevProject) {
    this.project = project;
  }

  addSpans(spans: OtlpSpan[], receivedAt: string): void {
    for (const span of spans) this.spans.set(`${span.traceId}:${span.spanId}`, { ...span, receivedAt });
  }

  spansOfTrace(traceId: string): StoredSpan[] {
    return [...this.spans.values()].filter((s) => s.traceId === traceId);
  }

  /** Deletes the spans and scores of the given traces; returns how many traces had data. */
  deleteTraces(traceIds: Iterable<string>): number {
    const ids = new Set(traceIds);
    const hit = new Set<string>();
    for (const [key, span] of this.spans) {
      if (ids.has(span.traceId)) {
        hit.add(span.traceId);
        this.spans.delete(key);
      }
    }
    for (const [id, score] of this.scores) {
      if (score.traceId && ids.has(score.traceId)) {
        hit.add(score.traceId);
        this.scores.delete(id);
      }
    }
    return hit.size;
  }

  /** Empties every collection. */
  clear(): void {
    this.spans.clear();
    this.scores.clear();
    this.prompts.clear();
    this.datasets.clear();
    this.datasetItems.clear();
    this.media.clear();
  }
}
