import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { type CompilerOptions, Node, Project, type SourceFile, ts } from "ts-morph";
import { v5PackageOf } from "./tables/exports.ts";

/** Folders never searched: installed packages, build output, tool caches. */
const SKIPPED_FOLDERS = new Set([
  "node_modules",
  ".git",
  "dist",
  "build",
  "coverage",
  "out",
  ".next",
  ".nuxt",
  ".output",
  ".svelte-kit",
  ".turbo",
  ".cache",
]);
const SOURCE_FILE = /\.(?:[cm]?[jt]s|[jt]sx)$/;

/** The files of one run, loaded into one TypeScript program so that types flow between them. */
export interface LoadedProject {
  project: Project;
  sourceFiles: SourceFile[];
  packageJsons: string[];
  /** The v5 packages whose declarations resolve from the files that import them. */
  typedPackages: Set<string>;
  /** The v5 packages the files import but whose declarations do not resolve. */
  untypedPackages: Set<string>;
  warnings: string[];
}

/** Thrown for a path that does not exist or a tsconfig that cannot be read: the user's input, not a bug. */
export class InputError extends Error {
  override name = "InputError";
}

/**
 * Finds the source files and package.json files under `paths` and loads the source files with the compiler options
 * of the project's tsconfig.json (or `tsconfigPath`), JavaScript included.
 */
export function loadProject(paths: readonly string[], cwd: string, tsconfigPath?: string): LoadedProject {
  const roots = (paths.length > 0 ? paths : ["."]).map((path) => resolve(cwd, path));
  for (const root of roots) if (!existsSync(root)) throw new InputError(`no such file or folder: ${root}`);
  const sources: string[] = [];
  const packageJsons: string[] = [];
  for (const root of roots) collect(root, sources, packageJsons);
  const tsconfig = tsconfigPath ? resolve(cwd, tsconfigPath) : findTsconfig(roots, cwd);
  if (tsconfig && !existsSync(tsconfig)) throw new InputError(`no such tsconfig: ${tsconfig}`);
  const overrides: CompilerOptions = { allowJs: true, noEmit: true, skipLibCheck: true };
  const warnings: string[] = [];
  let project: Project;
  try {
    project = tsconfig
      ? new Project({ tsConfigFilePath: tsconfig, skipAddingFilesFromTsConfig: true, compilerOptions: overrides })
      : new Project({ compilerOptions: { ...DEFAULT_OPTIONS, ...overrides } });
  } catch (error) {
    // A tsconfig that extends an uninstalled package, say: the code can still be read with the default options.
    warnings.push(`${tsconfig} could not be read (${(error as Error).message.split("\n")[0]}); default options used.`);
    project = new Project({ compilerOptions: { ...DEFAULT_OPTIONS, ...overrides } });
  }
  const sourceFiles = [...new Set(sources)].map((file) => project.addSourceFileAtPath(file));
  const { typed, untyped } = resolveV5Packages(project, sourceFiles);
  return {
    project,
    sourceFiles,
    packageJsons: [...new Set(packageJsons)],
    typedPackages: typed,
    untypedPackages: untyped,
    warnings,
  };
}

const DEFAULT_OPTIONS: CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  jsx: ts.JsxEmit.Preserve,
  esModuleInterop: true,
};

function collect(path: string, sources: string[], packageJsons: string[]): void {
  const stat = statSync(path);
  if (stat.isFile()) {
    if (basename(path) === "package.json") packageJsons.push(path);
    else if (SOURCE_FILE.test(path) && !path.endsWith(".min.js")) sources.push(path);
    return;
  }
  if (!stat.isDirectory()) return;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isDirectory() && SKIPPED_FOLDERS.has(entry.name)) continue;
    if (entry.isDirectory() || entry.isFile()) collect(join(path, entry.name), sources, packageJsons);
  }
}

/** tsconfig.json of the first folder given, else of the working folder, if there is one. */
function findTsconfig(roots: string[], cwd: string): string | undefined {
  const folders = roots.map((root) => (statSync(root).isDirectory() ? root : dirname(root)));
  for (const folder of [...folders, cwd]) {
    const candidate = join(folder, "tsconfig.json");
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Which v5 packages the files name, and whether their declarations resolve from where they are named. */
function resolveV5Packages(project: Project, sourceFiles: SourceFile[]) {
  const options = project.getCompilerOptions();
  const typed = new Set<string>();
  const untyped = new Set<string>();
  for (const sourceFile of sourceFiles) {
    for (const literal of sourceFile.getDescendants()) {
      if (!Node.isStringLiteral(literal)) continue;
      const name = literal.getLiteralValue();
      const pkg = v5PackageOf(name);
      if (!pkg || pkg === "other" || typed.has(pkg)) continue;
      const resolved = ts.resolveModuleName(name, sourceFile.getFilePath(), options, ts.sys).resolvedModule;
      if (resolved) {
        typed.add(pkg);
        untyped.delete(pkg);
      } else {
        untyped.add(pkg);
      }
    }
  }
  return { typed, untyped };
}
