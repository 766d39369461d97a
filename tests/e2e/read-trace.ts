// The client README's snippet that reads a trace back (tests/docs checks that it is), run by read-trace.test.ts.
import type { SvcClient } from "@svc/client";

/** Input and output come as the text they were recorded as: JSON for objects and arrays, a string as it is. */
function parsed(text: unknown): unknown {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The observations of a trace with their input, output, model and usage. */
export async function readTrace(svc: SvcClient, traceId: string) {
  // Without `fields` the server returns the groups core and basic only: no input, output, model or usage.
  const { data } = await svc.api.observations.getMany({ traceId, fields: "core,basic,io,model,usage" });
  return data.map((o) => ({
    name: o.name,
    type: o.type,
    parentId: o.parentObservationId,
    model: o.providedModelName, // the model the generation named (group model)
    input: parsed(o.input),
    output: parsed(o.output),
    usage: o.usageDetails, // group usage
  }));
}
