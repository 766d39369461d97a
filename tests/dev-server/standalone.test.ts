import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";

/** The entry point `pnpm dev-server` runs, found through the package as the tests import it. */
const MAIN = join(dirname(createRequire(import.meta.url).resolve("@svc/dev-server/package.json")), "src", "main.ts");

/** Starts the dev server's `src/main.ts` with the arguments and resolves with its output once it printed the keys. */
function startStandalone(args: string[]): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  onTestFinished(() => {
    child.kill("SIGTERM");
  });
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`no start-up output within 15 s:\n${output}`)), 15_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("SVC_SECRET_KEY=")) {
        clearTimeout(timer);
        resolve({ child, output });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before start-up:\n${output}`));
    });
  });
}

describe("dev server: standalone", () => {
  it("prints its URL and keys and answers on loopback", async () => {
    const { output } = await startStandalone([
      "--port",
      "0",
      "--quiet",
      "--public-key",
      "pk-x",
      "--secret-key",
      "sk-x",
    ]);

    const url = /SVC_BASE_URL=(http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    const res = await fetch(`${url}/api/public/projects`, {
      headers: { authorization: `Basic ${Buffer.from("pk-x:sk-x").toString("base64")}` },
    });

    expect(output).toMatch(/SVC_PUBLIC_KEY=pk-x\n\s+SVC_SECRET_KEY=sk-x/);
    expect(res.status).toBe(200);
  });

  it("exits with status 2 and the usage on an invalid port", async () => {
    const child = spawn(process.execPath, [MAIN, "--port", "http"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });

    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));

    expect(code).toBe(2);
    expect(stderr).toMatch(/--port must be a port number, got "http"/);
  });
});
