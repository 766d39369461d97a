import { describe, expect, it } from "vitest";
import { EXPECTED } from "../fixtures/model-calls/expected.ts";
import { useDevServer } from "../support/dev-server.ts";
import {
  canonical,
  fromDevServer,
  MODEL_CALL_CASES,
  readByTestKit,
  readFixture,
  summarize,
} from "../support/model-calls.ts";

// The spans each LLM library really emitted against the mock providers (recorded by the model-call matrix,
// tests/packaging/model-calls.test.ts, with MODEL_CALLS_RECORD_FIXTURES=1), read the way the dev server and the test
// kit read them, against the hand-written expectations of tests/fixtures/model-calls/expected.ts. No network, no
// export filter: every recorded span is read, so a wrong reading fails here whatever the filter does.

describe.each(MODEL_CALL_CASES)("the recorded spans of $id", ({ id }) => {
  const recorded = readFixture(id);

  it("are kept in tests/fixtures/model-calls/ with their expectations", () => {
    expect(recorded, `${id}.spans.json`).toMatchObject({ resourceSpans: [expect.anything()] });
    expect(EXPECTED[id], `EXPECTED["${id}"]`).toBeDefined();
  });

  it("read by the test kit: each call's type, model, input, output and usage as the mock answered", async () => {
    const read = await readByTestKit(recorded);

    expect(summarize(read)).toEqual(canonical(EXPECTED[id] ?? []));
  });

  it("read by the dev server: the same", async () => {
    const server = await useDevServer();
    const order = await readByTestKit(recorded);
    const sent = await server.request("POST", "/api/public/otel/v1/traces", { body: recorded });
    expect(sent.status).toBe(200);
    const data: Record<string, unknown>[] = [];
    for (const traceId of new Set(order.map((o) => o.traceId))) {
      const answer = await server.request(
        "GET",
        `/api/public/v2/observations?traceId=${traceId}&fields=core,basic,io,model,usage&limit=1000`,
      );
      data.push(...answer.body.data);
    }

    expect(
      summarize(
        fromDevServer(
          data,
          order.map((o) => o.id),
        ),
      ),
    ).toEqual(canonical(EXPECTED[id] ?? []));
  });
});
