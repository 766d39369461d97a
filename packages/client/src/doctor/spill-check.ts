import { counted, describeError, type SpillSettings, SpillStore } from "@svc/core";
import type { DoctorCheck } from "./report.js";

const NAME = "spill directory";
const MIB = 1024 * 1024;

/**
 * The spill directory, when one is set: whether it can be written, its size against its bound, and the batches
 * waiting in it (by kind, the oldest with its age). A directory not made yet passes (it is made at the first spill).
 */
export async function checkSpill(settings: SpillSettings): Promise<DoctorCheck> {
  const { dir, fs, maxBytes } = settings;
  const store = new SpillStore(dir, fs);
  let listing: Awaited<ReturnType<SpillStore["list"]>>;
  try {
    listing = await store.list();
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT")
      return { name: NAME, status: "pass", detail: `${dir}: not made yet; it is made when a batch is first written` };
    return fail(dir, `cannot be read: ${describeError(error)}`);
  }
  const probe = `${dir}${fs.sep}.tmp.doctor-${fs.pid}`;
  try {
    const handle = await fs.open(probe, "wx", 0o600);
    await handle.close();
    await fs.rm(probe, { force: true });
  } catch (error) {
    return fail(dir, `cannot be written: ${describeError(error)}`);
  }
  const size = `${(listing.bytes / MIB).toFixed(1)} MiB of ${(maxBytes / MIB).toFixed(0)} MiB (spillMaxBytes)`;
  if (listing.files.length === 0) return { name: NAME, status: "pass", detail: `${dir}: empty, ${size}` };
  const byKind = new Map<string, number>();
  for (const file of listing.files) byKind.set(file.kind, (byKind.get(file.kind) ?? 0) + file.count);
  const items = [...byKind].map(([kind, count]) => counted(count, kind)).join(" and ");
  const oldest = listing.files[0]?.createdAt ?? Date.now();
  const age = Math.round((Date.now() - oldest) / 60_000);
  return {
    name: NAME,
    status: "warn",
    detail:
      `${dir}: ${counted(listing.files.length, "batch files")} waiting (${items}), ${size}; the oldest from ` +
      `${new Date(oldest).toISOString()} (${age} min ago)`,
    fix: "they are sent by the next process that starts with this directory once the server answers; if the server checks above fail, fix those first",
  };
}

function fail(dir: string, what: string): DoctorCheck {
  return {
    name: NAME,
    status: "fail",
    detail: `${dir} ${what}`,
    fix: "point spillDir (SVC_SPILL_DIR) at a writable directory of a disk that outlives the process, or unset it",
  };
}
