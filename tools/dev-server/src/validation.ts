import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { parse } from "yaml";
import type { RequestValidator } from "./app.ts";
import { HttpError } from "./http.ts";
import type { Route } from "./route.ts";

/** The root of the repository: this package lives in `tools/dev-server/`. */
const WORKSPACE_ROOT = join(import.meta.dirname, "..", "..", "..");

/** The API definition of `@svc/client`: the server checks requests against it. */
export const CLIENT_API_DEFINITION = join(WORKSPACE_ROOT, "packages", "client", "api", "openapi.yml");

const DOC_ID = "svc-api";

type Json = Record<string, unknown>;

interface ParameterCheck {
  name: string;
  in: "query" | "path";
  required: boolean;
  /** The parameter's value is JSON text (OpenAPI `content`), not a plain string. */
  json: boolean;
  kinds: Set<string>;
  validate: ValidateFunction;
}

interface OperationCheck {
  parameters: ParameterCheck[];
  body: ValidateFunction | undefined;
  bodyRequired: boolean;
  /** For an array body: the check of one item, and the array's size limits. */
  items: { validate: ValidateFunction; minItems?: number; maxItems?: number } | undefined;
}

const escapePointer = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1");

/** One issue of a failed check, in the `{ path, message }` form the 400 body lists. */
function issues(errors: ErrorObject[] | null | undefined, root: string) {
  return (errors ?? []).map((e) => {
    const extra =
      e.keyword === "enum"
        ? ` (${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(", ")})`
        : e.keyword === "additionalProperties"
          ? ` (${(e.params as { additionalProperty: string }).additionalProperty})`
          : "";
    return { path: `${root}${e.instancePath}`, message: `${e.message ?? "is invalid"}${extra}` };
  });
}

function summary(list: { path: string; message: string }[]): string {
  const shown = list.slice(0, 5).map((i) => `${i.path} ${i.message}`);
  return shown.join("; ") + (list.length > 5 ? `; and ${list.length - 5} more` : "");
}

const loaded = new Map<string, RequestValidator>();

/**
 * Loads an OpenAPI 3.1 definition and checks requests against its parameters and JSON request bodies.
 * Each file is read once per process; servers started later share the checks.
 */
export function loadApiValidator(file: string = CLIENT_API_DEFINITION): RequestValidator {
  let validator = loaded.get(file);
  if (!validator) {
    validator = buildValidator(file);
    loaded.set(file, validator);
  }
  return validator;
}

function buildValidator(file: string): RequestValidator {
  const doc = parse(readFileSync(file, "utf8"), { maxAliasCount: -1 }) as Json;
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: false, logger: false });
  addFormats(ajv);
  for (const format of ["double", "float", "int32", "int64"]) ajv.addFormat(format, true);
  ajv.addSchema({ ...doc, $id: DOC_ID });

  const at = (pointer: string): unknown =>
    pointer
      .split("/")
      .slice(1)
      .reduce<unknown>((node, seg) => (node as Json | undefined)?.[seg.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
  /** Follows `$ref`s from a JSON pointer to the pointer of the schema they lead to. */
  const deref = (pointer: string): string => {
    for (let i = 0; i < 20; i++) {
      const ref = (at(pointer) as Json | undefined)?.$ref;
      if (typeof ref !== "string" || !ref.startsWith("#")) return pointer;
      pointer = ref.slice(1);
    }
    return pointer;
  };
  const compile = (pointer: string) => {
    const fn = ajv.getSchema(`${DOC_ID}#${pointer}`);
    if (!fn) throw new Error(`Cannot compile the schema at ${pointer} of ${file}`);
    return fn;
  };
  /** The JSON types a schema may take, looking through `$ref` and `anyOf`/`oneOf`. */
  const kindsOf = (pointer: string, depth = 0): Set<string> => {
    const schema = at(deref(pointer)) as Json | undefined;
    const out = new Set<string>();
    if (!schema || depth > 5) return out;
    const type = schema.type;
    for (const t of Array.isArray(type) ? type : type ? [type] : []) out.add(String(t));
    for (const key of ["anyOf", "oneOf"]) {
      const list = schema[key];
      if (Array.isArray(list)) {
        list.forEach((_, i) => {
          for (const t of kindsOf(`${deref(pointer)}/${key}/${i}`, depth + 1)) out.add(t);
        });
      }
    }
    return out;
  };

  const cache = new Map<Route, OperationCheck | null>();
  const operationCheck = (route: Route): OperationCheck | null => {
    if (cache.has(route)) return cache.get(route)!;
    const pathPointer = `/paths/${escapePointer(route.path)}`;
    const opPointer = `${pathPointer}/${route.method.toLowerCase()}`;
    let check: OperationCheck | null = null;
    if (at(opPointer)) {
      const parameters: ParameterCheck[] = [];
      for (const base of [pathPointer, opPointer]) {
        const list = at(`${base}/parameters`);
        if (!Array.isArray(list)) continue;
        list.forEach((_, i) => {
          const pPointer = deref(`${base}/parameters/${i}`);
          const p = at(pPointer) as Json;
          if (p.in !== "query" && p.in !== "path") return;
          const json = p.content !== undefined;
          const schemaPointer = json ? `${pPointer}/content/application~1json/schema` : `${pPointer}/schema`;
          parameters.push({
            name: String(p.name),
            in: p.in,
            required: p.required === true,
            json,
            kinds: kindsOf(schemaPointer),
            validate: compile(schemaPointer),
          });
        });
      }
      const bodyPointer = `${opPointer}/requestBody/content/application~1json/schema`;
      const bodySchema = at(deref(bodyPointer)) as Json | undefined;
      const items =
        route.batch && bodySchema?.items
          ? {
              validate: compile(`${deref(bodyPointer)}/items`),
              minItems: bodySchema.minItems as number | undefined,
              maxItems: bodySchema.maxItems as number | undefined,
            }
          : undefined;
      check = {
        parameters,
        body: bodySchema ? compile(bodyPointer) : undefined,
        bodyRequired: (at(`${opPointer}/requestBody`) as Json | undefined)?.required === true,
        items,
      };
    }
    cache.set(route, check);
    return check;
  };

  return {
    validate(route, request) {
      const check = operationCheck(route);
      if (!check) return {};
      for (const p of check.parameters) checkParameter(p, request.params, request.query);
      if (route.body !== "json") return {};
      if (request.body === undefined) {
        if (check.bodyRequired) throw new HttpError(400, "Request body is required (JSON)");
        return {};
      }
      if (check.items) return { itemErrors: checkItems(check.items, request.body) };
      if (check.body && !check.body(request.body)) {
        const list = issues(check.body.errors, "body");
        throw new HttpError(400, `Invalid request body: ${summary(list)}`, list);
      }
      return {};
    },
  };
}

function coerce(raw: string, kinds: Set<string>): unknown {
  if ((kinds.has("integer") || kinds.has("number")) && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(raw)) return Number(raw);
  if (kinds.has("boolean") && (raw === "true" || raw === "false")) return raw === "true";
  return raw;
}

function checkParameter(p: ParameterCheck, params: Record<string, string>, query: URLSearchParams): void {
  const where = `${p.in === "path" ? "Path" : "Query"} parameter ${p.name}`;
  const raw = p.in === "path" ? (params[p.name] === undefined ? [] : [params[p.name]!]) : query.getAll(p.name);
  if (raw.length === 0) {
    if (p.required) throw new HttpError(400, `${where} is required`, [{ path: p.name, message: "is required" }]);
    return;
  }
  let value: unknown;
  if (p.json) {
    try {
      value = JSON.parse(raw[0]!);
    } catch {
      throw new HttpError(400, `${where} must be JSON text`, [{ path: p.name, message: "must be JSON text" }]);
    }
  } else if (p.kinds.has("array")) {
    value = raw.map((r) => coerce(r, new Set(["string", "number", "integer", "boolean"])));
  } else {
    value = coerce(raw[0]!, p.kinds);
  }
  if (!p.validate(value)) {
    const list = issues(p.validate.errors, p.name);
    throw new HttpError(400, `${where} is invalid: ${summary(list)} (got ${JSON.stringify(raw[0])})`, list);
  }
}

function checkItems(items: NonNullable<OperationCheck["items"]>, body: unknown): Map<number, string> {
  if (!Array.isArray(body)) {
    throw new HttpError(400, "Invalid request body: body must be a JSON array", [
      { path: "body", message: "must be array" },
    ]);
  }
  if (items.maxItems !== undefined && body.length > items.maxItems) {
    throw new HttpError(400, `Invalid request body: at most ${items.maxItems} items per request, got ${body.length}`);
  }
  if (items.minItems !== undefined && body.length < items.minItems) {
    throw new HttpError(400, `Invalid request body: at least ${items.minItems} items per request, got ${body.length}`);
  }
  const errors = new Map<number, string>();
  body.forEach((item, index) => {
    if (!items.validate(item)) errors.set(index, summary(issues(items.validate.errors, "")).replace(/^\//, ""));
  });
  return errors;
}
