// A real MCP client for httpserve's interop spec: the TypeScript SDK's
// Client over Streamable HTTP or the legacy HTTP+SSE transport, one
// session per argument after the SDK's folder, in order (one Node start
// for all: it costs more than the sessions).
// Usage: node sdkclient.mjs SDK_DIR KIND=URL...; KIND is http, sse, or
// http+terminate (end the session with DELETE).
// Each session initializes, lists tools, calls the first one and prints
// one JSON line of what it got.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const [sdk, ...runs] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(join(sdk, 'dist', 'esm', p)).href);
const { Client } = await load('client/index.js');
const { SSEClientTransport } = await load('client/sse.js');
const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');
const timer = setTimeout(() => { console.error('timed out'); process.exit(3); }, 20000);
try {
  for (const run of runs) {
    const at = run.indexOf('=');
    const kind = run.slice(0, at);
    const url = new URL(run.slice(at + 1));
    const transport = kind === 'sse' ? new SSEClientTransport(url) : new StreamableHTTPClientTransport(url);
    const client = new Client({ name: 'httpserve-interop', version: '1.0.0' });
    await client.connect(transport);
    const tools = await client.listTools();
    const result = await client.callTool({ name: tools.tools[0].name, arguments: {} });
    console.log(JSON.stringify({ kind, tools: tools.tools.map((t) => t.name), text: result.content[0].text, version: transport.protocolVersion ?? null }));
    if (kind === 'http+terminate') await transport.terminateSession();
    await client.close();
  }
} catch (e) {
  console.error(String(e?.stack ?? e));
  process.exit(1);
}
clearTimeout(timer);
