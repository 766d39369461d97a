// A user's jest test of their own instrumentation with the test kit of @svc/otel, in CommonJS, without a server.
const { BasicTracerProvider } = require("@opentelemetry/sdk-trace-base");
const { SvcClient } = require("@svc/client");
const { installSvcTestKit } = require("@svc/otel/testing");
const { startActiveObservation } = require("@svc/tracing");

const kit = installSvcTestKit({
  provider: BasicTracerProvider,
  mask: ({ data }) => (typeof data === "string" ? data.replaceAll("sk-live", "[key]") : data),
});
afterEach(() => kit.reset());
afterAll(() => kit.uninstall());

async function answer(question, svc) {
  return startActiveObservation("answer", async (root) => {
    root.update({ input: { question } });
    await new Promise((resolve) => setTimeout(resolve, 5)); // the context follows the await
    const llm = root.startObservation("llm", { model: "gpt-4o", input: "use sk-live" }, { asType: "generation" });
    llm.update({ output: "42", usageDetails: { input: 3, output: 1 } }).end();
    root.update({ output: "42" });
    svc.score.trace({ otelSpan: root.otelSpan }, { name: "correct", value: 1 });
    return "42";
  });
}

test("records the answer, its generation and its score", async () => {
  const svc = new SvcClient();
  await answer("meaning of life?", svc);

  const { traces, one, scores } = await kit.collect();
  expect(traces).toHaveLength(1);
  expect(one("llm")).toMatchObject({
    type: "generation",
    model: "gpt-4o",
    input: "use [key]",
    usage: { input: 3, output: 1 },
    parentId: one("answer").id,
  });
  expect(traces[0]).toMatchObject({ input: { question: "meaning of life?" }, output: "42" });
  expect(scores).toEqual([expect.objectContaining({ name: "correct", value: 1, traceId: traces[0].id })]);
  await svc.shutdown();
});

test("starts each test from nothing", async () => {
  expect((await kit.collect()).observations).toEqual([]);
});
