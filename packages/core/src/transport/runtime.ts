/** The runtime the SDK runs in, as its globals describe it: how it sends, whether it compresses, its user agent. */
export interface RuntimeInfo {
  /** Which runtime it is. */
  kind: "node" | "bun" | "deno" | "cloudflare-workers" | "vercel-edge" | "browser";
  /** The runtime's own version, where it has one (`22.23.3`, `1.4.5`, `2.9.6`). */
  version?: string;
  /** Operating system and CPU (`linux x64`), where the runtime tells them. */
  platform?: string;
}

/** The globals that tell the runtimes apart. */
export interface RuntimeGlobals {
  /** Node's process object, which Bun, Deno and Workers with `nodejs_compat` offer too. */
  process?: {
    versions?: { node?: string; bun?: string; deno?: string };
    release?: { name?: string };
    platform?: string;
    arch?: string;
    getBuiltinModule?: (name: string) => unknown;
  };
  /** Set by Bun. */
  Bun?: { version?: string };
  /** Set by Deno. */
  Deno?: { version?: { deno?: string }; build?: { os?: string; arch?: string } };
  /** Set by the Vercel Edge runtime (`edge-runtime` locally, `vercel` when deployed). */
  EdgeRuntime?: unknown;
  /** `Cloudflare-Workers` on Workers; a browser's own otherwise. */
  navigator?: { userAgent?: string };
  /** The gzip of runtimes that cannot load `node:zlib`. */
  CompressionStream?: typeof CompressionStream;
}

/** Which runtime these globals belong to, each known by what only it sets (many offer a `process` object). */
export function detectRuntime(g: RuntimeGlobals): RuntimeInfo {
  if (g.navigator?.userAgent === "Cloudflare-Workers") return { kind: "cloudflare-workers" };
  if (typeof g.EdgeRuntime === "string") return { kind: "vercel-edge" };
  const proc = g.process;
  const platform = proc?.platform && proc.arch ? `${proc.platform} ${proc.arch}` : undefined;
  const bun = g.Bun?.version ?? proc?.versions?.bun;
  if (bun) return withPlatform({ kind: "bun", version: bun }, platform);
  const deno = g.Deno?.version?.deno;
  if (deno) {
    const build = g.Deno?.build;
    return withPlatform(
      { kind: "deno", version: deno },
      build?.os && build.arch ? `${build.os} ${build.arch}` : platform,
    );
  }
  const node = proc?.versions?.node;
  if (node && (proc?.release?.name === undefined || proc.release.name === "node"))
    return withPlatform({ kind: "node", version: node }, platform);
  return { kind: "browser" };
}

/**
 * A built-in module of Node (`node:net`), which Bun and Deno offer too, read from the runtime instead of imported,
 * so that a bundle for Workers or a browser has no module to resolve; undefined where the runtime has none.
 */
export function nodeBuiltin<T>(
  name: string,
  g: { process?: { getBuiltinModule?: (name: string) => unknown } } = globalThis,
): T | undefined {
  return g.process?.getBuiltinModule?.(name) as T | undefined;
}

/** The runtime of this process, found once. */
export function currentRuntime(): RuntimeInfo {
  cached ??= detectRuntime(globalThis as RuntimeGlobals);
  return cached;
}
let cached: RuntimeInfo | undefined;

/** Whether span batches are gzipped here: on server runtimes (Node, Bun, Deno), not on edge runtimes or browsers. */
export function isServerRuntime(runtime: RuntimeInfo): boolean {
  return runtime.kind === "node" || runtime.kind === "bun" || runtime.kind === "deno";
}

/** `node 22.23.3; linux x64`, `cloudflare-workers`: the runtime as the user agent names it. */
export function describeRuntime(runtime: RuntimeInfo): string {
  const name = runtime.version ? `${runtime.kind} ${runtime.version}` : runtime.kind;
  return runtime.platform ? `${name}; ${runtime.platform}` : name;
}

function withPlatform(info: RuntimeInfo, platform: string | undefined): RuntimeInfo {
  return platform ? { ...info, platform } : info;
}
