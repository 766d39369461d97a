// Runs the whole vitest suite and ends with one plain summary line: "tests: N passed, N failed".
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const outDir = join(import.meta.dirname, "..", ".tmp");
mkdirSync(outDir, { recursive: true });
const resultFile = join(outDir, "vitest-results.json");

const run = spawnSync(
  "vitest",
  ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${resultFile}`, ...process.argv.slice(2)],
  { stdio: "inherit", shell: false },
);

let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const report = JSON.parse(readFileSync(resultFile, "utf8")) as {
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    numTodoTests: number;
  };
  passed = report.numPassedTests;
  failed = report.numFailedTests;
  skipped = report.numPendingTests + report.numTodoTests;
} catch {
  failed = Math.max(failed, 1);
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(run.status === 0 && failed === 0 && passed > 0 ? 0 : 1);
