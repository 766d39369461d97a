import type { FileContext } from "../context.ts";
import { isUntyped, memberCalls } from "../resolve.ts";
import { SECTIONS } from "../tables/sections.ts";

/**
 * Marks `item.link(span, runName)` on dataset items: v6 items have no `link()`, and the loop around it becomes a
 * `dataset.runExperiment({ name, task, evaluators })`, which the codemod does not write for the user.
 */
export function markDatasetLinks(ctx: FileContext): void {
  for (const { call, callee, declaration } of memberCalls(ctx.sourceFile, "link")) {
    const isLink =
      declaration === "unknown"
        ? ctx.referencesV5 && isUntyped(callee.getExpression()) && [2, 3].includes(call.getArguments().length)
        : declaration.pkg === "client" && declaration.owner === "FetchedDataset";
    if (!isLink) continue;
    ctx.leave(callee.getNameNode(), "dataset-link", {
      message:
        "dataset items have no link() in v6: run the items with dataset.runExperiment({ name, task, evaluators })",
      section: SECTIONS.datasetRuns,
    });
  }
}
