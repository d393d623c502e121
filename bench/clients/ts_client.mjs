#!/usr/bin/env node
// Load from the official TypeScript SDK client (npm `@modelcontextprotocol/sdk`,
// pinned in tests/interop/package-lock.json): the same pattern as
// `bench/src/bin/client-load.rs`, CALLS `add` calls with INFLIGHT in flight
// on one connection, every answer checked, then one JSON line on stdout
// (`rss_kib`: this process's peak RSS). The v1 client speaks only the legacy
// handshake (2025-11-25).
//
// Usage: node ts_client.mjs SDK_DIR (--stdio SERVER | --http URL) CALLS INFLIGHT
// SDK_DIR: the directory whose node_modules holds the SDK (tests/interop).

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [sdkDir, kind, target, callsArg, inflightArg] = process.argv.slice(2);
const load = (path) =>
  import(pathToFileURL(join(sdkDir, 'node_modules/@modelcontextprotocol/sdk/dist/esm', path)).href);
const { Client } = await load('client/index.js');
const calls = Number(callsArg);
const inflight = Number(inflightArg);

let transport;
if (kind === '--stdio') {
  const { StdioClientTransport } = await load('client/stdio.js');
  // The whole environment (the SDK passes only a safe subset by default):
  // `clients` sets `RATE_LIMIT=off` there for the server.
  transport = new StdioClientTransport({ command: target, args: [], env: process.env });
} else {
  const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');
  transport = new StreamableHTTPClientTransport(new URL(target));
}
// The client hands the negotiated version to this optional hook right after
// `initialize` (stdio transports have none): observe it, keep its effect.
let version = null;
const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = (v) => {
  version = v;
  setProtocolVersion?.(v);
};
const client = new Client({ name: 'bench', version: '1.0.0' });
await client.connect(transport);
await client.listTools();

let next = 0;
const latencies = [];
async function worker() {
  for (;;) {
    const i = next++;
    if (i >= calls) return;
    const at = process.hrtime.bigint();
    const result = await client.callTool({ name: 'add', arguments: { a: i, b: 1 } });
    latencies.push(Number(process.hrtime.bigint() - at) / 1000);
    if (result.structuredContent?.sum !== i + 1) {
      throw new Error(`call ${i}: ${JSON.stringify(result)}`);
    }
  }
}
const started = process.hrtime.bigint();
await Promise.all(Array.from({ length: inflight }, worker));
const secs = Number(process.hrtime.bigint() - started) / 1e9;
latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))];
process.stdout.write(
  JSON.stringify({
    calls,
    secs,
    calls_per_s: calls / secs,
    p50_us: at(0.5),
    p99_us: at(0.99),
    rss_kib: process.resourceUsage().maxRSS,
    version,
  }) + '\n',
);
await client.close();
process.exit(0);
