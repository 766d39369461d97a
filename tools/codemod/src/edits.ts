/** One change to a file's text: `text` replaces `[start, end)`; an insertion has `start === end`. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** The result of {@link applyEdits}: the new text, and the edits left out because they overlapped an earlier one. */
export interface AppliedEdits {
  text: string;
  skipped: TextEdit[];
  /** Maps a position in the old text to the position of the same character in the new text. */
  mapPosition(position: number): number;
}

/**
 * Applies edits to `text`. Insertions at a position come before a replacement that starts there, and edits of the
 * same kind at the same position keep the order they were made in. An edit that overlaps one kept before it is
 * skipped (and returned), so that one rule can never corrupt another's change.
 */
export function applyEdits(text: string, edits: readonly TextEdit[]): AppliedEdits {
  const ordered = edits
    .map((edit, index) => ({ edit, index, insertion: edit.start === edit.end }))
    .sort((a, b) => a.edit.start - b.edit.start || Number(b.insertion) - Number(a.insertion) || a.index - b.index);
  const kept: TextEdit[] = [];
  const skipped: TextEdit[] = [];
  let covered = 0; // end of the kept replacements so far
  for (const { edit, insertion } of ordered) {
    if (insertion ? edit.start < covered : edit.start < covered || edit.end > text.length) {
      skipped.push(edit);
      continue;
    }
    kept.push(edit);
    covered = Math.max(covered, edit.end);
  }
  let out = "";
  let at = 0;
  for (const edit of kept) {
    out += text.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  out += text.slice(at);
  const mapPosition = (position: number) => {
    let shift = 0;
    for (const edit of kept) {
      if (edit.start > position || (edit.start === position && edit.end !== edit.start)) break;
      shift += edit.text.length - (edit.end - edit.start);
    }
    return position + shift;
  };
  return { text: out, skipped, mapPosition };
}

/** 1-based line of `position` in `text`. */
export function lineOf(text: string, position: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < position; i = text.indexOf("\n", i + 1)) line++;
  return line;
}
