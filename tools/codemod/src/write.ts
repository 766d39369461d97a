import { renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** A file's new content. */
export interface FileWrite {
  path: string;
  text: string;
}

/**
 * Writes every file or none: each new content goes to a temporary file next to its target first (same folder, so
 * that the rename cannot cross file systems), with the target's permissions; only when all are written does each
 * replace its target by a rename, which is atomic. A reader never sees a half-written file.
 */
export function writeAtomically(files: readonly FileWrite[]): void {
  const temporary: { from: string; to: string }[] = [];
  try {
    files.forEach((file, index) => {
      const from = join(dirname(file.path), `.${basename(file.path)}.svc-codemod-${process.pid}-${index}.tmp`);
      temporary.push({ from, to: file.path });
      writeFileSync(from, file.text, { mode: statSync(file.path).mode & 0o7777, flag: "wx" });
    });
  } catch (error) {
    for (const { from } of temporary) removeQuietly(from);
    throw error;
  }
  for (const { from, to } of temporary) renameSync(from, to);
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Never created (the write that failed) or already gone: nothing to clean up.
  }
}
