import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyEdits, lineOf } from "../../tools/codemod/src/edits.ts";
import { writeAtomically } from "../../tools/codemod/src/write.ts";
import { tempFolder } from "../support/codemod.ts";

describe("applyEdits", () => {
  it("applies replacements and insertions at their positions of the original text", () => {
    const result = applyEdits("call(a, b)", [
      { start: 0, end: 4, text: "run" },
      { start: 8, end: 8, text: "{}, " },
    ]);
    expect(result.text).toBe("run(a, {}, b)");
    expect(result.skipped).toEqual([]);
  });

  it("puts insertions before a replacement that starts at the same position, in the order they were made", () => {
    const result = applyEdits("x", [
      { start: 0, end: 1, text: "y" },
      { start: 0, end: 0, text: "[" },
      { start: 0, end: 0, text: "(" },
      { start: 1, end: 1, text: "]" },
    ]);
    expect(result.text).toBe("[(y]");
  });

  it("skips an edit that overlaps one made before it, and returns it", () => {
    const overlapping = { start: 2, end: 6, text: "!" };
    const inside = { start: 3, end: 3, text: "?" };
    const result = applyEdits("abcdefgh", [{ start: 1, end: 4, text: "X" }, overlapping, inside]);
    expect(result.text).toBe("aXefgh");
    expect(result.skipped).toEqual([overlapping, inside]);
  });

  it("maps positions of the original text to the new text", () => {
    const result = applyEdits("ab\ncd", [
      { start: 0, end: 0, text: "// note\n" },
      { start: 3, end: 4, text: "CC" },
    ]);
    expect(result.text).toBe("// note\nab\nCCd");
    expect(result.mapPosition(3)).toBe(11);
    expect(result.mapPosition(4)).toBe(13);
    expect(lineOf(result.text, result.mapPosition(3))).toBe(3);
  });
});

describe("writeAtomically", () => {
  it("replaces each file's content and keeps its permissions", () => {
    const dir = tempFolder("svc-write-");
    const file = join(dir, "a.ts");
    writeFileSync(file, "old", { mode: 0o640 });

    writeAtomically([{ path: file, text: "new" }]);

    expect(readFileSync(file, "utf8")).toBe("new");
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(["a.ts"]);
  });

  it("changes no file when one of them cannot be written, and leaves no temporary file behind", () => {
    const dir = tempFolder("svc-write-");
    const first = join(dir, "a.ts");
    const gone = join(dir, "gone", "b.ts");
    writeFileSync(first, "old a");
    mkdirSync(join(dir, "gone"));
    writeFileSync(gone, "old b");
    rmSync(join(dir, "gone"), { recursive: true });

    expect(() =>
      writeAtomically([
        { path: first, text: "new a" },
        { path: gone, text: "new b" },
      ]),
    ).toThrow();

    expect(readFileSync(first, "utf8")).toBe("old a");
    expect(readdirSync(dir)).toEqual(["a.ts"]);
  });
});
