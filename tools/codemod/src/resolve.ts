import {
  type CallExpression,
  type Symbol as MorphSymbol,
  Node,
  type PropertyAccessExpression,
  type SourceFile,
} from "ts-morph";
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

/**
 * Where the object an expression names was made, when the checker has no type for it: `"v5"` for a value built from
 * (or typed as) an import of a @langfuse package, `"v6"` for one of an @svc package, `"unknown"` otherwise. Follows
 * variables and imports of local modules, which resolve even when the SDK packages do not.
 */
export function originOf(expression: Node): "v5" | "v6" | "unknown" {
  let current: Node = expression;
  while (Node.isPropertyAccessExpression(current) || Node.isNonNullExpression(current))
    current = current.getExpression();
  if (!Node.isIdentifier(current)) return "unknown";
  let symbol = current.getSymbol();
  for (let hops = 0; symbol && hops < 8; hops++) {
    const declaration = symbol.getDeclarations()[0];
    if (!declaration) return "unknown";
    const module = importedFrom(declaration);
    if (module !== undefined) {
      if (module.startsWith("@langfuse/")) return "v5";
      if (module.startsWith("@svc/")) return "v6";
      const target = symbol.isAlias() ? symbol.getAliasedSymbol() : undefined;
      if (!target || target === symbol) return "unknown";
      symbol = target;
      continue;
    }
    const source = madeFrom(declaration);
    if (!source) return "unknown";
    symbol = source.getSymbol();
  }
  return "unknown";
}

/** The module an import or require binding comes from. */
function importedFrom(declaration: Node): string | undefined {
  const statement = declaration.getFirstAncestor((a) => Node.isImportDeclaration(a) || Node.isVariableDeclaration(a));
  if (Node.isImportDeclaration(statement)) return statement.getModuleSpecifierValue();
  if (Node.isVariableDeclaration(statement) && (Node.isBindingElement(declaration) || declaration === statement)) {
    const initializer = statement.getInitializer();
    if (Node.isCallExpression(initializer) && initializer.getExpression().getText() === "require") {
      const [name] = initializer.getArguments();
      if (name && Node.isStringLiteral(name)) return name.getLiteralValue();
    }
  }
  return undefined;
}

/** The class a variable or parameter was built from (`new X()`) or is typed as (`: X`). */
function madeFrom(declaration: Node): Node | undefined {
  if (!Node.isVariableDeclaration(declaration) && !Node.isParameterDeclaration(declaration)) return undefined;
  const type = declaration.getTypeNode();
  if (type && Node.isTypeReference(type)) return type.getTypeName();
  const initializer = declaration.getInitializer();
  return Node.isNewExpression(initializer) ? initializer.getExpression() : undefined;
}

/** A call of a method named `name` (`x.name(...)`), with what the checker knows about the method. */
export interface MemberCall {
  call: CallExpression;
  callee: PropertyAccessExpression;
  declaration: V5Declaration | "unknown";
}

/** The calls of methods named `name` in a file that may be v5 calls: those declared elsewhere are left out. */
export function memberCalls(sourceFile: SourceFile, name: string): MemberCall[] {
  const calls: MemberCall[] = [];
  sourceFile.forEachDescendant((node) => {
    if (!Node.isCallExpression(node)) return;
    const callee = node.getExpression();
    if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== name) return;
    const declaration = declarationOf(callee.getNameNode());
    if (declaration !== "other") calls.push({ call: node, callee, declaration });
  });
  return calls;
}
