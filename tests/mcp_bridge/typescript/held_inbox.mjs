// The MCP TypeScript SDK's client at its defaults: connect to the URL in argv[2] with the bearer token in
// PARLEY_TOKEN, say "connected", call `inbox` with the arguments in argv[3] (JSON), and print the seconds
// the call took and its result as one line of JSON.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.PARLEY_TOKEN}` } },
});
const client = new Client({ name: "parley-held-call-check", version: "1.0.0" });
await client.connect(transport);
console.log("connected");
const started = Date.now();
const result = await client.callTool({ name: "inbox", arguments: JSON.parse(process.argv[3]) });
console.log(JSON.stringify({ seconds: (Date.now() - started) / 1000, result }));
await client.close();
