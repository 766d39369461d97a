import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SvcClient } from "@svc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  listMethods,
  loadDefinition,
  type MethodInfo,
  OUTPUT_DIR,
  takesEmptyRequest,
} from "../../scripts/generate-api.ts";
import { startServer, type TestServer } from "../support/http-server.ts";

type AnyMethod = (...args: unknown[]) => Promise<unknown>;

const methods = listMethods(loadDefinition());

function namespaceOf(api: unknown, namespace: string): Record<string, AnyMethod | undefined> {
  return namespace.split(".").reduce<unknown>((obj, key) => (obj as Record<string, unknown>)[key], api) as Record<
    string,
    AnyMethod | undefined
  >;
}

function placeholderRequest(m: MethodInfo): unknown {
  if (m.bodySchema?.type === "array") return [];
  return {};
}

// The 41 methods of the interface document (section 4.2) that take `{}` before the request options, with their routes.
const EMPTY_REQUEST_ROUTES = new Map<string, string>([
  ["annotationQueues.getQueue", "GET /api/public/annotation-queues/{queueId}"],
  ["annotationQueues.getQueueItem", "GET /api/public/annotation-queues/{queueId}/items/{itemId}"],
  ["annotationQueues.deleteQueueItem", "DELETE /api/public/annotation-queues/{queueId}/items/{itemId}"],
  ["blobStorageIntegrations.getBlobStorageIntegrations", "GET /api/public/integrations/blob-storage"],
  ["blobStorageIntegrations.getBlobStorageIntegrationStatus", "GET /api/public/integrations/blob-storage/{id}"],
  ["blobStorageIntegrations.deleteBlobStorageIntegration", "DELETE /api/public/integrations/blob-storage/{id}"],
  ["comments.getById", "GET /api/public/comments/{commentId}"],
  ["datasetItems.get", "GET /api/public/dataset-items/{id}"],
  ["datasetItems.delete", "DELETE /api/public/dataset-items/{id}"],
  ["datasets.get", "GET /api/public/v2/datasets/{datasetName}"],
  ["evaluationRules.get", "GET /api/public/v2/evaluation-rules/{evaluationRuleId}"],
  ["evaluationRules.delete", "DELETE /api/public/v2/evaluation-rules/{evaluationRuleId}"],
  ["evaluators.get", "GET /api/public/v2/evaluators/{evaluatorId}"],
  ["evaluators.delete", "DELETE /api/public/v2/evaluators/{evaluatorId}"],
  ["health.health", "GET /api/public/health"],
  ["llmConnections.delete", "DELETE /api/public/llm-connections/{id}"],
  ["media.get", "GET /api/public/media/{mediaId}"],
  ["models.get", "GET /api/public/models/{id}"],
  ["models.delete", "DELETE /api/public/models/{id}"],
  ["organizations.getOrganizationMemberships", "GET /api/public/organizations/memberships"],
  ["organizations.getProjectMemberships", "GET /api/public/projects/{projectId}/memberships"],
  ["organizations.getOrganizationProjects", "GET /api/public/organizations/projects"],
  ["organizations.getOrganizationApiKeys", "GET /api/public/organizations/apiKeys"],
  ["projects.get", "GET /api/public/projects"],
  ["projects.delete", "DELETE /api/public/projects/{projectId}"],
  ["projects.getApiKeys", "GET /api/public/projects/{projectId}/apiKeys"],
  ["projects.deleteApiKey", "DELETE /api/public/projects/{projectId}/apiKeys/{apiKeyId}"],
  ["scim.getServiceProviderConfig", "GET /api/public/scim/ServiceProviderConfig"],
  ["scim.getResourceTypes", "GET /api/public/scim/ResourceTypes"],
  ["scim.getSchemas", "GET /api/public/scim/Schemas"],
  ["scim.getUser", "GET /api/public/scim/Users/{userId}"],
  ["scim.deleteUser", "DELETE /api/public/scim/Users/{userId}"],
  ["scoreConfigs.getById", "GET /api/public/score-configs/{configId}"],
  ["scores.delete", "DELETE /api/public/scores/{scoreId}"],
  ["trace.delete", "DELETE /api/public/traces/{traceId}"],
  ["unstable.dashboardWidgets.get", "GET /api/public/unstable/dashboard-widgets/{widgetId}"],
  ["unstable.dashboardWidgets.delete", "DELETE /api/public/unstable/dashboard-widgets/{widgetId}"],
  ["unstable.dashboards.get", "GET /api/public/unstable/dashboards/{dashboardId}"],
  ["unstable.dashboards.delete", "DELETE /api/public/unstable/dashboards/{dashboardId}"],
  [
    "unstable.dashboards.deletePlacement",
    "DELETE /api/public/unstable/dashboards/{dashboardId}/placements/{placementId}",
  ],
  ["unstable.skills.deleteVersion", "DELETE /api/public/unstable/skills/{skillName}/versions/{skillVersion}"],
]);
const EMPTY_REQUEST_METHODS = [...EMPTY_REQUEST_ROUTES.keys()];

describe("svc.api routes", () => {
  let server: TestServer;
  let svc: SvcClient;
  beforeAll(async () => {
    server = await startServer();
    svc = new SvcClient({ baseUrl: server.url, publicKey: "pk", secretKey: "sk" });
  });
  afterAll(() => server.close());

  it.each(methods.map((m) => [`${m.namespace}.${m.name}`, m] as const))(
    "%s sends its HTTP method and path",
    async (_, m) => {
      const target = namespaceOf(svc.api, m.namespace);
      const method = target[m.name];
      expect(method, `svc.api.${m.namespace}.${m.name}`).toBeTypeOf("function");
      const pathArgs = m.pathParams.map((name) => `p-${name}`);

      await method?.call(target, ...pathArgs, placeholderRequest(m));

      const seen = server.seen.at(-1);
      expect(seen?.method).toBe(m.httpMethod);
      expect(seen?.path).toBe(m.path.replace(/\{([^}]+)\}/g, (_x, name: string) => `p-${name}`));
    },
  );

  it("generates exactly the 41 methods that take an empty request before the options", () => {
    const generated = methods.filter(takesEmptyRequest).map((m) => `${m.namespace}.${m.name}`);
    expect(generated.sort()).toEqual([...EMPTY_REQUEST_METHODS].sort());
    expect(generated).toHaveLength(41);
  });

  it("maps those 41 methods to the routes of the interface document", () => {
    const routes = methods
      .filter(takesEmptyRequest)
      .map((m) => [`${m.namespace}.${m.name}`, `${m.httpMethod} ${m.path}`] as const);

    expect(new Map(routes)).toEqual(EMPTY_REQUEST_ROUTES);
  });

  it("declares the empty request parameter in the generated source of exactly those 41 methods", () => {
    const declared: string[] = [];
    for (const file of readdirSync(OUTPUT_DIR)) {
      const source = readFileSync(join(OUTPUT_DIR, file), "utf8");
      const className = /export class (\w+)Api \{/.exec(source)?.[1];
      for (const match of source.matchAll(/^ {2}(\w+)\(.*request\?: EmptyRequest, options\?: RequestOptions\)/gm)) {
        declared.push(`${className}.${match[1]}`);
      }
    }
    const expected = EMPTY_REQUEST_METHODS.map((id) => {
      const parts = id.split(".");
      const method = parts.pop();
      return `${parts.map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join("")}.${method}`;
    });

    expect(declared.sort()).toEqual(expected.sort());
  });

  it("offers none of the operations v6 removes", () => {
    const api = svc.api as unknown as Record<string, Record<string, unknown> | undefined>;
    for (const namespace of ["legacy", "scoresV3", "sessions", "datasetRunItems", "ingestion"]) {
      expect(api[namespace], namespace).toBeUndefined();
    }
    expect(api.trace?.get).toBeUndefined();
    expect(api.trace?.list).toBeUndefined();
    expect(api.datasets?.getRun).toBeUndefined();
    expect(api.datasets?.getRuns).toBeUndefined();
    expect(api.datasets?.deleteRun).toBeUndefined();
    expect(api.scores?.getById).toBeUndefined();
  });

  it("defines none of the types v6 removes, and keeps ScoreBody", () => {
    const types = Object.keys(loadDefinition().components.schemas);
    const removed = [
      "Trace",
      "Traces",
      "TraceWithDetails",
      "TraceWithFullDetails",
      "Session",
      "SessionWithTraces",
      "PaginatedSessions",
      "ObservationsViews",
      "ObservationsView",
      "ObservationsViewSingle",
      "DatasetRun",
      "DatasetRunWithItems",
      "PaginatedDatasetRuns",
      "DeleteDatasetRunResponse",
      "DatasetRunItem",
      "PaginatedDatasetRunItems",
      "CreateDatasetRunItemRequest",
      "TraceBody",
      "ObservationBody",
    ];

    expect(types.filter((name) => removed.includes(name))).toEqual([]);
    expect(types.filter((name) => /ScoreV1$|^Ingestion|Event$|^Legacy(Create|Score|Observation)/.test(name))).toEqual(
      [],
    );
    expect(types).toContain("ScoreBody");
  });

  it("URL-encodes path parameters", async () => {
    await svc.api.datasets.get("a b/c?d");

    expect(server.seen.at(-1)?.url).toBe("/api/public/v2/datasets/a%20b%2Fc%3Fd");
  });

  it("posts the score array to /api/public/scores and returns the partial-acceptance results of a 207", async () => {
    const results = { accepted: 1, rejected: 1, errors: [{ index: 1, id: "s-2", message: "name is empty" }] };
    server.reply(() => ({ status: 207, json: results }));
    const scores = [
      { id: "s-1", name: "accuracy", value: 0.9, traceId: "t-1" },
      { id: "s-2", name: "", value: 1, traceId: "t-1" },
    ];

    const response = await svc.api.scores.create(scores);

    expect(response).toEqual(results);
    expect("rejected" in response).toBe(true);
    expect(server.seen.at(-1)).toMatchObject({ method: "POST", path: "/api/public/scores", json: scores });
    expect(server.seen.at(-1)?.headers["content-type"]).toBe("application/json");
    server.reply(() => ({ status: 200, json: {} }));
  });

  it("reads scores from the v3 route with traceId, fields and id filters", async () => {
    await svc.api.scores.getMany({ traceId: "t-1", fields: "details,subject", id: "s-1" });

    const seen = server.seen.at(-1);
    expect(seen?.path).toBe("/api/public/v3/scores");
    expect(Object.fromEntries(seen?.query ?? [])).toEqual({ traceId: "t-1", fields: "details,subject", id: "s-1" });
  });
});
