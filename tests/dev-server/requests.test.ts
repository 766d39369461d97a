import { describe, expect, it } from "vitest";
import { useDevServer } from "../support/dev-server.ts";

describe("dev server: authentication", () => {
  it("answers 401 with a JSON message when the Authorization header is missing", async () => {
    const server = await useDevServer();

    const res = await server.request("GET", "/api/public/projects", { auth: false });

    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/Missing Authorization header/);
  });

  it("answers 401 when the secret key is wrong", async () => {
    const server = await useDevServer();

    const res = await server.request("GET", "/api/public/projects", {
      auth: `Basic ${Buffer.from("pk-dev:wrong").toString("base64")}`,
    });

    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/Invalid credentials/);
  });

  it("accepts the keys it was started with and no others", async () => {
    const server = await useDevServer({ publicKey: "pk-custom", secretKey: "sk-custom" });

    const custom = await server.request("GET", "/api/public/projects");
    const defaults = await server.request("GET", "/api/public/projects", {
      auth: `Basic ${Buffer.from("pk-dev:sk-dev").toString("base64")}`,
    });

    expect(custom.status).toBe(200);
    expect(custom.body.data[0]).toMatchObject({ id: "dev-project" });
    expect(defaults.status).toBe(401);
  });

  it("accepts Bearer with the public key on POST /api/public/scores only", async () => {
    const server = await useDevServer();

    const scores = await server.request("POST", "/api/public/scores", {
      auth: "Bearer pk-dev",
      body: [{ name: "thumbs", value: 1, traceId: "t-1" }],
    });
    const projects = await server.request("GET", "/api/public/projects", { auth: "Bearer pk-dev" });

    expect(scores.status).toBe(200);
    expect(projects.status).toBe(401);
    expect(projects.body.message).toMatch(/Bearer is accepted only for POST \/api\/public\/scores/);
  });

  it("answers health checks without credentials", async () => {
    const server = await useDevServer();

    const res = await server.request("GET", "/api/public/health", { auth: false });

    expect(res).toMatchObject({ status: 200, body: { status: "OK", version: expect.any(String) } });
  });
});

describe("dev server: routing", () => {
  it("answers 404 JSON for an unknown route", async () => {
    const server = await useDevServer();

    const res = await server.request("GET", "/api/public/no-such-thing");

    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect(res.body).toEqual({ message: "No route GET /api/public/no-such-thing", error: "Not Found" });
  });

  it("answers 405 with an Allow header for a known route and the wrong method", async () => {
    const server = await useDevServer();

    const res = await server.request("PUT", "/api/public/v2/prompts");

    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST, GET");
    expect(res.body.message).toMatch(/Method PUT not allowed/);
  });
});

describe("dev server: browsers", () => {
  it("answers a CORS preflight for the score route so a web page may send scores", async () => {
    const server = await useDevServer();

    const res = await fetch(`${server.url}/api/public/scores`, {
      method: "OPTIONS",
      headers: { origin: "http://localhost:5173", "access-control-request-method": "POST" },
    });

    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-headers")).toMatch(/authorization, content-type/);
  });
});

describe("dev server: request validation", () => {
  it("answers 400 when the body is not JSON", async () => {
    const server = await useDevServer();

    const res = await server.request("POST", "/api/public/v2/datasets", { body: "{not json" });

    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^Request body is not valid JSON/);
  });

  it("answers 400 naming the field when a body does not fit the API definition", async () => {
    const server = await useDevServer();

    const res = await server.request("POST", "/api/public/v2/datasets", { body: { name: 42 } });

    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Invalid request body: body/name must be string");
    expect(res.body.error).toEqual([{ path: "body/name", message: "must be string" }]);
  });

  it("answers 400 when a required body field is missing", async () => {
    const server = await useDevServer();

    const res = await server.request("POST", "/api/public/media", { body: { contentType: "image/png" } });

    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/must have required property 'contentLength'/);
  });

  it("answers 400 when a query parameter has the wrong type", async () => {
    const server = await useDevServer();

    const res = await server.request("GET", "/api/public/v3/scores?limit=many");

    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Query parameter limit is invalid: limit must be integer,null (got "many")');
  });

  it("answers 400 when a required query parameter is missing", async () => {
    const server = await useDevServer();

    const res = await server.request("GET", "/api/public/experiments");

    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Query parameter fromStartTime is required");
  });

  it("answers 400 when a path parameter has the wrong type", async () => {
    const server = await useDevServer();

    const res = await server.request("PATCH", "/api/public/v2/prompts/greeting/versions/first", {
      body: { newLabels: ["production"] },
    });

    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^Path parameter version is invalid/);
  });

  it("skips the checks when started without an API definition", async () => {
    const server = await useDevServer({ apiDefinition: false });

    const res = await server.request("GET", "/api/public/v3/scores?limit=many");

    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Query parameter limit must be an integer from 1 to 100, got "many"');
  });
});
