import { loadOnce } from "@svc/core";
import { type Method, namespaceOf } from "./namespace.js";
import type { Operation } from "./operation.js";
import { ApiPromise, type RequestRuntime } from "./runtime.js";

type Operations = Readonly<Record<string, Readonly<Record<string, Operation>>>>;

/** The operations of every namespace, loaded once; a failed load is tried again on the next call. */
const loadOperations = loadOnce(
  (): Promise<Operations> => import("./generated/operations.js").then((module) => module.operations),
);

/**
 * Makes the object of the namespace `ns` of `svc.api` from the names of its methods (separated by spaces). Each
 * method returns its {@link ApiPromise} at once; the operations load on the first call of any method, and the call
 * is sent as {@link namespaceOf}'s methods send it.
 */
export function lazyNamespace(rt: RequestRuntime, ns: string, names: string): object {
  const api: Record<string, Method> = {};
  for (const name of names.split(" ")) {
    let method: Method | undefined;
    api[name] = (...args) =>
      new ApiPromise(
        loadOperations().then((all) => {
          method ??= (namespaceOf(rt, { [name]: all[ns]![name]! }) as Record<string, Method>)[name]!;
          return method(...args).withRawResponse();
        }),
      );
  }
  return api;
}

/**
 * Makes the namespaces of `table` (namespace name → its method names, separated by spaces) with
 * {@link lazyNamespace}; `prefix` leads the namespace names in the operations (`"unstable."`).
 */
export function lazyNamespaces(rt: RequestRuntime, prefix: string, table: Record<string, string>): object {
  return Object.fromEntries(Object.entries(table).map(([ns, names]) => [ns, lazyNamespace(rt, prefix + ns, names)]));
}
