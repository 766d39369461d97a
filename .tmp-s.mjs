import { readFileSync } from "node:fs";
import { parse } from "yaml";
const doc = parse(readFileSync("packages/client/api/openapi.yml","utf8"), { maxAliasCount: -1 });
const strip = (o) => { if (Array.isArray(o)) return o.map(strip); if (o && typeof o === "object") { const r={}; for (const [k,v] of Object.entries(o)) { if (k==="description"||k==="summary") continue; r[k]=strip(v);} return r;} return o; };
for (const n of process.argv.slice(2)) {
  if (n.startsWith("/")) { const [p, m] = n.split("#"); console.log(n, JSON.stringify(strip(doc.paths[p]?.[m] ?? doc.paths[p]))); }
  else console.log(n, JSON.stringify(strip(doc.components.schemas[n])));
}
