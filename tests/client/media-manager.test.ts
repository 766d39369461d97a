import { MediaManager, SvcClient } from "@svc/client";
import { describe, expect, it, onTestFinished } from "vitest";
import { type Reply, type SeenRequest, startServer, type TestServer } from "../support/http-server.ts";
import { captureLogs } from "../support/logs.ts";

const ref = (id: string, type = "text/plain") => `@@@svcMedia:type=${type}|id=${id}|source=base64_data_uri@@@`;

/** Media API plus a file store on the same server: /files/<id> answers the media's bytes. */
async function setup(files: Record<string, string>, extra?: (req: SeenRequest) => Reply | undefined) {
  let server: TestServer | undefined;
  server = await startServer((req) => {
    const custom = extra?.(req);
    if (custom) return custom;
    const media = req.path.match(/^\/api\/public\/media\/(.+)$/);
    if (media) {
      const id = decodeURIComponent(media[1] ?? "");
      if (!(id in files)) return { status: 404, json: { message: "no media" } };
      return {
        json: {
          mediaId: id,
          contentType: "text/plain",
          contentLength: 1,
          uploadedAt: "",
          url: `${server?.url}/files/${id}`,
          urlExpiry: "",
        },
      };
    }
    const file = req.path.match(/^\/files\/(.+)$/);
    if (file && (file[1] ?? "") in files) return { text: files[file[1] ?? ""] ?? "" };
    return { status: 404, text: "missing" };
  });
  onTestFinished(() => server?.close());
  return { server, svc: new SvcClient({ baseUrl: server.url, publicKey: "pk", secretKey: "sk" }) };
}

const dataUri = (text: string) => `data:text/plain;base64,${Buffer.from(text).toString("base64")}`;

describe("MediaManager.resolveReferences", () => {
  it("replaces every reference in a nested object by a base64 data URI, fetching each media once", async () => {
    const { server, svc } = await setup({ a: "hello", b: "world" });
    const obj = {
      text: `see ${ref("a")} and ${ref("b")}`,
      list: [ref("a"), { deep: ref("b") }, 3, null],
      untouched: true,
    };
    const resolved = await svc.media.resolveReferences({ obj, resolveWith: "base64DataUri" });

    expect(resolved).toEqual({
      text: `see ${dataUri("hello")} and ${dataUri("world")}`,
      list: [dataUri("hello"), { deep: dataUri("world") }, 3, null],
      untouched: true,
    });
    expect(obj.list[0]).toBe(ref("a"));
    const mediaCalls = server.seen.filter((r) => r.path.startsWith("/api/public/media/")).map((r) => r.path);
    expect(mediaCalls.sort()).toEqual(["/api/public/media/a", "/api/public/media/b"]);
    expect(server.seen.filter((r) => r.path.startsWith("/files/"))).toHaveLength(2);
  });

  it("sends no auth header when downloading the media's content", async () => {
    const { server, svc } = await setup({ a: "x" });
    await svc.media.resolveReferences({ obj: ref("a"), resolveWith: "base64DataUri" });
    expect(server.seen.find((r) => r.path === "/files/a")?.headers.authorization).toBeUndefined();
  });

  it("leaves a reference that cannot be resolved in place and logs a warning", async () => {
    const logs = captureLogs();
    const { svc } = await setup({ a: "ok" });
    const resolved = await svc.media.resolveReferences({
      obj: { good: ref("a"), missing: ref("zzz") },
      resolveWith: "base64DataUri",
    });
    expect(resolved).toEqual({ good: dataUri("ok"), missing: ref("zzz") });
    expect(logs).toContainEqual({ level: "warn", message: expect.stringContaining("media zzz left unresolved") });
  });

  it("leaves a reference in place when the download does not answer 200", async () => {
    const logs = captureLogs();
    const { svc } = await setup({ a: "x" }, (req) =>
      req.path === "/files/a" ? { status: 403, text: "expired" } : undefined,
    );
    expect(await svc.media.resolveReferences({ obj: [ref("a")], resolveWith: "base64DataUri" })).toEqual([ref("a")]);
    expect(logs).toContainEqual({ level: "warn", message: expect.stringContaining("HTTP 403") });
  });

  it("fetches media in parallel, at most 8 at once", async () => {
    let active = 0;
    let peak = 0;
    const files = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`m${i}`, `c${i}`]));
    const { server, svc } = await setup(files);
    server.reply(async (req) => {
      active += 1;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 5));
      active -= 1;
      const id = req.path.split("/").pop() ?? "";
      if (req.path.startsWith("/api/public/media/")) {
        return { json: { mediaId: id, contentType: "text/plain", url: `${server.url}/files/${id}` } };
      }
      return { text: files[id] ?? "" };
    });
    const obj = Object.keys(files).map((id) => ref(id));
    const resolved = await svc.media.resolveReferences({ obj, resolveWith: "base64DataUri" });

    expect(resolved).toEqual(Object.values(files).map(dataUri));
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(8);
  });

  it("leaves values deeper than maxDepth unchanged", async () => {
    const { svc } = await setup({ a: "x" });
    const resolved = await svc.media.resolveReferences({
      obj: { l1: { l2: ref("a") }, top: ref("a") },
      resolveWith: "base64DataUri",
      maxDepth: 1,
    });
    expect(resolved).toEqual({ l1: { l2: ref("a") }, top: dataUri("x") });
  });

  it("returns the input as is when it holds no reference", async () => {
    const { server, svc } = await setup({});
    const obj = { a: "plain", b: [1, 2] };
    expect(await svc.media.resolveReferences({ obj, resolveWith: "base64DataUri" })).toBe(obj);
    expect(server.seen).toHaveLength(0);
  });
});

describe("MediaManager.resolveReferences on hostile input", () => {
  it("never rejects: a cyclic object with a non-numeric maxDepth, a throwing getter, or no params at all", async () => {
    const logs = captureLogs();
    const { svc } = await setup({ a: "x" });
    const cyclic: Record<string, unknown> = { top: ref("a") };
    cyclic.self = cyclic;
    const hostile = Object.defineProperty({}, "field", {
      enumerable: true,
      get() {
        throw new Error("getter exploded");
      },
    });

    const resolved = (await svc.media.resolveReferences({
      obj: cyclic,
      resolveWith: "base64DataUri",
      maxDepth: "deep" as never,
    })) as Record<string, unknown>;
    await expect(svc.media.resolveReferences({ obj: hostile, resolveWith: "base64DataUri" })).resolves.toBe(hostile);
    await expect(svc.media.resolveReferences(null as never)).resolves.toBeUndefined();

    expect(resolved.top).toBe(dataUri("x"));
    expect(logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      "[Svc SDK] MediaManager: media references left unresolved: getter exploded",
      "[Svc SDK] MediaManager: media references left unresolved: TypeError: Cannot read properties of null (reading 'obj')",
    ]);
  });
});

describe("MediaManager.parseReferenceString", () => {
  it("reads the content type, media id and source of a reference string", () => {
    expect(MediaManager.parseReferenceString(ref("abc", "image/png"))).toEqual({
      contentType: "image/png",
      mediaId: "abc",
      source: "base64_data_uri",
    });
  });

  it("throws for text that is not a complete reference string", () => {
    expect(() => MediaManager.parseReferenceString("@@@svcMedia:type=image/png|id=x@@@")).toThrow(/lacks type, id/);
    expect(() => MediaManager.parseReferenceString("hello")).toThrow(/not a media reference string/);
  });
});
