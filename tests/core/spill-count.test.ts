import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { Spill } from "../../packages/core/src/spill/spill.ts";
import { loadNodeFs, type SpillFs } from "../../packages/core/src/spill/spill-settings.ts";

// The spill alone: how many items it says are on disk (what `health().onDisk` and the exit line report) against the
// files in the directory, when two batches are written at once.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Items in the directory's batch files, as their names count them (kind.tag.time.count.bytes.unique.batch). */
function itemsInFiles(dir: string): number {
  return readdirSync(dir)
    .filter((name) => name.includes(".batch"))
    .reduce((sum, name) => sum + Number(name.split(".")[3]), 0);
}

it("counts each batch once when one write's file appears while the other lists the directory", async () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-spill-count-"));
  dirs.push(dir);
  const nodeFs = loadNodeFs() as SpillFs;
  // The first write is held after its file is in place (in the directory's sync), until the second has listed the
  // directory, seen that file, and finished.
  let hold: ((release: () => void) => void) | undefined;
  const fs: SpillFs = {
    ...nodeFs,
    sep: nodeFs.sep,
    pid: nodeFs.pid,
    host: nodeFs.host,
    syncDir: async (path) => {
      const held = hold;
      hold = undefined;
      if (held) await new Promise<void>((release) => held(release));
      return nodeFs.syncDir(path);
    },
  };
  const spill = new Spill<string>(
    { dir, maxBytes: 1024 * 1024, maxAgeMs: 60_000, fs },
    {
      identity: "http://127.0.0.1:1 pk-test",
      encode: async (items) => ({
        body: new TextEncoder().encode(items.join(",")),
        header: { contentType: "text/plain" },
      }),
      send: async () => ({ delivered: 0 }),
    },
  );
  spill.attach({
    owner: "TestQueue",
    items: "spans",
    counts: { spilled: 0, replayed: 0 },
    drop: () => undefined,
    record: () => undefined,
    failing: () => true,
  });

  let releaseFirst: (() => void) | undefined;
  const firstHeld = new Promise<void>((resolve) => {
    hold = (release) => {
      releaseFirst = release;
      resolve();
    };
  });
  const first = spill.write(["a1", "a2", "a3", "a4", "a5"], "queueFull");
  await firstHeld;
  await spill.write(["b1", "b2", "b3", "b4", "b5"], "queueFull");
  releaseFirst?.();
  await first;

  expect(itemsInFiles(dir)).toBe(10);
  expect(spill.onDisk).toBe(10);
  await spill.close();
  expect(spill.onDisk).toBe(10);
});
