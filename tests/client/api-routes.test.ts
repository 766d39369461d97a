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

// The 41 methods of the interface document (section 4.2) that take `{}` before the request options.
const EMPTY_REQUEST_METHODS = [
  "annotationQueues.getQueue",
  "annotationQueues.getQueueItem",
  "annotationQueues.deleteQueueItem",
  "blobStorageIntegrations.getBlobStorageIntegrations",
  "blobStorageIntegrations.getBlobStorageIntegrationStatus",
  "blobStorageIntegrations.deleteBlobStorageIntegration",
  "comments.getById",
  "datasetItems.get",
  "datasetItems.delete",
  "datasets.get",
  "evaluationRules.get",
  "evaluationRules.delete",
  "evaluators.get",
  "evaluators.delete",
  "health.health",
  "llmConnections.delete",
  "media.get",
  "models.get",
  "models.delete",
  "organizations.getOrganizationMemberships",
  "organizations.getProjectMemberships",
  "organizations.getOrganizationProjects",
  "organizations.getOrganizationApiKeys",
  "projects.get",
  "projects.delete",
  "projects.getApiKeys",
  "projects.deleteApiKey",
  "scim.getServiceProviderConfig",
  "scim.getResourceTypes",
  "scim.getSchemas",
  "scim.getUser",
  "scim.deleteUser",
  "scoreConfigs.getById",
  "scores.delete",
  "trace.delete",
  "unstable.dashboardWidgets.get",
  "unstable.dashboardWidgets.delete",
  "unstable.dashboards.get",
  "unstable.dashboards.delete",
  "unstable.dashboards.deletePlacement",
  "unstable.skills.deleteVersion",
];

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

  it("declares the empty request parameter in the generated source of exactly those 41 methods", () => {
    const declared: string[] = [];
    for (const file of readdirSync(OUTPUT_DIR)) {
      const source = readFileSync(join(OUTPUT_DIR, file), "utf8");
      const className = /export class (\w+)Api \{/.exec(source)?.[1];
      for (const match of source.matchAll(
        /^ {2}(\w+)\(.*request: EmptyRequest = \{\}, options\?: RequestOptions\)/gm,
      )) {
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
