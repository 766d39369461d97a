// The classes of the generated client: one per namespace (a file each), the client that holds them, the index.
import { HEADER, type MethodInfo } from "./definition.ts";
import { pascal, tsType } from "./schema-type.ts";
import { TYPES_NAMESPACE } from "./types-file.ts";

export const className = (ns: string) => `${ns.split(".").map(pascal).join("")}Api`;
export const fileName = (ns: string) => ns.replace(/\./g, "-").replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const factoryName = (cls: string) => `create${cls}`;
/** The namespaces that hold other namespaces (`unstable` of `unstable.dashboards`). */
export const groupsOf = (namespaces: string[]) => [
  ...new Set(namespaces.filter((ns) => ns.includes(".")).map((ns) => ns.split(".")[0] as string)),
];

function requestParam(m: MethodInfo): string {
  if (m.bodySchema) return `request: ${tsType(m.bodySchema, "  ")}`;
  if (m.queryParams.length === 0) return "request?: EmptyRequest";
  const required = m.queryParams.some((p) => p.required);
  return `request${required ? "" : "?"}: ${m.requestName}`;
}

// The operation a method sends, as the object literal the request runtime takes.
function operationLiteral(m: MethodInfo): string {
  const fields = [`method: "${m.httpMethod}"`, `path: "${m.path}"`];
  if (m.queryParams.length) fields.push(`query: [${m.queryParams.map((p) => `"${p.name}"`).join(", ")}]`);
  const json = m.queryParams.filter((p) => p.content);
  if (json.length) fields.push(`json: [${json.map((p) => `"${p.name}"`).join(", ")}]`);
  if (m.bodySchema) fields.push("body: true");
  return `{ ${fields.join(", ")} }`;
}

// A type expression with every generated type name written as a member of the namespace of types, the one place
// the types are declared (string literals and property keys are left alone).
function qualified(type: string, typeNames: Set<string>): string {
  return type
    .split(/("(?:[^"\\]|\\.)*")/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part.replace(/\b[A-Z]\w*\b(?!\??:)/g, (name) => (typeNames.has(name) ? `${TYPES_NAMESPACE}.${name}` : name)),
    )
    .join("");
}

// A class whose constructor only the generated client calls: the factory beside it is how the client makes one.
function privateClass(name: string, doc: string): string[] {
  return [
    `let make${name}: (rt: RequestRuntime) => ${name};\n\n`,
    `/** ${doc} */\nexport class ${name} {\n`,
    `  static {\n    // this, not the class name: a class that names itself inside is renamed by the bundler.\n    make${name} = (rt) => new this(rt);\n  }\n\n`,
  ];
}

function factory(name: string, what: string): string {
  return `\n/** Makes ${what} on a request runtime. */\nexport function ${factoryName(name)}(rt: RequestRuntime): ${name} {\n  return make${name}(rt);\n}\n`;
}

function methodText(m: MethodInfo, typeNames: Set<string>): string {
  const args = m.pathParams.map((p, i) => `${p}: ${m.pathParamTypes[i]}`);
  args.push(qualified(requestParam(m), typeNames), "options?: RequestOptions");
  const response = qualified(m.responseType, typeNames);
  const more = m.description
    ? `\n   *\n${m.description.trim().replace(/^/gm, "   * ").replace(/ +$/gm, "")}\n   *`
    : "";
  return [
    `\n  /** ${m.summary} \`${m.httpMethod} ${m.path}\`${more} @throws {@link SvcAPIError} on an error status. */\n`,
    `  ${m.name}(${args.join(", ")}): ApiPromise<${response}> {\n`,
    `    return this.#rt.call(\n      ${operationLiteral(m)},\n`,
    `      ${m.pathParams.length ? `{ ${m.pathParams.join(", ")} }` : "{}"},\n      request,\n      options,\n    );\n  }\n`,
  ].join("");
}

/** The file of one namespace: its class, one method per operation, each a call of the request runtime. */
export function namespaceFile(ns: string, methods: MethodInfo[], typeNames: Set<string>): string {
  const name = className(ns);
  const out = privateClass(name, `Methods of \`svc.api.${ns}\`.`);
  out.push("  readonly #rt: RequestRuntime;\n\n");
  out.push("  private constructor(rt: RequestRuntime) {\n    this.#rt = rt;\n  }\n");
  const texts = methods.map((m) => methodText(m, typeNames));
  out.push(...texts, "}\n", factory(name, `\`svc.api.${ns}\``));
  const runtimeImports = ["ApiPromise", "RequestOptions", "RequestRuntime"];
  if (texts.some((text) => text.includes("EmptyRequest"))) runtimeImports.unshift("EmptyRequest");
  const head = [HEADER, `import type { ${runtimeImports.join(", ")} } from "../request-runtime.js";\n`];
  if (texts.some((text) => text.includes(`${TYPES_NAMESPACE}.`))) {
    head.push(`import type { ${TYPES_NAMESPACE} } from "./types.js";\n`);
  }
  head.push(`// For TSDoc links.\nimport type { SvcAPIError } from "../errors.js";\n\n`);
  return head.join("") + out.join("");
}

function holderClass(name: string, doc: string, members: string[], what: string): string {
  const out = ["\n", ...privateClass(name, doc)];
  for (const ns of members) out.push(`  readonly ${ns.split(".").at(-1)}: ${className(ns)};\n`);
  out.push("\n  private constructor(rt: RequestRuntime) {\n");
  for (const ns of members) out.push(`    this.${ns.split(".").at(-1)} = ${factoryName(className(ns))}(rt);\n`);
  out.push("  }\n}\n", factory(name, what));
  return out.join("");
}

/** client.ts: the REST client `SvcApiClient`, one property per namespace, and the classes of the namespace groups. */
export function clientFile(namespaces: string[]): string {
  const groups = groupsOf(namespaces);
  const out = [HEADER, `import type { RequestRuntime } from "../request-runtime.js";\n`];
  for (const ns of namespaces) {
    out.push(`import { type ${className(ns)}, ${factoryName(className(ns))} } from "./${fileName(ns)}.js";\n`);
  }
  for (const group of groups) {
    const members = namespaces.filter((ns) => ns.startsWith(`${group}.`));
    out.push(holderClass(className(group), `Namespaces under \`svc.api.${group}\`.`, members, `\`svc.api.${group}\``));
  }
  const top = [...namespaces.filter((ns) => !ns.includes(".")), ...groups].sort();
  const doc = "The REST client: one property per namespace (`svc.api.<namespace>.<method>`).";
  out.push(holderClass("SvcApiClient", doc, top, "the REST client (`svc.api`)"));
  return out.join("");
}

/** What the package takes from the generated client: the client class, the classes of its namespaces, the types. */
export function indexFile(namespaces: string[]): string {
  const out = [HEADER, `export { SvcApiClient } from "./client.js";\n`];
  for (const group of groupsOf(namespaces)) out.push(`export type { ${className(group)} } from "./client.js";\n`);
  for (const ns of namespaces) out.push(`export type { ${className(ns)} } from "./${fileName(ns)}.js";\n`);
  out.push(`export type { ${TYPES_NAMESPACE} } from "./types.js";\n`);
  return out.join("");
}
