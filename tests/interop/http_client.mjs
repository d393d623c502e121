#!/usr/bin/env node
// Interop check over Streamable HTTP: drive an mcp-runtime HTTP server (the
// `everything` example run with `--http ADDR`) with the official TypeScript
// SDK client (`Client` + `StreamableHTTPClientTransport`).
//
// Usage: node http_client.mjs http://127.0.0.1:PORT/mcp
//
// On success prints exactly one JSON line to stdout, e.g.
//   {"client":"typescript-http","sdkVersion":"1.32.2","negotiatedProtocolVersion":"2025-11-25","checks":30,...}
// and exits 0. On any failed check, prints every failure to stderr and exits 1.

import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const OVERALL_TIMEOUT_MS = 45_000;
const REQUEST_TIMEOUT_MS = 15_000;
const CONCURRENT_CALLS = 50;

const [url] = process.argv.slice(2);
if (!url) {
  process.stderr.write('usage: node http_client.mjs <http://host:port/mcp>\n');
  process.exit(2);
}

const sdkVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8'),
).version;

let checks = 0;
const failures = [];

function check(cond, what, detail) {
  checks += 1;
  if (!cond) failures.push(detail === undefined ? what : `${what}: ${stringify(detail)}`);
  return Boolean(cond);
}

function stringify(v) {
  if (v instanceof Error) return `${v.name}: ${v.message}`;
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

let negotiated = null;
const observed = {};

function finish() {
  if (failures.length > 0) {
    process.stderr.write(`typescript http interop: ${failures.length} of ${checks} checks failed:\n`);
    for (const f of failures) process.stderr.write(`  - ${f}\n`);
    process.exit(1);
  }
  process.stdout.write(
    `${JSON.stringify({ client: 'typescript-http', sdkVersion, negotiatedProtocolVersion: negotiated, checks, ...observed })}\n`,
  );
  process.exit(0);
}

const watchdog = setTimeout(() => {
  failures.push(`overall timeout: the run did not finish within ${OVERALL_TIMEOUT_MS} ms (server hang?)`);
  finish();
}, OVERALL_TIMEOUT_MS);
watchdog.unref();

// ---------------------------------------------------------------------------

const client = new Client(
  { name: 'mcp-rs-interop-typescript-http', version: '0.1.0' },
  { capabilities: { elicitation: { form: {} } } },
);
// The elicitation handler answers `book_table`'s question; the questions it
// saw are reported so the test can check them.
observed.elicitations = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  observed.elicitations.push(request.params.message);
  return { action: 'accept', content: { name: 'Ada' } };
});

const transport = new StreamableHTTPClientTransport(new URL(url));
try {
  await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
} catch (e) {
  check(false, 'connect (initialize handshake over HTTP)', e);
  finish();
}
// The transport learns the negotiated version right after `initialize` (it
// sends it as MCP-Protocol-Version on every later request).
negotiated = transport.protocolVersion ?? null;
check(typeof negotiated === 'string', 'negotiated protocol version observed', negotiated);
check(client.getServerVersion()?.name === 'everything', 'serverInfo.name is "everything"', client.getServerVersion());
check(client.getServerCapabilities()?.tools !== undefined, 'server advertises the tools capability',
  client.getServerCapabilities());

// tools/list ------------------------------------------------------------------
{
  let tools = [];
  try {
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: REQUEST_TIMEOUT_MS });
      tools = tools.concat(page.tools);
      cursor = page.nextCursor;
    } while (cursor);
  } catch (e) {
    check(false, 'tools/list threw', e);
  }
  observed.tools = tools.map((t) => t.name).sort();
  check(tools.find((t) => t.name === 'add')?.outputSchema?.properties?.sum !== undefined,
    'add has an outputSchema with a `sum` property', tools.find((t) => t.name === 'add'));
}

/** Call a tool; return the result, or record a failure and return undefined if the call threw. */
async function call(name, args, what, options = {}) {
  try {
    return await client.callTool({ name, arguments: args }, undefined, { timeout: REQUEST_TIMEOUT_MS, ...options });
  } catch (e) {
    check(false, `${what}: tools/call ${name} ${stringify(args)} threw`, e);
    return undefined;
  }
}

// add -------------------------------------------------------------------------
{
  const r = await call('add', { a: 2, b: 3 }, 'add 2+3');
  check(r && !r.isError && r.structuredContent?.sum === 5, 'add 2+3: structuredContent.sum == 5', r);
}

// progress --------------------------------------------------------------------
{
  const progress = [];
  const r = await call('slow', { ms: 300, steps: 3 }, 'slow with progress', {
    onprogress: (p) => progress.push({ progress: p.progress, total: p.total }),
  });
  check(r && !r.isError && r.structuredContent?.steps === 3, 'slow(300, 3 steps): completes', r);
  observed.progress = progress;
}

// elicitation -----------------------------------------------------------------
{
  const r = await call('book_table', { party: 4 }, 'book_table');
  observed.booking = r?.structuredContent ?? null;
  check(r && !r.isError, 'book_table: not isError', r);
}

// cancellation by AbortSignal ---------------------------------------------------
{
  const controller = new AbortController();
  const started = performance.now();
  const pending = client.callTool({ name: 'slow', arguments: { ms: 10_000, steps: 100 } }, undefined,
    { timeout: REQUEST_TIMEOUT_MS, signal: controller.signal });
  setTimeout(() => controller.abort('interop test cancels'), 300);
  let rejected = null;
  try {
    const r = await pending;
    check(false, 'aborted slow call: rejects', r);
  } catch (e) {
    rejected = e;
  }
  const elapsed = performance.now() - started;
  check(rejected !== null, 'aborted slow call: rejects');
  check(elapsed < 5_000, 'aborted slow call: rejects promptly', `${elapsed.toFixed(0)} ms`);
  observed.cancelled = rejected !== null;
  const after = await call('add', { a: 40, b: 2 }, 'add after cancellation');
  check(after?.structuredContent?.sum === 42, 'server still answers after a cancellation (40+2 == 42)', after);
}

// concurrent calls --------------------------------------------------------------
{
  const results = await Promise.all(
    Array.from({ length: CONCURRENT_CALLS }, (_, i) => call('add', { a: i, b: 1000 }, `concurrent add #${i}`)),
  );
  const correct = results.filter((r, i) => r && !r.isError && r.structuredContent?.sum === i + 1000).length;
  check(correct === CONCURRENT_CALLS, `${CONCURRENT_CALLS} concurrent add calls: all correct`, results);
  observed.concurrentCorrect = correct;
}

try {
  await client.close();
} catch (e) {
  check(false, 'close', e);
}
finish();
