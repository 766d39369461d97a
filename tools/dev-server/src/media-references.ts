import { mediaRecord } from "./routes/media.ts";
import type { DevStore, StoredDatasetItem } from "./store.ts";

const FIELDS = ["input", "expectedOutput", "metadata"] as const;
const REFERENCE = /@@@svcMedia:.+?@@@/g;

/** One entry of a dataset item's `mediaReferences`. */
export interface MediaReference {
  field: (typeof FIELDS)[number];
  referenceString: string;
  jsonPath: string;
  media: ReturnType<typeof mediaRecord>;
}

/**
 * The media references of an item, as the server lists them: for every reference string in a string of `input`,
 * `expectedOutput` or `metadata` whose media is stored, the field, the JSON path of that string in normalized
 * bracket form (`$`, `['key']` with the key unescaped, `[index]`, and an all-digit key written as an index, as
 * the path library of the server writes them), and the media record with a fresh download URL.
 */
export function mediaReferencesOf(item: StoredDatasetItem, store: DevStore, baseUrl: string): MediaReference[] {
  const found: MediaReference[] = [];
  for (const field of FIELDS) {
    walk(item[field], "$", (text, jsonPath) => {
      for (const [referenceString] of text.matchAll(REFERENCE)) {
        const id = /\|id=([^|@]+)/.exec(referenceString)?.[1];
        const media = id === undefined ? undefined : store.media.get(id);
        if (media?.bytes) found.push({ field, referenceString, jsonPath, media: mediaRecord(media, baseUrl) });
      }
    });
  }
  return found;
}

function walk(value: unknown, path: string, onString: (text: string, path: string) => void): void {
  if (typeof value === "string") {
    onString(value, path);
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) walk(item, `${path}[${i}]`, onString);
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      walk(item, `${path}${/^\d+$/.test(key) ? `[${key}]` : `['${key}']`}`, onString);
    }
  }
}
