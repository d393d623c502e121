#!/usr/bin/env node
// Legacy sessions through a load balancer, with the official TypeScript SDK
// client (`Client` + `StreamableHTTPClientTransport`, which speaks the
// `initialize` era): tests/suite/replicas.rs runs it against nginx in front of
// three `everything --http` replicas.
//
// Usage: node replicas_client.mjs http://127.0.0.1:PORT/mcp SESSIONS
//
// Phase 1: opens SESSIONS sessions at once; each lists the tools, calls
// `add` and `book_table` (whose elicitation the client answers with a POST
// of its own, which must reach the replica holding the session). Prints one
// JSON line: {"phase":1,"sessions":[{"id":"r2.…","completed":true},…]}.
//
// Then it waits for a line on stdin (the test stops a replica meanwhile).
//
// Phase 2: each session calls `add` again. A session whose replica is gone
// gets HTTP 404 (MCP: the session is unknown) and, as the specification
// requires, starts over with a new `initialize` without a session id, then
// lists, calls and elicits again. Prints one JSON line:
// {"phase":2,"sessions":[{"before":"r2.…","status":404,"after":"r1.…","completed":true},…]}.
//
// Failures go to stderr with exit status 1.

import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const REQUEST_TIMEOUT_MS = 15_000;
const OVERALL_TIMEOUT_MS = 90_000;

const [url, count] = process.argv.slice(2);
if (!url || !count) {
  process.stderr.write('usage: node replicas_client.mjs <http://host:port/mcp> <sessions>\n');
  process.exit(2);
}

const watchdog = setTimeout(() => {
  process.stderr.write(`replicas client: not done within ${OVERALL_TIMEOUT_MS} ms\n`);
  process.exit(1);
}, OVERALL_TIMEOUT_MS);
watchdog.unref();

function fail(what, detail) {
  const text = detail instanceof Error ? `${detail.name}: ${detail.message}` : JSON.stringify(detail);
  process.stderr.write(`replicas client: ${what}: ${text}\n`);
  process.exit(1);
}

/** A connected client (a new legacy session) and its transport. */
async function open(label) {
  const client = new Client(
    { name: `mcp-rs-replicas-${label}`, version: '0.1.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, async () => ({
    action: 'accept',
    content: { name: `guest-${label}` },
  }));
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
  if (!transport.sessionId) fail(`session ${label}: no Mcp-Session-Id after initialize`, null);
  return { client, transport, label };
}

/** tools/list, a call and an elicitation; throws on any failure. */
async function work(session) {
  const options = { timeout: REQUEST_TIMEOUT_MS };
  const { tools } = await session.client.listTools(undefined, options);
  if (!tools.some((t) => t.name === 'book_table')) fail(`session ${session.label}: tools/list`, tools);
  const sum = await session.client.callTool({ name: 'add', arguments: { a: 20, b: 22 } }, undefined, options);
  if (sum.structuredContent?.sum !== 42) fail(`session ${session.label}: add`, sum);
  const booking = await session.client.callTool({ name: 'book_table', arguments: { party: 2 } }, undefined, options);
  const expected = { booked: true, name: `guest-${session.label}`, party: 2 };
  if (JSON.stringify(booking.structuredContent) !== JSON.stringify(expected)) {
    fail(`session ${session.label}: book_table`, booking);
  }
  return true;
}

// Phase 1 -----------------------------------------------------------------------
const sessions = await Promise.all(
  Array.from({ length: Number(count) }, (_, i) => open(String(i)).catch((e) => fail(`initialize ${i}`, e))),
);
const phase1 = await Promise.all(
  sessions.map(async (s) => ({ id: s.transport.sessionId, completed: await work(s).catch((e) => fail(`session ${s.label}`, e)) })),
);
process.stdout.write(`${JSON.stringify({ phase: 1, sessions: phase1 })}\n`);

// Wait for the test to stop a replica.
const lines = createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once('line', resolve));
lines.close();

// Phase 2 -----------------------------------------------------------------------
const phase2 = [];
const reopened = [];
for (const s of sessions) {
  const before = s.transport.sessionId;
  let status = 200;
  let current = s;
  try {
    const sum = await s.client.callTool({ name: 'add', arguments: { a: 1, b: 1 } }, undefined, { timeout: REQUEST_TIMEOUT_MS });
    if (sum.structuredContent?.sum !== 2) fail(`session ${s.label}: add after the stop`, sum);
  } catch (e) {
    if (e?.code !== 404) fail(`session ${s.label}: add after the stop failed other than with 404`, e);
    status = 404;
    await s.client.close().catch(() => {});
    current = await open(`${s.label}-again`).catch((e2) => fail(`re-initialize ${s.label}`, e2));
    reopened.push(current);
  }
  const completed = await work(current).catch((e) => fail(`session ${current.label}`, e));
  phase2.push({ before, status, after: current.transport.sessionId, completed });
}
process.stdout.write(`${JSON.stringify({ phase: 2, sessions: phase2 })}\n`);

await Promise.all([...sessions, ...reopened].map((s) => s.client.close().catch(() => {})));
process.exit(0);
