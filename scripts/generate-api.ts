// Generates the REST client of @svc/client from packages/client/api/openapi.yml.
//   node scripts/generate-api.ts           writes packages/client/src/api/generated/ (and nothing else)
//   node scripts/generate-api.ts --check   exits 1 when the checked-in output differs from a fresh generation
// The parts: generate-api/definition.ts reads the definition into methods, schema-type.ts writes a schema's type,
// types-file.ts the types and the enum values, client-files.ts the classes.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { clientFile, fileName, indexFile, namespaceFile } from "./generate-api/client-files.ts";
import { type Definition, listMethods, loadDefinition, OUTPUT_DIR, ROOT } from "./generate-api/definition.ts";
import { typesFile, valuesFile } from "./generate-api/types-file.ts";

export {
  DEFINITION_PATH,
  listMethods,
  loadDefinition,
  type MethodInfo,
  OUTPUT_DIR,
  takesEmptyRequest,
} from "./generate-api/definition.ts";
export { SHARED_TYPES } from "./generate-api/types-file.ts";

/** Every generated file, by name, from the definition. */
export function generate(def: Definition = loadDefinition()): Map<string, string> {
  const methods = listMethods(def);
  const namespaces = [...new Set(methods.map((m) => m.namespace))].sort();
  const typeNames = new Set([...Object.keys(def.components.schemas), ...methods.flatMap((m) => m.requestName ?? [])]);
  const files = new Map<string, string>();
  files.set("types.ts", typesFile(def, methods));
  files.set("values.ts", valuesFile(def));
  for (const ns of namespaces) {
    const own = methods.filter((m) => m.namespace === ns);
    files.set(`${fileName(ns)}.ts`, namespaceFile(ns, own, typeNames));
  }
  files.set("client.ts", clientFile(namespaces));
  files.set("index.ts", indexFile(namespaces));
  return files;
}

/** Names of the files that differ between `files` and the output folder (missing, changed or extra). */
export function staleFiles(files: Map<string, string>, dir: string = OUTPUT_DIR): string[] {
  let present: string[] = [];
  try {
    present = readdirSync(dir);
  } catch {
    // no output yet: every file is stale
  }
  const stale = present.filter((name) => !files.has(name));
  for (const [name, text] of files) {
    let current: string | undefined;
    try {
      current = readFileSync(join(dir, name), "utf8");
    } catch {
      current = undefined;
    }
    if (current !== text) stale.push(name);
  }
  return stale.sort();
}

function main(args: string[]): number {
  const files = generate(loadDefinition());
  if (args.includes("--check")) {
    const stale = staleFiles(files).map((name) => relative(ROOT, join(OUTPUT_DIR, name)));
    if (stale.length === 0) return 0;
    console.error(`generate-api: stale output (${stale.join(", ")}); run \`pnpm generate\`.`);
    return 1;
  }
  rmSync(OUTPUT_DIR, { recursive: true, force: true });
  mkdirSync(OUTPUT_DIR, { recursive: true });
  for (const [name, text] of files) writeFileSync(join(OUTPUT_DIR, name), text);
  console.log(`generate-api: wrote ${files.size} files to ${relative(ROOT, OUTPUT_DIR)}`);
  return 0;
}

if (import.meta.filename === process.argv[1]) process.exitCode = main(process.argv.slice(2));
