// Where the published packages live and what each one's build reads: shared by the build, pack and check scripts.
import { join } from "node:path";

/** Root of the repository. */
export const ROOT = join(import.meta.dirname, "..");

/** The published packages, by folder name under `packages/`, in build order (a package after those it imports). */
export const PUBLISHED = ["tracing", "otel", "client", "langchain"] as const;

/** A published package, by folder name. */
export type PackageFolder = (typeof PUBLISHED)[number];

/** The published packages whose build reads another one's built declarations (`@svc/tracing`). */
export const BUILT_AFTER: Record<PackageFolder, readonly PackageFolder[]> = {
  tracing: [],
  otel: [],
  client: ["tracing"],
  langchain: ["tracing"],
};

/** Published commands, by folder from the root: not SDK packages, not in the lockstep group. */
export const COMMANDS = ["tools/codemod"] as const;

/** The folder of a package. */
export function packageDir(folder: string): string {
  return join(ROOT, "packages", folder);
}
