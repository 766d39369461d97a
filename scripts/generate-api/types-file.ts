// types.ts of the generated client: every type of the REST API, declared once in the namespace of types.
import { type Definition, HEADER, type MethodInfo } from "./definition.ts";
import { docLine, jsonSchema, pascal, propKey, type Schema, tsType, wrap } from "./schema-type.ts";

/** The namespace that holds every generated type. */
export const TYPES_NAMESPACE = "SvcAPI";

/**
 * Schemas that are the same concept as a type a hand-written module defines. The generated types alias that
 * definition instead of declaring a second one; `shape` is the schema's type as generated, so that a change of the
 * API definition stops the generator instead of drifting apart from the hand-written type.
 */
export const SHARED_TYPES: Readonly<Record<string, { from: string; shape: string }>> = {
  ObservationLevel: { from: "@svc/tracing", shape: '"DEBUG" | "DEFAULT" | "WARNING" | "ERROR"' },
};

// Local name of a module that defines shared types (`@svc/tracing` -> `svcTracing`). A namespace import keeps the
// reference qualified, so that the namespace member of the same name cannot shadow it, also after bundling.
const moduleAlias = (specifier: string) =>
  specifier
    .replace(/^@/, "")
    .split(/[^A-Za-z0-9]+/)
    .map((part, i) => (i === 0 ? part : pascal(part)))
    .join("");

function requestType(m: MethodInfo, indent: string): string {
  const inner = `${indent}  `;
  const lines = m.queryParams.map((p) => {
    const schema = p.schema ?? jsonSchema(p.content);
    let type = tsType(schema, inner, true);
    if (p.content) type = `string | ${wrap(type)}`;
    const note = p.content ? `${inner}/** Sent as JSON text; a string is sent as is. */\n` : "";
    const doc = docLine(p.description, inner);
    return `${doc}${note}${inner}${propKey(p.name)}${p.required ? "" : "?"}: ${type};\n`;
  });
  return `${indent}export interface ${m.requestName} {\n${lines.join("")}${indent}}\n`;
}

/** Name and doc comment of every type of the REST API: the schemas, then the requests of the methods. */
function typeDocs(def: Definition, methods: MethodInfo[]): Map<string, string> {
  const docs = new Map<string, string>();
  for (const [name, schema] of Object.entries(def.components.schemas).sort(([a], [b]) => a.localeCompare(b))) {
    const shared = SHARED_TYPES[name];
    const doc = shared
      ? `\`${name}\` of \`${shared.from}\`, which is also the schema \`${name}\` of the REST API definition.`
      : (schema.description ?? `Schema \`${name}\` of the REST API definition.`);
    docs.set(name, doc);
  }
  for (const m of methods) {
    if (m.requestName) docs.set(m.requestName, `Request of \`${m.namespace}.${m.name}\` (query parameters).`);
  }
  return docs;
}

// The alias of a schema listed in SHARED_TYPES, after checking that the schema still has the shape of the
// hand-written definition; the import of its module joins `head` once.
function sharedAlias(name: string, type: string, head: string[]): string {
  const shared = SHARED_TYPES[name] as { from: string; shape: string };
  if (type !== shared.shape) {
    throw new Error(
      `schema ${name} is now ${type}, but ${shared.from} defines ${name} as ${shared.shape}: ` +
        `change the definition in ${shared.from} and SHARED_TYPES together, or remove ${name} from SHARED_TYPES`,
    );
  }
  const module = moduleAlias(shared.from);
  if (!head.some((line) => line.includes(` as ${module} `))) {
    head.push(`import type * as ${module} from "${shared.from}";\n`);
  }
  return `  export type ${name} = ${module}.${name};\n`;
}

/**
 * Every type is declared once, in the namespace of types; the plain names beside it are aliases, for the package's
 * own modules and for the few types the package also exports by name. A schema listed in SHARED_TYPES is an alias of
 * the hand-written definition.
 */
export function typesFile(def: Definition, methods: MethodInfo[]): string {
  const docs = typeDocs(def, methods);
  const head = [HEADER];
  const body: string[] = [
    "\n/** The types of the REST API: every schema of its definition and the query parameters of its methods. */\n",
    `export declare namespace ${TYPES_NAMESPACE} {\n`,
  ];
  const requests = new Map(methods.flatMap((m) => (m.requestName ? [[m.requestName, m] as const] : [])));
  let first = true;
  for (const [name, doc] of docs) {
    body.push(first ? "" : "\n", docLine(doc, "  "));
    first = false;
    const request = requests.get(name);
    if (request) {
      body.push(requestType(request, "  "));
      continue;
    }
    const schema = def.components.schemas[name] as Schema;
    const type = tsType(schema, "  ");
    if (SHARED_TYPES[name]) {
      body.push(sharedAlias(name, type, head));
      continue;
    }
    const isPlainObject =
      Object.keys(schema.properties ?? {}).length > 0 &&
      !schema.allOf &&
      !schema.anyOf &&
      !schema.oneOf &&
      schema.type === "object";
    body.push(isPlainObject ? `  export interface ${name} ${type}\n` : `  export type ${name} = ${type};\n`);
  }
  body.push("}\n");
  for (const [name, doc] of docs) {
    body.push(`\n${docLine(doc, "")}export type ${name} = ${TYPES_NAMESPACE}.${name};\n`);
  }
  return head.join("") + body.join("");
}

/** String enums whose values the hand-written code checks at run time (the media content types the server stores). */
export const ENUM_VALUES = ["MediaContentType"] as const;

/** values.ts: the values of each schema in {@link ENUM_VALUES}, as a set typed against the schema. */
export function valuesFile(def: Definition): string {
  const out = [HEADER, `import type { ${TYPES_NAMESPACE} } from "./types.js";\n`];
  for (const name of ENUM_VALUES) {
    const values = def.components.schemas[name]?.enum;
    if (!values?.every((v) => typeof v === "string")) throw new Error(`schema ${name} is not an enum of strings`);
    out.push(`\n/** Every value of the schema \`${name}\` of the REST API definition. */\n`);
    out.push(`export const ${name}Values: ReadonlySet<${TYPES_NAMESPACE}.${name}> = new Set([\n`);
    for (const value of values) out.push(`  ${JSON.stringify(value)},\n`);
    out.push("]);\n");
  }
  return out.join("");
}
