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
// With OAUTH=1 (Streamable HTTP) it authorizes when answered 401 with the
// SDK's own OAuth flow (discovery, registration, PKCE), the provider below
// standing in for the browser: it follows the authorization endpoint's
// redirect and hands the code to finishAuth, then sends the request again.
import { Client } from "./official/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js";
import { StdioClientTransport } from "./official/node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js";
import { StreamableHTTPClientTransport } from "./official/node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js";
import { SSEClientTransport } from "./official/node_modules/@modelcontextprotocol/sdk/dist/esm/client/sse.js";
import { UnauthorizedError } from "./official/node_modules/@modelcontextprotocol/sdk/dist/esm/client/auth.js";
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
// The application's side of the SDK's OAuthClientProvider: what it keeps
// (client, tokens, verifier) and the browser's part (the redirect).
let pendingCode;
const redirectUrl = "http://127.0.0.1/callback";
const kept = {};
const authProvider = process.env.OAUTH !== "1" ? undefined : {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() {
    return { client_name: "ts-sdk-client", redirect_uris: [redirectUrl], grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"], token_endpoint_auth_method: "none" };
  },
  state: () => Math.random().toString(36).slice(2),
  clientInformation: () => kept.client,
  saveClientInformation: (c) => { kept.client = c; },
  tokens: () => kept.tokens,
  saveTokens: (t) => { kept.tokens = t; },
  saveCodeVerifier: (v) => { kept.verifier = v; },
  codeVerifier: () => kept.verifier,
  redirectToAuthorization: async (url) => {
    const resp = await fetch(url, { redirect: "manual" });
    const back = new URL(resp.headers.get("location") ?? "", url).searchParams;
    pendingCode = back.get("code") ?? undefined;
  },
};
const transport = !overHTTP ? new StdioClientTransport({ command: cmd, args })
  : process.env.TRANSPORT === "sse" ? new SSEClientTransport(new URL(cmd))
  : new StreamableHTTPClientTransport(new URL(cmd), { authProvider });
// A message the server answered 401 is sent again once authorized (the
// 401 may come on any message, notifications/initialized included).
if (authProvider) {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    try {
      return await send(message, options);
    } catch (e) {
      if (!(e instanceof UnauthorizedError) || pendingCode === undefined) throw e;
      const code = pendingCode;
      pendingCode = undefined;
      await transport.finishAuth(code);
      return await send(message, options);
    }
  };
}
await client.connect(transport);
await client.listTools();
await client.callTool({ name: "echo", arguments: { text: "x" } }, undefined, { onprogress: () => {} });
await client.callTool({ name: "fail", arguments: {} });
// Only what the server declared (lifecycle#operation: "Only use
// capabilities that were successfully negotiated"; the SDK leaves that to
// the application unless enforceStrictCapabilities is set).
const server = client.getServerCapabilities() ?? {};
if (server.resources) {
  await client.listResources();
  await client.readResource({ uri: "file:///wirecheck/readme.txt" });
}
if (server.prompts) {
  await client.listPrompts();
  await client.getPrompt({ name: "greet" });
}
// Not with OAUTH=1: the transport then awaits the provider's tokens
// before each POST, so the call's POST may still be on its way when the
// close below aborts it, and wirecheck sees a cancellation of a request
// that never reached it (docs/mcp-interop.md).
if (!authProvider) {
  const ac = new AbortController();
  const call = client.callTool({ name: "echo", arguments: { text: "y" } }, undefined, { signal: ac.signal });
  ac.abort("cancelled on purpose");
  await call.catch(() => {});
}
if (process.env.LINGER === "1") {
  await new Promise((resolve) => { client.onclose = resolve; });
}
// A Streamable HTTP session the client no longer needs is ended with
// DELETE (the SDK's close alone does not).
if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession();
await client.close();
