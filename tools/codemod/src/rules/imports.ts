import {
  type CallExpression,
  type ExportDeclaration,
  type Identifier,
  type ImportDeclaration,
  type ImportEqualsDeclaration,
  type ImportTypeNode,
  Node,
  type StringLiteral,
  SyntaxKind,
} from "ts-morph";
import type { FileContext } from "../context.ts";
import {
  type ExportFate,
  fateOf,
  type Note,
  otherPackageNote,
  PACKAGE_MAP,
  type V5Package,
  v5PackageOf,
} from "../tables/exports.ts";
import { SECTIONS } from "../tables/sections.ts";
import {
  chooseLocal,
  isTypePosition,
  markUses,
  type NamedBinding,
  references,
  renameReference,
  reviewRule,
  rewriteBinding,
  typeOnlyNote,
  valueReferences,
} from "./import-bindings.ts";
import { MOCK_FACTORY_CALLS, rewriteMockFactory } from "./mocks.ts";

/** Calls whose first argument names a module without binding anything: mocks and resolution helpers of test tools. */
const MODULE_NAME_CALLS = new Set([
  "require.resolve",
  "jest.mock",
  "jest.doMock",
  "jest.unmock",
  "vi.mock",
  "vi.doMock",
  "vi.unmock",
]);

/** Test-tool calls that return the module object, as `require()` does: `jest.requireActual("@langfuse/client")`. */
const MODULE_OBJECT_CALLS = new Set(["jest.requireActual", "jest.requireMock", "vi.importActual", "vi.importMock"]);

/**
 * Rewrites the module names of the v5 packages to their v6 packages and every imported name that changed, with the
 * references to it in the file; marks what has no v6 form.
 */
export function rewriteImports(ctx: FileContext): void {
  for (const node of ctx.sourceFile.getDescendants()) {
    if (Node.isImportDeclaration(node)) importDeclaration(ctx, node);
    else if (Node.isExportDeclaration(node)) exportDeclaration(ctx, node);
    else if (Node.isImportEqualsDeclaration(node)) importEquals(ctx, node);
    else if (Node.isCallExpression(node)) moduleCall(ctx, node);
    else if (Node.isImportTypeNode(node)) importType(ctx, node);
  }
}

/** `import x = require("@langfuse/x")`. */
function importEquals(ctx: FileContext, node: ImportEqualsDeclaration): void {
  const reference = node.getModuleReference();
  const literal = Node.isExternalModuleReference(reference) ? reference.getExpression() : undefined;
  if (!literal || !Node.isStringLiteral(literal) || !v5PackageOf(literal.getLiteralValue())) return;
  const pkg = modulePackage(ctx, literal);
  if (pkg) moduleObject(ctx, pkg, literal, node.getNameNode());
}

/** The v5 package a module name literal names; `other` @langfuse packages are marked here. */
function modulePackage(ctx: FileContext, literal: StringLiteral): V5Package | undefined {
  const pkg = v5PackageOf(literal.getLiteralValue());
  if (pkg !== "other") return pkg;
  ctx.leave(literal, "packages", otherPackageNote(literal.getLiteralValue()));
  return undefined;
}

function setModule(ctx: FileContext, literal: StringLiteral, module: string): void {
  const quote = literal.getText()[0] ?? '"';
  ctx.replaceNode(literal, `${quote}${module}${quote}`);
  ctx.changed("packages");
}

function importDeclaration(ctx: FileContext, declaration: ImportDeclaration): void {
  const literal = declaration.getModuleSpecifier();
  const pkg = modulePackage(ctx, literal);
  if (!pkg) return;
  const bindings: NamedBinding[] = declaration.getNamedImports().map((specifier) => ({
    node: specifier,
    imported: specifier.getName(),
    local: identifierOrNothing(specifier.getAliasNode() ?? specifier.getNameNode()),
    kind: "import",
    typeOnly: declaration.isTypeOnly() || specifier.isTypeOnly(),
    fate: fateOf(pkg, specifier.getName()),
  }));
  const objectName = declaration.getNamespaceImport() ?? declaration.getDefaultImport();
  if (objectName) {
    moduleObject(ctx, pkg, literal, objectName);
  } else if (pkg !== "core") {
    setModule(ctx, literal, PACKAGE_MAP[pkg]);
  } else if (bindings.length === 0) {
    ctx.leave(literal, "packages", coreNote());
    return;
  } else if (needsSplit(bindings)) {
    splitCoreImport(ctx, declaration, bindings);
    return;
  } else {
    setModule(ctx, literal, coreModule(bindings) ?? "@svc/client");
  }
  for (const binding of bindings) rewriteBinding(ctx, binding);
}

function identifierOrNothing(node: Node): Identifier | undefined {
  return Node.isIdentifier(node) ? node : undefined;
}

function exportDeclaration(ctx: FileContext, declaration: ExportDeclaration): void {
  const literal = declaration.getModuleSpecifier();
  if (!literal) return;
  const pkg = modulePackage(ctx, literal);
  if (!pkg) return;
  const bindings: NamedBinding[] = declaration.getNamedExports().map((specifier) => ({
    node: specifier,
    imported: specifier.getName(),
    local: undefined,
    kind: "export",
    typeOnly: declaration.isTypeOnly() || specifier.isTypeOnly(),
    fate: fateOf(pkg, specifier.getName()),
  }));
  const module = pkg === "core" ? coreModule(bindings) : PACKAGE_MAP[pkg];
  if (!module || (pkg === "core" && bindings.some((b) => b.fate.kind === "api-type"))) {
    ctx.leave(literal, "packages", coreNote());
    return;
  }
  setModule(ctx, literal, module);
  if (!declaration.hasNamedExports()) {
    ctx.review(declaration, "packages", {
      message: "re-exports the v6 names now (Svc instead of Langfuse in class and type names)",
      section: SECTIONS.packages,
    });
  }
  for (const binding of bindings) rewriteBinding(ctx, binding);
}

/** `require("@langfuse/x")`, `import("@langfuse/x")` and the module names given to mocks. */
function moduleCall(ctx: FileContext, call: CallExpression): void {
  const [literal] = call.getArguments();
  if (!literal || !Node.isStringLiteral(literal) || !v5PackageOf(literal.getLiteralValue())) return;
  const callee = call.getExpression();
  const isRequire =
    (Node.isIdentifier(callee) && callee.getText() === "require") || MODULE_OBJECT_CALLS.has(callee.getText());
  const isImport = callee.getKind() === SyntaxKind.ImportKeyword;
  if (!isRequire && !isImport && !MODULE_NAME_CALLS.has(callee.getText())) return;
  const pkg = modulePackage(ctx, literal);
  if (!pkg) return;
  if (!isRequire && !isImport) {
    moduleNameOnly(ctx, pkg, literal);
    if (MOCK_FACTORY_CALLS.has(callee.getText()) && pkg !== "core") rewriteMockFactory(ctx, pkg, call);
    return;
  }
  const mock = call.getParent();
  if (isImport && Node.isCallExpression(mock) && mock.getArguments()[0] === call && pkg !== "core") {
    // `vi.mock(import("@langfuse/client"), factory)`
    if (MOCK_FACTORY_CALLS.has(mock.getExpression().getText())) {
      moduleNameOnly(ctx, pkg, literal);
      rewriteMockFactory(ctx, pkg, mock);
      return;
    }
  }
  // The module object: `require(...)`, `await import(...)`, possibly in parentheses.
  let object: Node = call;
  while (Node.isAwaitExpression(object.getParent()) || Node.isParenthesizedExpression(object.getParent())) {
    object = object.getParentOrThrow();
  }
  const parent = object.getParent();
  if (Node.isVariableDeclaration(parent) && parent.getInitializer() === object) {
    const name = parent.getNameNode();
    if (Node.isIdentifier(name)) {
      moduleObject(ctx, pkg, literal, name);
      return;
    }
    if (Node.isObjectBindingPattern(name)) {
      requireBindings(ctx, pkg, literal, name);
      return;
    }
  }
  if (Node.isPropertyAccessExpression(parent) && parent.getExpression() === object) {
    const fate = fateOf(pkg, parent.getName());
    if (!moduleNameFor(ctx, pkg, literal, [fate])) return;
    memberAccess(ctx, parent.getNameNode(), fate);
    return;
  }
  moduleNameOnly(ctx, pkg, literal);
}

/** Only the module name changes (`jest.mock("@langfuse/client")`); @langfuse/core has no single replacement. */
function moduleNameOnly(ctx: FileContext, pkg: V5Package, literal: StringLiteral): void {
  if (pkg === "core") ctx.leave(literal, "packages", coreNote());
  else setModule(ctx, literal, PACKAGE_MAP[pkg]);
}

/** Sets the module name for the given fates; false (and marked) when @langfuse/core names go to several packages. */
function moduleNameFor(ctx: FileContext, pkg: V5Package, literal: StringLiteral, fates: ExportFate[]): boolean {
  if (pkg !== "core") {
    setModule(ctx, literal, PACKAGE_MAP[pkg]);
    return true;
  }
  const module = coreModule(fates.map((fate) => ({ fate })));
  if (!module) {
    ctx.leave(literal, "packages", coreNote());
    return false;
  }
  setModule(ctx, literal, module);
  return true;
}

function requireBindings(ctx: FileContext, pkg: V5Package, literal: StringLiteral, pattern: Node): void {
  if (!Node.isObjectBindingPattern(pattern)) return;
  const bindings: NamedBinding[] = [];
  for (const element of pattern.getElements()) {
    const property = element.getPropertyNameNode();
    const name = element.getNameNode();
    if (element.getDotDotDotToken() || !Node.isIdentifier(name) || (property && !Node.isIdentifier(property))) continue;
    const imported = (property ?? name).getText();
    bindings.push({
      node: element,
      imported,
      local: name,
      kind: "require",
      typeOnly: false,
      fate: fateOf(pkg, imported),
    });
  }
  const fates = bindings.map((binding) => binding.fate);
  if (moduleNameFor(ctx, pkg, literal, fates)) for (const binding of bindings) rewriteBinding(ctx, binding);
}

/** A namespace, default, `import x = require()` or `const x = require()` binding: rewrites `x.Name` uses. */
function moduleObject(ctx: FileContext, pkg: V5Package, literal: StringLiteral, name: Node): void {
  const members: { name: Node; fate: ExportFate }[] = [];
  for (const reference of references(ctx, name)) {
    const parent = reference.getParent();
    const member =
      Node.isPropertyAccessExpression(parent) && parent.getExpression() === reference
        ? parent.getNameNode()
        : Node.isQualifiedName(parent) && parent.getLeft() === reference
          ? parent.getRight()
          : undefined;
    if (member) members.push({ name: member, fate: fateOf(pkg, member.getText()) });
  }
  const fates = members.map((member) => member.fate);
  if (moduleNameFor(ctx, pkg, literal, fates))
    for (const member of members) memberAccess(ctx, member.name, member.fate);
}

/** `x.LangfuseClient` on a module object -> `x.SvcClient`. */
function memberAccess(ctx: FileContext, name: Node, fate: ExportFate): void {
  if (fate.kind === "removed") {
    ctx.leave(name, "exports", fate.note);
    return;
  }
  const newName = fate.kind === "api-type" ? `SvcAPI.${fate.name}` : fate.name;
  if (fate.kind === "api-type" && !isTypePosition(name)) {
    ctx.leave(name, "exports", typeOnlyNote(name.getText()));
    return;
  }
  if (newName !== name.getText()) {
    ctx.replaceNode(name, newName);
    ctx.changed("exports");
  }
  if (fate.kind === "export" && fate.review && !isTypePosition(name))
    ctx.review(name, reviewRule(fate.review), fate.review);
}

/** `import("@langfuse/client").LangfuseClient` in a type or a JSDoc comment. */
function importType(ctx: FileContext, node: ImportTypeNode): void {
  const argument = node.getArgument();
  const literal = Node.isLiteralTypeNode(argument) ? argument.getLiteral() : undefined;
  if (!literal || !Node.isStringLiteral(literal) || !v5PackageOf(literal.getLiteralValue())) return;
  const pkg = modulePackage(ctx, literal);
  if (!pkg) return;
  const qualifier = node.getQualifier();
  const first = qualifier && (Node.isQualifiedName(qualifier) ? leftmost(qualifier) : qualifier);
  const fate = first && fateOf(pkg, first.getText());
  if (!moduleNameFor(ctx, pkg, literal, fate ? [fate] : [])) return;
  if (first && fate) memberAccess(ctx, first, fate);
}

function leftmost(name: Node): Node {
  let current = name;
  while (Node.isQualifiedName(current)) current = current.getLeft();
  return current;
}

/** The one v6 package all these @langfuse/core names go to, if there is one (removed names go nowhere). */
function coreModule(bindings: { fate: ExportFate }[]): string | undefined {
  const modules = new Set<string>();
  for (const { fate } of bindings) {
    if (fate.kind === "export") modules.add(fate.module);
    if (fate.kind === "api-type") modules.add("@svc/client");
  }
  return modules.size === 1 && bindings.every((b) => b.fate.kind !== "removed") ? [...modules][0] : undefined;
}

function coreNote(): Note {
  return {
    message:
      "the names imported from @langfuse/core moved to different v6 packages (or have none): import them one by one",
    section: SECTIONS.packages,
  };
}

/** Whether a @langfuse/core import cannot keep its shape: names for several packages, REST API types, removed names. */
function needsSplit(bindings: NamedBinding[]): boolean {
  return coreModule(bindings) === undefined || bindings.some((b) => b.fate.kind === "api-type");
}

/**
 * Replaces a @langfuse/core import by one import per v6 package (REST API types through `SvcAPI`), keeping the names
 * without a v6 export in an import from @langfuse/core, marked.
 */
function splitCoreImport(ctx: FileContext, declaration: ImportDeclaration, bindings: NamedBinding[]): void {
  const groups = new Map<string, string[]>();
  const add = (module: string, specifier: string) => {
    const list = groups.get(module) ?? [];
    if (!list.includes(specifier)) list.push(specifier);
    groups.set(module, list);
  };
  const typeOnlyDeclaration = declaration.isTypeOnly();
  const typeMark = (binding: NamedBinding) => (binding.typeOnly && !typeOnlyDeclaration ? "type " : "");
  for (const binding of bindings) {
    const local = binding.local?.getText() ?? binding.imported;
    const { fate } = binding;
    if (fate.kind === "removed") {
      add("@langfuse/core", binding.node.getText());
      ctx.leave(binding.node, "exports", fate.note);
      for (const reference of valueReferences(ctx, binding)) ctx.leave(reference, "exports", fate.note);
    } else if (fate.kind === "api-type") {
      if (/\.[cm]?jsx?$/.test(ctx.sourceFile.getFilePath()) || valueReferences(ctx, binding).length > 0) {
        add("@langfuse/core", binding.node.getText());
        ctx.leave(binding.node, "exports", typeOnlyNote(binding.imported));
        continue;
      }
      add("@svc/client", typeOnlyDeclaration ? "SvcAPI" : "type SvcAPI");
      for (const reference of references(ctx, binding.local))
        renameReference(ctx, reference, `SvcAPI.${fate.name}`, local);
      ctx.changed("exports");
    } else {
      const chosen = binding.local && local === binding.imported ? chooseLocal(ctx, binding, fate.name) : local;
      // Undefined: the v6 name is imported already, by another import of this file.
      const newLocal = chosen ?? fate.name;
      if (chosen !== undefined) {
        add(fate.module, `${typeMark(binding)}${fate.name}${newLocal === fate.name ? "" : ` as ${newLocal}`}`);
      }
      if (newLocal !== local) {
        for (const reference of references(ctx, binding.local)) renameReference(ctx, reference, newLocal, local);
      }
      if (fate.name !== binding.imported) ctx.changed("exports");
      markUses(ctx, binding, fate);
    }
  }
  const quote = declaration.getModuleSpecifier().getText()[0] ?? '"';
  const semicolon = declaration.getText().endsWith(";") ? ";" : "";
  const indent = ctx.sourceFile
    .getFullText()
    .slice(ctx.sourceFile.getFullText().lastIndexOf("\n", declaration.getStart() - 1) + 1, declaration.getStart());
  const text = [...groups]
    .sort(([a], [b]) => Number(a === "@langfuse/core") - Number(b === "@langfuse/core"))
    .map(([module, specifiers]) => {
      // A group of types only is a type import (`import type { SvcAPI }`), as linters ask.
      const allTypes = typeOnlyDeclaration || specifiers.every((specifier) => specifier.startsWith("type "));
      const names = specifiers.map((specifier) => (allTypes ? specifier.replace(/^type /, "") : specifier));
      return `import ${allTypes ? "type " : ""}{ ${names.join(", ")} } from ${quote}${module}${quote}${semicolon}`;
    })
    .join(`${ctx.newline}${indent}`);
  ctx.replaceNode(declaration, text);
  const moved = [...groups.keys()].filter((module) => module !== "@langfuse/core").length;
  if (moved > 0) ctx.changed("packages", moved);
}
