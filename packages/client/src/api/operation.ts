import type { HttpMethod } from "@svc/core";

/** One REST operation, described as data by the generated code. */
export interface Operation {
  readonly method: HttpMethod;
  /** Route with `{name}` placeholders for path parameters. */
  readonly path: string;
  /** Names of the request fields sent as query parameters. */
  readonly query?: readonly string[];
  /** Query parameters sent as JSON text. */
  readonly json?: readonly string[];
  /** The request object is the JSON body. */
  readonly body?: true;
}
