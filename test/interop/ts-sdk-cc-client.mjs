// A real MCP client of the client-credentials extension for `wirecheck run
// --protocol mcp --role client --transport http --param
// extension=client-credentials`: the TypeScript SDK's Client with the
// SDK's own providers of the extension (the SDK the official conformance
// suite installs in official/node_modules). Run with Node >= 22:
//   CLIENT_ID=… CLIENT_KEY=<PEM> node ts-sdk-cc-client.mjs URL   (private_key_jwt, ES256)
//   CLIENT_ID=… CLIENT_SECRET=… node ts-sdk-cc-client.mjs URL   (its secret)
// It connects, lists tools, calls echo and closes its session.
import { Client } from "./official/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js";
import { StreamableHTTPClientTransport } from "./official/node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js";
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from "./official/node_modules/@modelcontextprotocol/sdk/dist/esm/client/auth-extensions.js";

const url = process.argv[2];
const env = process.env;
const authProvider = env.CLIENT_KEY
  ? new PrivateKeyJwtProvider({ clientId: env.CLIENT_ID, privateKey: env.CLIENT_KEY, algorithm: "ES256" })
  : new ClientCredentialsProvider({ clientId: env.CLIENT_ID, clientSecret: env.CLIENT_SECRET });
const client = new Client({ name: "ts-sdk-cc-client", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider });
await client.connect(transport);
await client.listTools();
await client.callTool({ name: "echo", arguments: { text: "x" } });
await transport.terminateSession();
await client.close();
