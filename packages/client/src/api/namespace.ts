import type { Operation } from "./operation.js";
import type { ApiPromise, PathArgs, RequestOptions, RequestRuntime } from "./runtime.js";

/** A method of a namespace of `svc.api`, as made by {@link namespaceOf}. */
export type Method = (...args: unknown[]) => ApiPromise<unknown>;

/**
 * Makes the object of one `svc.api` namespace from its operations: one method per operation, taking the path
 * parameters in the order of the route, then the request (`{}` when left out), then the request options. The
 * generated declarations give each method its signature; no code is generated per method.
 */
export function namespaceOf(rt: RequestRuntime, ops: Readonly<Record<string, Operation>>): object {
  const api: Record<string, Method> = {};
  for (const [name, op] of Object.entries(ops)) {
    const params = Array.from(op.path.matchAll(/\{([^}]+)\}/g), (match) => match[1] as string);
    api[name] = (...args) => {
      const pathArgs: Record<string, string | number> = {};
      params.forEach((param, i) => {
        pathArgs[param] = args[i] as string | number;
      });
      const request = args[params.length] ?? {};
      return rt.call(op, pathArgs as PathArgs, request, args[params.length + 1] as RequestOptions | undefined);
    };
  }
  return api;
}
