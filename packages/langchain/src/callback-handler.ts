import { BaseCallbackHandler } from "@langchain/core/callbacks/base";

/** Options of {@link CallbackHandler}. */
export interface CallbackHandlerParams {
  /** User id recorded on the trace. */
  userId?: string;
  /** Session id recorded on the trace. */
  sessionId?: string;
  /** Tags recorded on the trace. */
  tags?: string[];
  /** Version recorded on every observation. */
  version?: string;
  /** Metadata recorded on the trace. */
  traceMetadata?: Record<string, unknown>;
}

/** LangChain callback handler that records runs as svc observations. */
export class CallbackHandler extends BaseCallbackHandler {
  name = "SvcCallbackHandler";
  /** Trace id of the last run that ended, or null before the first. */
  last_trace_id: string | null = null;
  readonly #params: CallbackHandlerParams;

  constructor(params: CallbackHandlerParams = {}) {
    super();
    this.#params = { ...params, tags: [...(params.tags ?? [])] };
  }

  /** The options this handler was created with. */
  get params(): Readonly<CallbackHandlerParams> {
    return this.#params;
  }
}
