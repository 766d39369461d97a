// Architecture rules, checked by `pnpm check:arch` (dependency-cruiser) over packages/*/src, bench, scripts and tools
// (the dev server and the codemod).
// Paths are relative to the repository root. Imports are resolved as tsc resolves them: package names (`@svc/tracing`,
// `@svc/core/<subpath>`) through the `paths` of tsconfig.json to packages/<name>/src, other names through
// node_modules with the workspace links followed to packages/<name>. An @svc name that resolves to no file is an
// error of its own, so that no import slips past the rules unresolved.

const PUBLISHED = "(tracing|otel|client|langchain)";
const CORE = "core";
/** The one file of another published package that its name (through tsconfig paths) may reach. */
const PACKAGE_ROOT = "^packages/[^/]+/src/index\\.ts$";
/** The self-contained modules of core that the test kit and the dev server read span attributes with. */
const SHARED_READERS = "^packages/core/src/(attributes|genai-attributes|genai-usage|read-observation-attributes)\\.ts$";

/** @type {import("dependency-cruiser").IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      // Type-only imports count too: a cycle of types is still two modules that cannot be understood one at a time.
      comment: "A cycle of imports: modules that cannot load or be understood one at a time.",
      from: { path: "^(packages/[^/]+/src|tools|bench|scripts)/" },
      to: { circular: true },
    },
    {
      name: "core-imports-no-published-package",
      severity: "error",
      comment:
        "@svc/core is built into @svc/tracing and served to the other packages; it cannot depend on any of them.",
      from: { path: `^packages/${CORE}/src/` },
      to: { path: [`^packages/${PUBLISHED}/`, `^@svc/${PUBLISHED}(/|$)`] },
    },
    {
      name: "tracing-imports-only-core",
      severity: "error",
      comment: "@svc/tracing imports no other @svc package except the private @svc/core.",
      from: { path: "^packages/tracing/src/" },
      to: { path: ["^packages/", "^@svc/"], pathNot: ["^packages/(tracing|core)/", "^@svc/core(/|$)"] },
    },
    {
      name: "published-package-by-its-name",
      severity: "error",
      comment:
        "A published package reaches another only as `@svc/<name>` (mapped by tsconfig paths), never as `@svc/<name>/src/...`.",
      from: { path: `^packages/${PUBLISHED}/src/` },
      to: {
        path: `^packages/${PUBLISHED}/`,
        pathNot: "^packages/$1/",
        dependencyTypesNot: ["aliased-tsconfig-paths", "local"],
      },
    },
    {
      name: "published-package-root-only",
      severity: "error",
      comment: "A published package imports another's root, not one of its subpaths.",
      from: { path: `^packages/${PUBLISHED}/src/` },
      to: {
        path: `^packages/${PUBLISHED}/`,
        pathNot: ["^packages/$1/", PACKAGE_ROOT],
        dependencyTypes: ["aliased-tsconfig-paths"],
      },
    },
    {
      name: "no-relative-import-into-another-package",
      severity: "error",
      comment: "Packages reach each other by package name, never by a relative path into another package's folder.",
      from: { path: "^packages/([^/]+)/" },
      to: { dependencyTypes: ["local"], dependencyTypesNot: ["aliased"], path: "^packages/", pathNot: "^packages/$1/" },
    },
    {
      name: "product-code-imports-no-tooling",
      severity: "error",
      comment: "Shipped code never depends on tests, the benchmark, scripts or tools.",
      from: { path: "^packages/[^/]+/src/" },
      to: { path: "^(tests|bench|scripts|tools)/" },
    },
    {
      name: "codemod-stands-alone",
      severity: "error",
      comment:
        "The codemod runs before the v6 packages are installed and is published on its own: it imports no @svc package.",
      from: { path: "^tools/codemod/" },
      to: { path: ["^packages/", "^@svc/", "^tools/(?!codemod/)"] },
    },
    {
      name: "dev-server-reads-only-shared-readers",
      severity: "error",
      comment:
        "The dev server runs from its sources under Node's type stripping: of the packages it imports only the " +
        "self-contained modules it shares with the test kit (how span attributes read as observations).",
      from: { path: "^tools/dev-server/" },
      to: { path: ["^packages/", "^@svc/"], pathNot: SHARED_READERS },
    },
    {
      name: "shared-readers-stand-alone",
      severity: "error",
      comment:
        "The modules the dev server loads from source import only one another, by their .ts paths, so that Node's " +
        "type stripping can load them.",
      from: { path: SHARED_READERS },
      to: { pathNot: SHARED_READERS },
    },
    {
      name: "svc-name-resolves",
      severity: "error",
      comment:
        "An @svc import that resolves to no file cannot be checked by the rules above (add it to tsconfig paths).",
      from: { path: "^(packages/[^/]+/src|tools|bench|scripts)/" },
      to: { couldNotResolve: true, path: "^@svc/" },
    },
  ],
  options: {
    doNotFollow: { path: "(^|/)node_modules/" },
    exclude: { path: "^bench/results/" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
  },
};
