import { shared } from "../registry.js";

/** Written in place of a secret wherever text leaves the SDK. */
export const REDACTED = "[redacted]";

/** Secrets shorter than this are not registered: replacing them would mangle ordinary text. */
const MIN_SECRET_LENGTH = 6;
/** Bound on registered secrets, so a loop creating clients cannot grow the set without end. */
const MAX_SECRETS = 256;

const secrets = shared<{ values: Set<string> }>("secrets", () => ({ values: new Set() }));

/** Registers text (a secret key, Basic credentials) that must never appear in a log line or an error message. */
export function registerSecret(value: string | undefined): void {
  if (typeof value !== "string" || value.length < MIN_SECRET_LENGTH) return;
  const { values } = secrets();
  if (values.has(value)) return;
  if (values.size >= MAX_SECRETS) values.delete(values.values().next().value as string);
  values.add(value);
}

/** `text` with every registered secret and every credential written into a URL replaced by a marker. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const secret of secrets().values) if (out.includes(secret)) out = out.replaceAll(secret, REDACTED);
  return out.includes("@") ? out.replace(URL_CREDENTIALS, `$1${REDACTED}@`) : out;
}

/** `scheme://user:password@` in any text. */
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@:]*(?::[^\s/@]*)?@/gi;
