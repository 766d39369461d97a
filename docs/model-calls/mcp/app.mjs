import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

// A server and a client in one process; with stdio or HTTP the client and the server side are traced the same way.
const server = new McpServer({ name: "weather", version: "1.0.0" });
server.registerTool("weather", { description: "The weather in a city", inputSchema: {} }, async () => ({
  content: [{ type: "text", text: "sunny" }],
}));
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = new Client({ name: "app", version: "1.0.0" });
await client.connect(clientSide);

await client.callTool({ name: "weather", arguments: { city: "Paris" } });
await client.close();
await server.close();
