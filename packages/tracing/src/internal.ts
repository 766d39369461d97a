/**
 * The core the svc packages share: `@svc/otel`, `@svc/client` and `@svc/langchain` import it from here, so that an
 * application loads and bundles it once. Not an API for applications: it changes in any release, in step with those
 * packages, which depend on this exact version of `@svc/tracing`.
 * @packageDocumentation
 */
export * from "@svc/core";
