// Once, before the first request: creates the prompt the scenario reads. Keys and address from the environment.
import { SvcClient } from "@svc/client";

const svc = new SvcClient();
const prompt = await svc.prompt.create({
  name: "runtime-greeting",
  type: "text",
  prompt: "Hi {{name}}",
  labels: ["production"],
});
await svc.shutdown();
console.log(JSON.stringify({ created: prompt.name, version: prompt.version }));
