import { type Symbol as MorphSymbol, Node } from "ts-morph";
import { type V5Package, v5PackageOf } from "./tables/exports.ts";

/** Where a v5 member is declared: its package and the class, interface or type that declares it. */
export interface V5Declaration {
  pkg: V5Package;
  owner: string | undefined;
}

const V5_FILE = /[\\/]node_modules[\\/]@langfuse[\\/]([^\\/]+)[\\/]/;

/**
 * What the type checker knows about the member or binding named by `name`: a v5 declaration, `"other"` when it is
 * declared elsewhere (the user's own code, another library), or `"unknown"` when the checker cannot tell (no symbol,
 * for example because the v5 packages are not installed).
 */
export function declarationOf(name: Node): V5Declaration | "other" | "unknown" {
  const symbol = name.getSymbol();
  if (!symbol) return "unknown";
  const target = symbol.isAlias() ? (symbol.getAliasedSymbol() ?? symbol) : symbol;
  const declarations = target.getDeclarations();
  if (declarations.length === 0) return "unknown";
  for (const declaration of declarations) {
    const match = V5_FILE.exec(declaration.getSourceFile().getFilePath());
    const pkg = match ? v5PackageOf(`@langfuse/${match[1]}`) : undefined;
    if (pkg && pkg !== "other") return { pkg, owner: ownerName(declaration) };
  }
  return "other";
}

/** The name of the class, interface or type alias a declaration belongs to, without a bundler's `$1` suffix. */
function ownerName(declaration: Node): string | undefined {
  const owner = declaration.getFirstAncestor(
    (node) => Node.isClassDeclaration(node) || Node.isInterfaceDeclaration(node) || Node.isTypeAliasDeclaration(node),
  );
  const name = owner && (Node.isClassDeclaration(owner) ? owner.getName() : (owner as { getName(): string }).getName());
  return name?.replace(/\$\d+$/, "");
}

/** Whether the checker has no type for `node` (any, or an error type: the receiver of a call it cannot follow). */
export function isUntyped(node: Node): boolean {
  return node.getType().isAny();
}

/** The symbol a reference names: for `{ x }` shorthand properties, the value `x`, not the property. */
export function referencedSymbol(identifier: Node): MorphSymbol | undefined {
  const parent = identifier.getParent();
  if (parent && Node.isShorthandPropertyAssignment(parent) && parent.getNameNode() === identifier) {
    return parent.getValueSymbol();
  }
  return identifier.getSymbol();
}
