import { type Identifier, Node, SyntaxKind, ts } from "ts-morph";
import type { FileContext } from "../context.ts";
import { referencedSymbol } from "../resolve.ts";
import { type ExportFate, fateOf, type Note, v5PackageOf } from "../tables/exports.ts";
import { SECTIONS } from "../tables/sections.ts";

// One imported name at a time: renamed with every reference to it in the file, or marked when v6 has no such export.
// The declarations that hold the names are rewritten by imports.ts.

/** One imported name: `{ A as L }`, `{ A: L } = require()`, or `export { A as E } from`. */
export interface NamedBinding {
  node: Node;
  imported: string;
  /** The local identifier (absent for re-exports). */
  local: Identifier | undefined;
  kind: "import" | "require" | "export";
  typeOnly: boolean;
  fate: ExportFate;
}

/** Renames one imported name and its references, or marks it when v6 has no such export. */
export function rewriteBinding(ctx: FileContext, binding: NamedBinding): void {
  const { fate } = binding;
  if (fate.kind === "removed") {
    ctx.leave(binding.node, "exports", fate.note);
    for (const reference of valueReferences(ctx, binding)) ctx.leave(reference, "exports", fate.note);
    return;
  }
  if (fate.kind === "api-type") {
    // Only reached for module objects and re-exports, which moduleObject and exportDeclaration handle or mark.
    ctx.leave(binding.node, "exports", typeOnlyNote(binding.imported));
    return;
  }
  if (fate.name !== binding.imported) renameBinding(ctx, binding, fate.name);
  if (fate.name === "SvcMedia") {
    for (const reference of valueReferences(ctx, binding)) dropMediaSource(ctx, reference);
  }
  markUses(ctx, binding, fate);
}

/** `new LangfuseMedia({ source: "bytes", ... })`: SvcMedia tells the kinds apart by their fields, without `source`. */
function dropMediaSource(ctx: FileContext, reference: Identifier): void {
  const construction = reference.getParent();
  if (!Node.isNewExpression(construction) || construction.getExpression() !== reference) return;
  const [params] = construction.getArguments();
  if (!params || !Node.isObjectLiteralExpression(params)) return;
  const source = params.getProperty("source");
  if (!source || !Node.isPropertyAssignment(source)) return;
  removeListElement(ctx, source);
  ctx.changed("exports");
}

/** Marks the value uses of a name that v6 exports as a type only, or whose replacement behaves differently. */
export function markUses(ctx: FileContext, binding: NamedBinding, fate: ExportFate & { kind: "export" }): void {
  if (!fate.typeOnly && !fate.review) return;
  for (const reference of valueReferences(ctx, binding)) {
    if (fate.typeOnly) ctx.leave(reference, "exports", typeOnlyNote(binding.imported));
    else if (fate.review) ctx.review(reference, reviewRule(fate.review), fate.review);
  }
}

/** Renamed functions whose behaviour changed are counted under their topic (setActiveTraceIO under trace-io). */
export function reviewRule(note: Note): "trace-io" | "exports" {
  return note.section === SECTIONS.traceIO ? "trace-io" : "exports";
}

export function typeOnlyNote(name: string): Note {
  return { message: `${name} is a type only in v6; this use has no v6 form`, section: SECTIONS.packages };
}

function renameBinding(ctx: FileContext, binding: NamedBinding, newName: string): void {
  const { node, local, imported } = binding;
  ctx.changed("exports");
  if (binding.kind === "export") {
    // Re-exported names keep the name the user's module exports.
    if (!Node.isExportSpecifier(node)) return;
    const exported = node.getAliasNode()?.getText() ?? imported;
    ctx.replaceNode(
      node,
      `${node.isTypeOnly() ? "type " : ""}${newName}${exported === newName ? "" : ` as ${exported}`}`,
    );
    return;
  }
  if (!local) return;
  const localName = local.getText();
  const aliased = localName !== imported;
  const newLocal = aliased ? localName : chooseLocal(ctx, binding, newName);
  if (newLocal === undefined) {
    // The name v6 uses is imported already (setActiveTraceIO next to updateActiveObservation): one import is enough.
    removeListElement(ctx, node);
    for (const reference of references(ctx, local)) renameReference(ctx, reference, newName, localName);
    return;
  }
  const typeMark = binding.kind === "import" && Node.isImportSpecifier(node) && node.isTypeOnly() ? "type " : "";
  const text =
    binding.kind === "import"
      ? `${typeMark}${newName}${newLocal === newName ? "" : ` as ${newLocal}`}`
      : newLocal === newName
        ? newName
        : `${newName}: ${newLocal}`;
  const start = binding.kind === "require" && Node.isBindingElement(node) ? node.getStart() : node.getStart();
  ctx.replace(start, node.getEnd(), withInitializer(node, text));
  if (newLocal !== localName) {
    for (const reference of references(ctx, local)) renameReference(ctx, reference, newLocal, localName);
  }
}

/** Keeps a default value of a destructured name: `{ A = x }`. */
function withInitializer(node: Node, text: string): string {
  if (!Node.isBindingElement(node)) return text;
  const initializer = node.getInitializer();
  return initializer ? `${text} = ${initializer.getText()}` : text;
}

/**
 * The local name a renamed import should get: the v6 name, unless it would clash with another name in scope (then
 * the old local name stays, as an alias). Undefined when the v6 name is bound already to the same v6 export.
 */
export function chooseLocal(ctx: FileContext, binding: NamedBinding, newName: string): string | undefined {
  const local = binding.local;
  if (!local || local.getText() === newName) return newName;
  const own = local.getSymbol()?.compilerSymbol;
  const checker = ctx.sourceFile.getProject().getTypeChecker().compilerObject;
  const meaning = ts.SymbolFlags.Value | ts.SymbolFlags.Type | ts.SymbolFlags.Namespace | ts.SymbolFlags.Alias;
  const places = [local, ...references(ctx, local)];
  for (const place of places) {
    const found = checker.resolveName(newName, place.compilerNode, meaning, false);
    if (!found || found === own) continue;
    if (place === local && isSameV6Export(found, binding, newName)) return undefined;
    return local.getText();
  }
  return newName;
}

/** Whether `symbol` is an import of the same v6 export (from the v5 or the v6 package). */
function isSameV6Export(symbol: ts.Symbol, binding: NamedBinding, newName: string): boolean {
  const declaration = symbol.declarations?.[0];
  if (!declaration || !ts.isImportSpecifier(declaration) || binding.fate.kind !== "export") return false;
  const module = declaration.parent.parent.parent.moduleSpecifier;
  if (!ts.isStringLiteral(module)) return false;
  const imported = (declaration.propertyName ?? declaration.name).text;
  const pkg = v5PackageOf(module.text);
  const target = pkg && pkg !== "other" ? fateOf(pkg, imported) : undefined;
  const sameModule =
    module.text === binding.fate.module || (target?.kind === "export" && target.module === binding.fate.module);
  const sameName = imported === newName || (target?.kind === "export" && target.name === newName);
  return sameModule && sameName && declaration.name.text === newName;
}

/** Identifiers in the file that refer to the binding `local` declares (its declaration excluded). */
export function references(ctx: FileContext, local: Node | undefined): Identifier[] {
  if (!local || !Node.isIdentifier(local)) return [];
  const symbol = local.getSymbol()?.compilerSymbol;
  if (!symbol) return [];
  const name = local.getText();
  const found: Identifier[] = [];
  for (const identifier of ctx.sourceFile.getDescendantsOfKind(SyntaxKind.Identifier)) {
    if (identifier === local || identifier.getText() !== name) continue;
    const parent = identifier.getParent();
    const target =
      Node.isExportSpecifier(parent) && !parent.getAliasNode() && parent.getNameNode() === identifier
        ? parent.getLocalTargetSymbol()
        : Node.isExportSpecifier(parent)
          ? undefined
          : referencedSymbol(identifier);
    if (target?.compilerSymbol === symbol) found.push(identifier);
  }
  return found;
}

export function valueReferences(ctx: FileContext, binding: NamedBinding): Identifier[] {
  return references(ctx, binding.local).filter((reference) => !isTypePosition(reference));
}

/** Whether a name is used as a type (in a type, an `implements` clause or a JSDoc type), not as a value. */
export function isTypePosition(node: Node): boolean {
  for (let current = node.getParent(); current; current = current.getParent()) {
    const kind = current.getKind();
    if (kind >= SyntaxKind.FirstJSDocNode && kind <= SyntaxKind.LastJSDocNode) return true;
    if (Node.isExpressionWithTypeArguments(current)) {
      const clause = current.getParent();
      if (!Node.isHeritageClause(clause)) return false;
      return clause.getToken() === SyntaxKind.ImplementsKeyword || Node.isInterfaceDeclaration(clause.getParent());
    }
    if (Node.isTypeNode(current)) return true;
    // `ns.Name` and `ns.Name.Member`: the outer node decides.
    if (!Node.isQualifiedName(current) && !Node.isPropertyAccessExpression(current)) return false;
  }
  return false;
}

/** Renames one reference to an import, keeping the names other modules see (shorthand properties, local exports). */
export function renameReference(ctx: FileContext, reference: Identifier, newName: string, oldName: string): void {
  const parent = reference.getParent();
  if (Node.isShorthandPropertyAssignment(parent)) ctx.replaceNode(reference, `${oldName}: ${newName}`);
  else if (Node.isExportSpecifier(parent)) ctx.replaceNode(reference, `${newName} as ${oldName}`);
  else ctx.replaceNode(reference, newName);
}

/** Removes one element of an import list or a destructuring pattern, with its comma; the whole statement if alone. */
function removeListElement(ctx: FileContext, node: Node): void {
  const parent = node.getParentOrThrow();
  const siblings = Node.isObjectLiteralExpression(parent)
    ? parent.getProperties()
    : parent.getChildrenOfKind(node.getKind());
  const index = siblings.indexOf(node);
  const next = siblings[index + 1];
  const previous = siblings[index - 1];
  if (next) ctx.replace(node.getStart(), next.getStart(), "");
  else if (previous) ctx.replace(previous.getEnd(), node.getEnd(), "");
  else {
    const statement = node.getFirstAncestor((a) => Node.isImportDeclaration(a) || Node.isVariableStatement(a));
    if (!statement) return;
    const text = ctx.sourceFile.getFullText();
    const after = text.startsWith(ctx.newline, statement.getEnd()) ? ctx.newline.length : 0;
    ctx.replace(statement.getStart(), statement.getEnd() + after, "");
  }
}
