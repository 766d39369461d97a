/**
 * The value `table` holds under `key` as its own property, else undefined. Every table lookup of the codemod goes
 * through here: names taken from user code (`toString`, `constructor`, `__proto__`) must never find what a plain
 * object inherits.
 */
export function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
