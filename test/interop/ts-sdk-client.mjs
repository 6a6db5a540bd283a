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
// It is pre-registered when MCP_CLIENT_ID and MCP_CLIENT_SECRET are set,
// identifies itself by a Client ID Metadata Document it serves over https
// on loopback when CIMD_CERT and CIMD_KEY (PEM files) are, else registers
// dynamically (application_type "native" unless APP_TYPE=none).
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
// The application's side of the SDK's OAuthClientProvider: what it keeps
// (client, tokens, verifier) and the browser's part (the redirect).
let pendingCode;
const redirectUrl = "http://127.0.0.1:9/callback";
const kept = { clients: {}, verifiers: {}, grants: {} };
const authProvider = process.env.OAUTH === "1" && overHTTP ? await provider() : undefined;
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
      // The code is redeemed with the client and verifier of its own
      // authorization request, whatever another flow (the GET stream's,
      // refused too) saved meanwhile.
      kept.pin = kept.grants[code];
      try {
        await transport.finishAuth(code);
      } finally {
        kept.pin = undefined;
      }
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

// provider is the OAuthClientProvider of OAUTH=1 (see the top).
async function provider() {
  let metadataUrl;
  if (process.env.CIMD_CERT && process.env.CIMD_KEY) {
    const srv = createServer({ cert: readFileSync(process.env.CIMD_CERT), key: readFileSync(process.env.CIMD_KEY) }, (req, res) => {
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ client_id: metadataUrl, client_name: "ts-sdk-client", redirect_uris: [redirectUrl],
        grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" }));
    });
    await new Promise((resolve) => srv.listen(0, "127.0.0.1", resolve));
    srv.unref();
    metadataUrl = `https://127.0.0.1:${srv.address().port}/client.json`;
  }
  const pre = process.env.MCP_CLIENT_ID ? { client_id: process.env.MCP_CLIENT_ID, client_secret: process.env.MCP_CLIENT_SECRET } : undefined;
  const meta = { client_name: "ts-sdk-client", redirect_uris: [redirectUrl], grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"], token_endpoint_auth_method: "none" };
  if (process.env.APP_TYPE !== "none") meta.application_type = "native";
  return {
    get redirectUrl() { return redirectUrl; },
    get clientMetadata() { return meta; },
    clientMetadataUrl: metadataUrl,
    state: () => Math.random().toString(36).slice(2),
    clientInformation: () => kept.pin?.client ?? kept.client ?? pre,
    saveClientInformation: (c) => { kept.client = c; kept.clients[c.client_id] = c; },
    tokens: () => kept.tokens,
    saveTokens: (t) => { kept.tokens = t; },
    saveCodeVerifier: (v) => { kept.verifier = v; kept.verifiers[createHash("sha256").update(v).digest("base64url")] = v; },
    codeVerifier: () => kept.pin?.verifier ?? kept.verifier,
    // No browser: the authorization server approves at once, and its
    // redirect carries the code, kept with the client and verifier of
    // its request.
    redirectToAuthorization: async (url) => {
      const resp = await fetch(url, { redirect: "manual" });
      const back = new URL(resp.headers.get("location") ?? "", url).searchParams;
      pendingCode = back.get("code") ?? undefined;
      if (pendingCode !== undefined) {
        kept.grants[pendingCode] = { client: kept.clients[url.searchParams.get("client_id")] ?? pre, verifier: kept.verifiers[url.searchParams.get("code_challenge")] };
      }
    },
  };
}
