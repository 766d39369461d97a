/** Whether `text` is well-formed UTF-16: no half of a surrogate pair on its own. */
export function isWellFormed(text: string | undefined): boolean {
  return text !== undefined && !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}
