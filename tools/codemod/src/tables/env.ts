/** The environment variables the v5 SDK reads, by v5 name, with the v6 name that replaces each. */
export const ENV_NAMES: Record<string, string> = Object.fromEntries(
  [
    "PUBLIC_KEY",
    "SECRET_KEY",
    "BASE_URL",
    "BASEURL",
    "TIMEOUT",
    "FLUSH_AT",
    "FLUSH_INTERVAL",
    "MEDIA_UPLOAD_ENABLED",
    "TRACING_ENVIRONMENT",
    "RELEASE",
    "LOG_LEVEL",
    "DEBUG",
  ].map((suffix) => [`LANGFUSE_${suffix}`, `SVC_${suffix}`]),
);
