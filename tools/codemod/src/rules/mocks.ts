import { type CallExpression, Node, type ObjectLiteralExpression } from "ts-morph";
import type { FileContext } from "../context.ts";
import { fateOf, type Note, type V5Package } from "../tables/exports.ts";
import { SECTIONS } from "../tables/sections.ts";

/** Test-tool calls whose second argument is a factory that returns the mocked module. */
export const MOCK_FACTORY_CALLS = new Set(["jest.mock", "jest.doMock", "vi.mock", "vi.doMock"]);

const OPAQUE: Note = {
  message:
    "the mock's factory does not return an object literal: rename the v5 export names it returns (LangfuseClient -> SvcClient, ...) by hand",
  section: SECTIONS.mocks,
};

/**
 * `vi.mock("@langfuse/client", () => ({ LangfuseClient: vi.fn() }))`: renames the export names of the object the
 * factory returns to their v6 names, as the code under test imports them now; marks names v6 does not export and
 * factories whose result it cannot read. Spread members (`...actual`) are left as they are.
 */
export function rewriteMockFactory(ctx: FileContext, pkg: V5Package, call: CallExpression): void {
  const factory = call.getArguments()[1];
  if (!factory) return;
  if (!Node.isArrowFunction(factory) && !Node.isFunctionExpression(factory)) {
    ctx.leave(factory, "mocks", OPAQUE);
    return;
  }
  const results: Node[] = [];
  const body = factory.getBody();
  if (Node.isBlock(body)) {
    body.forEachDescendant((node, traversal) => {
      if (isNestedScope(node)) traversal.skip();
      else if (Node.isReturnStatement(node)) {
        const value = node.getExpression();
        if (value) results.push(value);
      }
    });
  } else {
    results.push(body);
  }
  for (const result of results) {
    const object = unwrap(result);
    if (object) renameMembers(ctx, pkg, object);
    else ctx.leave(result, "mocks", OPAQUE);
  }
}

/** A function or class inside the factory: its `return`s are not the factory's. */
function isNestedScope(node: Node): boolean {
  return (
    Node.isFunctionExpression(node) ||
    Node.isArrowFunction(node) ||
    Node.isFunctionDeclaration(node) ||
    Node.isMethodDeclaration(node) ||
    Node.isGetAccessorDeclaration(node) ||
    Node.isSetAccessorDeclaration(node) ||
    Node.isClassDeclaration(node) ||
    Node.isClassExpression(node)
  );
}

/** The object literal an expression is, through parentheses, `as` casts and `await`. */
function unwrap(node: Node): ObjectLiteralExpression | undefined {
  let current = node;
  while (
    Node.isParenthesizedExpression(current) ||
    Node.isAsExpression(current) ||
    Node.isSatisfiesExpression(current) ||
    Node.isAwaitExpression(current)
  ) {
    current = current.getExpression();
  }
  return Node.isObjectLiteralExpression(current) ? current : undefined;
}

function renameMembers(ctx: FileContext, pkg: V5Package, object: ObjectLiteralExpression): void {
  for (const member of object.getProperties()) {
    if (Node.isSpreadAssignment(member)) continue;
    const nameNode = member.getNameNode();
    if (Node.isComputedPropertyName(nameNode) || Node.isNumericLiteral(nameNode)) continue;
    const name = Node.isStringLiteral(nameNode) ? nameNode.getLiteralValue() : nameNode.getText();
    if (name === "default" || name === "__esModule") continue;
    const fate = fateOf(pkg, name);
    if (fate.kind === "removed") {
      ctx.leave(member, "mocks", {
        message: `mocks ${name}, which v6 does not export: ${fate.note.message}`,
        section: fate.note.section,
        link: fate.note.link,
      });
      continue;
    }
    const newName = fate.kind === "api-type" ? undefined : fate.name;
    if (newName === undefined || newName === name) continue;
    if (Node.isShorthandPropertyAssignment(member)) ctx.replaceNode(nameNode, `${newName}: ${name}`);
    else if (Node.isStringLiteral(nameNode))
      ctx.replaceNode(nameNode, `${nameNode.getText()[0]}${newName}${nameNode.getText()[0]}`);
    else ctx.replaceNode(nameNode, newName);
    ctx.changed("mocks");
  }
}
