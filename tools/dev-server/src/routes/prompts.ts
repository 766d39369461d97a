import { HttpError } from "../http.ts";
import { intParam, numberedPage } from "../paging.ts";
import type { Route } from "../route.ts";
import type { DevStore, StoredPrompt } from "../store.ts";

/** Label the server keeps on the newest version of each prompt; clients may not set it. */
export const LATEST_LABEL = "latest";
/** Label a prompt read without version or label resolves. */
export const DEFAULT_LABEL = "production";

function toPrompt(p: StoredPrompt) {
  return {
    name: p.name,
    version: p.version,
    type: p.type,
    prompt: p.prompt,
    config: p.config,
    labels: p.labels,
    tags: p.tags,
    commitMessage: p.commitMessage,
    isActive: p.labels.includes(DEFAULT_LABEL),
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

function stringList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw new HttpError(400, `${field} must be an array of strings`);
  }
  return [...new Set(value as string[])];
}

/** Moves each label to the given version: a label names one version of a prompt at a time. */
function moveLabels(versions: StoredPrompt[], target: StoredPrompt, labels: string[], now: string) {
  for (const other of versions) {
    if (other === target) continue;
    const kept = other.labels.filter((l) => !labels.includes(l));
    if (kept.length !== other.labels.length) {
      other.labels = kept;
      other.updatedAt = now;
    }
  }
  target.labels = [...new Set([...target.labels, ...labels])];
}

function checkLabels(labels: string[]): void {
  if (labels.includes(LATEST_LABEL)) {
    throw new HttpError(400, `The label "${LATEST_LABEL}" is reserved; the server sets it on the newest version`);
  }
}

function findPrompt(store: DevStore, name: string, query: URLSearchParams): StoredPrompt {
  const versions = store.prompts.get(name) ?? [];
  const versionRaw = query.get("version");
  const label = query.get("label");
  if (versionRaw && label) throw new HttpError(400, "Pass either version or label, not both");
  if (versionRaw) {
    const version = Number(versionRaw);
    const hit = versions.find((p) => p.version === version);
    if (!hit) throw new HttpError(404, `Prompt not found: '${name}' with version ${versionRaw}`);
    return hit;
  }
  const wanted = label || DEFAULT_LABEL;
  const hit = versions.find((p) => p.labels.includes(wanted));
  if (!hit) throw new HttpError(404, `Prompt not found: '${name}' with label '${wanted}'`);
  return hit;
}

export const promptRoutes: Route[] = [
  {
    method: "POST",
    path: "/api/public/v2/prompts",
    auth: "basic",
    body: "json",
    handle(ctx) {
      const body = (ctx.body ?? {}) as Record<string, unknown>;
      const name = body.name;
      if (typeof name !== "string" || name === "") throw new HttpError(400, "name must be a non-empty string");
      const type = body.type === "chat" ? "chat" : "text";
      if (type === "text" && typeof body.prompt !== "string") {
        throw new HttpError(400, "prompt must be a string for a text prompt");
      }
      if (type === "chat" && !Array.isArray(body.prompt)) {
        throw new HttpError(400, "prompt must be an array of messages for a chat prompt");
      }
      const labels = stringList(body.labels, "labels");
      checkLabels(labels);
      const versions = ctx.store.prompts.get(name) ?? [];
      const now = new Date().toISOString();
      const created: StoredPrompt = {
        name,
        version: (versions.at(-1)?.version ?? 0) + 1,
        type,
        prompt:
          type === "chat"
            ? (body.prompt as Record<string, unknown>[]).map((m) =>
                m.type === "placeholder" ? { type: "placeholder", name: m.name } : { ...m, type: "chatmessage" },
              )
            : body.prompt,
        config: body.config ?? {},
        labels: [],
        tags: stringList(body.tags, "tags"),
        commitMessage: typeof body.commitMessage === "string" ? body.commitMessage : null,
        createdAt: now,
        updatedAt: now,
      };
      for (const v of versions) v.labels = v.labels.filter((l) => l !== LATEST_LABEL);
      moveLabels(versions, created, [...labels, LATEST_LABEL], now);
      // Tags belong to the prompt, not the version: every version shows the newest tags.
      for (const v of versions) v.tags = created.tags;
      versions.push(created);
      ctx.store.prompts.set(name, versions);
      return { body: toPrompt(created) };
    },
  },
  {
    method: "GET",
    path: "/api/public/v2/prompts/{promptName}",
    auth: "basic",
    body: "none",
    handle(ctx) {
      return { body: toPrompt(findPrompt(ctx.store, ctx.params.promptName!, ctx.query)) };
    },
  },
  {
    method: "DELETE",
    path: "/api/public/v2/prompts/{promptName}",
    auth: "basic",
    body: "none",
    handle(ctx) {
      const name = ctx.params.promptName!;
      const versions = ctx.store.prompts.get(name) ?? [];
      const version = ctx.query.get("version");
      const label = ctx.query.get("label");
      const kept = versions.filter(
        (p) => (version && p.version !== Number(version)) || (label && !p.labels.includes(label)),
      );
      if (kept.length === versions.length) throw new HttpError(404, `Prompt not found: '${name}'`);
      if (kept.length) ctx.store.prompts.set(name, kept);
      else ctx.store.prompts.delete(name);
      return { status: 204 };
    },
  },
  {
    method: "PATCH",
    path: "/api/public/v2/prompts/{name}/versions/{version}",
    auth: "basic",
    body: "json",
    handle(ctx) {
      const name = ctx.params.name!;
      const version = Number(ctx.params.version);
      if (!Number.isInteger(version))
        throw new HttpError(400, `version must be an integer, got "${ctx.params.version}"`);
      const labels = stringList((ctx.body as Record<string, unknown> | undefined)?.newLabels, "newLabels");
      checkLabels(labels);
      const versions = ctx.store.prompts.get(name) ?? [];
      const target = versions.find((p) => p.version === version);
      if (!target) throw new HttpError(404, `Prompt not found: '${name}' with version ${version}`);
      const now = new Date().toISOString();
      moveLabels(versions, target, labels, now);
      target.updatedAt = now;
      return { body: toPrompt(target) };
    },
  },
  {
    method: "GET",
    path: "/api/public/v2/prompts",
    auth: "basic",
    body: "none",
    handle(ctx) {
      const q = ctx.query;
      const page = intParam(q, "page", 1);
      const limit = intParam(q, "limit", 50, 1000);
      const metas = [...ctx.store.prompts.entries()]
        .filter(([name]) => !q.get("name") || q.get("name") === name)
        .map(([name, versions]) => ({
          name,
          type: versions.at(-1)!.type,
          versions: versions.map((v) => v.version),
          labels: [...new Set(versions.flatMap((v) => v.labels))],
          tags: versions.at(-1)!.tags,
          lastUpdatedAt: versions
            .map((v) => v.updatedAt)
            .sort()
            .at(-1)!,
          lastConfig: versions.at(-1)!.config,
        }))
        .filter((m) => !q.get("label") || m.labels.includes(q.get("label")!))
        .filter((m) => !q.get("tag") || m.tags.includes(q.get("tag")!));
      return { body: numberedPage(metas, page, limit) };
    },
  },
];
