// The TypeScript type of a JSON schema of the REST API definition, as the generated code writes it.

/** A JSON schema, as far as the API definition uses it. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  format?: string;
  description?: string;
}

export const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const refName = (ref: string) => ref.slice(ref.lastIndexOf("/") + 1);
const isIdentifier = (s: string) => /^[A-Za-z_$][\w$]*$/.test(s);
export const propKey = (s: string) => (isIdentifier(s) ? s : JSON.stringify(s));
export const docLine = (text: string | undefined, indent: string) =>
  text ? `${indent}/** ${text.replace(/\*\//g, "*\\/").replace(/\s*\n\s*/g, " ")} */\n` : "";

/** TypeScript type of a JSON schema; `dates` types date-time strings as `Date | string` (query parameters). */
export function tsType(schema: Schema | undefined, indent: string, dates = false): string {
  if (!schema) return "unknown";
  if (schema.$ref) return refName(schema.$ref);
  const parts: string[] = [];
  if (schema.anyOf || schema.oneOf) {
    parts.push(union((schema.anyOf ?? schema.oneOf ?? []).map((s) => tsType(s, indent, dates))));
  }
  if (schema.allOf) parts.push(...allOfWithRequired(schema).map((s) => wrap(tsType(s, indent, dates))));
  const own = ownType(schema, indent, dates);
  if (own !== undefined) parts.push(own);
  if (parts.length === 0) return "unknown";
  return parts.length === 1 ? (parts[0] as string) : parts.map(wrap).join(" & ");
}

// `required` next to `allOf` (and no own properties) applies to the properties of the inline members.
function allOfWithRequired(schema: Schema): Schema[] {
  const required = schema.properties ? [] : (schema.required ?? []);
  return (schema.allOf ?? []).map((member) => {
    const names = Object.keys(member.properties ?? {}).filter((name) => required.includes(name));
    return names.length ? { ...member, required: [...new Set([...(member.required ?? []), ...names])] } : member;
  });
}

function ownType(schema: Schema, indent: string, dates: boolean): string | undefined {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return union(schema.enum.map((v) => JSON.stringify(v)));
  const types = schema.type === undefined ? [] : ([] as string[]).concat(schema.type);
  if (types.length === 0 && (schema.properties || schema.additionalProperties !== undefined)) types.push("object");
  const mapped = types.map((t) => scalarType(t, schema, indent, dates)).filter((t) => t !== "");
  return mapped.length ? union(mapped) : undefined;
}

function scalarType(type: string, schema: Schema, indent: string, dates: boolean): string {
  switch (type) {
    case "string":
      return dates && schema.format === "date-time" ? "Date | string" : "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return `${wrap(tsType(schema.items, indent, dates))}[]`;
    case "object":
      return objectType(schema, indent, dates);
    default:
      throw new Error(`unknown schema type ${type}`);
  }
}

function objectType(schema: Schema, indent: string, dates: boolean): string {
  const extra = schema.additionalProperties;
  const extraType =
    extra === undefined || extra === false ? undefined : extra === true ? "unknown" : tsType(extra, indent, dates);
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0)
    return schema.allOf && extraType === undefined ? "" : `Record<string, ${extraType ?? "unknown"}>`;
  const inner = `${indent}  `;
  const lines = props.map(([name, prop]) => {
    const optional = schema.required?.includes(name) ? "" : "?";
    return `${docLine(prop.description, inner)}${inner}${propKey(name)}${optional}: ${tsType(prop, inner, dates)};\n`;
  });
  if (extraType !== undefined)
    lines.push(`${inner}[key: string]: ${extraType === "unknown" ? "unknown" : `${extraType} | unknown`};\n`);
  return `{\n${lines.join("")}${indent}}`;
}

/** The union of `types`, each once; `unknown` when there is none. */
export function union(types: string[]): string {
  const unique = [...new Set(types.filter((t) => t !== ""))];
  return unique.length > 1
    ? unique.map((t) => (t.includes(" & ") ? `(${t})` : t)).join(" | ")
    : (unique[0] ?? "unknown");
}

/** The type in parentheses when it is a union or an intersection (for `[]` and `&`). */
export function wrap(type: string): string {
  return /[|&]/.test(type) && !type.startsWith("{") ? `(${type})` : type;
}

/** The schema of a JSON body or parameter, if it has one. */
export function jsonSchema(content: Record<string, { schema: Schema }> | undefined): Schema | undefined {
  return content?.["application/json"]?.schema;
}
