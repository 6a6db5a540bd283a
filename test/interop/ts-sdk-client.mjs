// A real MCP client for `wirecheck run --protocol mcp --role client`: the
// TypeScript SDK's Client over its StdioClientTransport (the SDK the
// official conformance suite installs in official/node_modules), as an
// application would use it. Run with Node >= 22:
//   node ts-sdk-client.mjs SERVER-CMD [ARGS…]
//   node ts-sdk-client.mjs URL   (Streamable HTTP; TRANSPORT=sse: the
//                                 legacy HTTP+SSE transport)
// It declares sampling, roots and elicitation (CAPS=bare: none) and
// answers them, lists and calls tools (one with a progress callback, one
// whose result is an error, one it cancels), reads a resource and gets a
// prompt where the server declared them, and closes; with LINGER=1 it
// stays connected until the server ends the session instead, as an
// interactive client does (what `wirecheck fuzz --role client` needs).
// With AUTH=1 it authorizes over HTTP through the SDK's OAuth client (an
// OAuthClientProvider that follows the authorization endpoint's redirect
// itself, no browser): pre-registered when MCP_CLIENT_ID and
// MCP_CLIENT_SECRET are set, by a Client ID Metadata Document it serves
// over https on loopback when CIMD_CERT and CIMD_KEY (PEM files) are, else
// by dynamic registration (application_type "native" unless
// APP_TYPE=none).
import { Client } from "./official/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js";
import { StdioClientTransport } from "./official/node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js";
import { StreamableHTTPClientTransport } from "./official/node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js";
import { SSEClientTransport } from "./official/node_modules/@modelcontextprotocol/sdk/dist/esm/client/sse.js";
import { UnauthorizedError } from "./official/node_modules/@modelcontextprotocol/sdk/dist/esm/client/auth.js";
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { createServer } from "node:https";
import { CreateMessageRequestSchema, ListRootsRequestSchema, ElicitRequestSchema } from "./official/node_modules/@modelcontextprotocol/sdk/dist/esm/types.js";

const [cmd, ...args] = process.argv.slice(2);
const bare = process.env.CAPS === "bare";
const client = new Client({ name: "ts-sdk-client", version: "1.0.0" },
  { capabilities: bare ? {} : { sampling: {}, roots: { listChanged: true }, elicitation: {} } });
if (!bare) {
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: "assistant", content: { type: "text", text: "hi" }, model: "m", stopReason: "endTurn" }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///tmp", name: "tmp" }] }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" }));
}
const overHTTP = /^https?:\/\//.test(cmd);
const oauth = process.env.AUTH === "1" && overHTTP ? await provider() : undefined;
const open = () => !overHTTP ? new StdioClientTransport({ command: cmd, args })
  : process.env.TRANSPORT === "sse" ? new SSEClientTransport(new URL(cmd))
  : new StreamableHTTPClientTransport(new URL(cmd), oauth ? { authProvider: oauth } : undefined);
let transport = open();
// A request refused for want of authorization is sent again once the
// code the provider fetched is exchanged, as an application does after
// its user came back from the browser.
const authed = (fn) => fn().catch(async (e) => {
  if (!oauth || !(e instanceof UnauthorizedError) || !oauth.code) throw e;
  await oauth.finish(transport);
  return fn();
});
// Refused while connecting (the notifications/initialized the server
// answers 401), the client connects again once authorized: Client.connect
// closes on an error.
try {
  await client.connect(transport);
} catch (e) {
  if (!oauth || !(e instanceof UnauthorizedError) || !oauth.code) throw e;
  await oauth.finish(transport);
  transport = open();
  await client.connect(transport);
}
await authed(() => client.listTools());
await authed(() => client.callTool({ name: "echo", arguments: { text: "x" } }, undefined, { onprogress: () => {} }));
await authed(() => client.callTool({ name: "fail", arguments: {} }));
// Only what the server declared (lifecycle#operation: "Only use
// capabilities that were successfully negotiated"; the SDK leaves that to
// the application unless enforceStrictCapabilities is set).
const server = client.getServerCapabilities() ?? {};
if (server.resources) {
  await authed(() => client.listResources());
  await authed(() => client.readResource({ uri: "file:///wirecheck/readme.txt" }));
}
if (server.prompts) {
  await authed(() => client.listPrompts());
  await authed(() => client.getPrompt({ name: "greet" }));
}
const ac = new AbortController();
const call = client.callTool({ name: "echo", arguments: { text: "y" } }, undefined, { signal: ac.signal });
ac.abort("cancelled on purpose");
await call.catch(() => {});
if (process.env.LINGER === "1") {
  await new Promise((resolve) => { client.onclose = resolve; });
}
// A Streamable HTTP session the client no longer needs is ended with
// DELETE (the SDK's close alone does not).
if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession();
await client.close();

// provider is the OAuthClientProvider of AUTH=1 (see the top).
async function provider() {
  const redirect = "http://127.0.0.1:9/callback";
  const store = { clients: {}, verifiers: {} };
  let metadataUrl;
  if (process.env.CIMD_CERT && process.env.CIMD_KEY) {
    const srv = createServer({ cert: readFileSync(process.env.CIMD_CERT), key: readFileSync(process.env.CIMD_KEY) }, (req, res) => {
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ client_id: metadataUrl, client_name: "ts-sdk-client", redirect_uris: [redirect],
        grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "none" }));
    });
    await new Promise((resolve) => srv.listen(0, "127.0.0.1", resolve));
    srv.unref();
    metadataUrl = `https://127.0.0.1:${srv.address().port}/client.json`;
  }
  const pre = process.env.MCP_CLIENT_ID ? { client_id: process.env.MCP_CLIENT_ID, client_secret: process.env.MCP_CLIENT_SECRET } : undefined;
  const meta = { client_name: "ts-sdk-client", redirect_uris: [redirect], grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"], token_endpoint_auth_method: "none" };
  if (process.env.APP_TYPE !== "none") meta.application_type = "native";
  const p = {
    code: undefined,
    get redirectUrl() { return redirect; },
    get clientMetadata() { return meta; },
    clientMetadataUrl: metadataUrl,
    clientInformation: () => store.pin?.client ?? store.client ?? pre,
    saveClientInformation: (c) => { store.client = c; store.clients[c.client_id] = c; },
    tokens: () => store.tokens,
    saveTokens: (t) => { store.tokens = t; },
    saveCodeVerifier: (v) => { store.verifier = v; store.verifiers[createHash("sha256").update(v).digest("base64url")] = v; },
    codeVerifier: () => store.pin?.verifier ?? store.verifier,
    // No browser: the authorization server approves at once, and its
    // redirect carries the code. Two requests refused at once (a POST
    // and the GET stream) start two flows: the code is kept with the
    // client and verifier of its own authorization request.
    redirectToAuthorization: async (url) => {
      const r = await fetch(url, { redirect: "manual" });
      const loc = r.headers.get("location");
      const code = loc ? new URL(loc).searchParams.get("code") ?? undefined : undefined;
      if (!code) return;
      p.code = code;
      p.grant = { client: store.clients[url.searchParams.get("client_id")] ?? pre, verifier: store.verifiers[url.searchParams.get("code_challenge")] };
    },
    // finish exchanges the last code with the client and verifier of its
    // own request, whatever another flow saved meanwhile.
    finish: async (transport) => {
      const code = p.code;
      p.code = undefined;
      store.pin = p.grant;
      try {
        await transport.finishAuth(code);
      } finally {
        store.pin = undefined;
      }
    },
  };
  return p;
}
