/**
 * Set to `true` on every {@link SvcMedia} (an own property, not enumerable): code that is loaded apart from the class (the dataset manager's)
 * tells media values apart by it without importing the class.
 */
export const SVC_MEDIA: unique symbol = Symbol.for("svc.media");
