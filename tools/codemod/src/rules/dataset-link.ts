import { Node } from "ts-morph";
import type { FileContext } from "../context.ts";
import { declarationOf, isUntyped } from "../resolve.ts";
import { SECTIONS } from "../tables/sections.ts";

/**
 * Marks `item.link(span, runName)` on dataset items: v6 items have no `link()`, and the loop around it becomes a
 * `dataset.runExperiment({ name, task, evaluators })`, which the codemod does not write for the user.
 */
export function markDatasetLinks(ctx: FileContext): void {
  ctx.sourceFile.forEachDescendant((node) => {
    if (!Node.isCallExpression(node)) return;
    const callee = node.getExpression();
    if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== "link") return;
    const declaration = declarationOf(callee.getNameNode());
    if (declaration === "other") return;
    const byName = declaration === "unknown";
    if (
      byName &&
      !(ctx.referencesV5 && isUntyped(callee.getExpression()) && [2, 3].includes(node.getArguments().length))
    ) {
      return;
    }
    if (!byName && (declaration.pkg !== "client" || declaration.owner !== "FetchedDataset")) return;
    ctx.leave(callee.getNameNode(), "dataset-link", {
      message:
        "dataset items have no link() in v6: run the items with dataset.runExperiment({ name, task, evaluators })",
      section: SECTIONS.datasetRuns,
    });
  });
}
