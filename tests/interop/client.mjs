#!/usr/bin/env node
// Interop check: drive an mcp-runtime stdio server (the `everything` example)
// with the official TypeScript SDK client (`@modelcontextprotocol/sdk`).
//
// Usage: node client.mjs <path/to/everything> [server args...]
//
// On success prints exactly one JSON line to stdout, e.g.
//   {"client":"typescript","sdkVersion":"1.32.2","negotiatedProtocolVersion":"2025-11-25","checks":42}
// and exits 0. On any failed check, prints every failure to stderr and exits 1.

import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

const OVERALL_TIMEOUT_MS = 45_000;
const REQUEST_TIMEOUT_MS = 15_000;
const EXPECTED_TOOLS = ['add', 'echo', 'fail', 'slow', 'panic', 'get_weather_data'];

const [serverPath, ...serverArgs] = process.argv.slice(2);
if (!serverPath) {
  process.stderr.write('usage: node client.mjs <path/to/everything> [args...]\n');
  process.exit(2);
}

const sdkVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8'),
).version;

let checks = 0;
const failures = [];
let serverStderr = '';

function check(cond, what, detail) {
  checks += 1;
  if (!cond) {
    failures.push(detail === undefined ? what : `${what}: ${stringify(detail)}`);
  }
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

function finish(extra = {}) {
  if (failures.length > 0) {
    process.stderr.write(`typescript interop: ${failures.length} of ${checks} checks failed:\n`);
    for (const f of failures) process.stderr.write(`  - ${f}\n`);
    if (serverStderr) process.stderr.write(`--- server stderr (last 4 KiB) ---\n${serverStderr.slice(-4096)}\n`);
    process.exit(1);
  }
  process.stdout.write(
    `${JSON.stringify({ client: 'typescript', sdkVersion, negotiatedProtocolVersion: negotiated, checks, ...extra })}\n`,
  );
  process.exit(0);
}

const watchdog = setTimeout(() => {
  failures.push(`overall timeout: the run did not finish within ${OVERALL_TIMEOUT_MS} ms (server hang?)`);
  finish();
}, OVERALL_TIMEOUT_MS);
watchdog.unref();

function textOf(result) {
  return (result?.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

/** Call a tool; return the result, or record a failure and return undefined if the call threw. */
async function call(name, args, what) {
  try {
    return await client.callTool({ name, arguments: args }, undefined, { timeout: REQUEST_TIMEOUT_MS });
  } catch (e) {
    check(false, `${what}: tools/call ${name} ${stringify(args)} threw`, e);
    return undefined;
  }
}

/** Structured content plus its text mirror must agree. */
function checkStructured(result, what) {
  if (!check(result && typeof result.structuredContent === 'object' && result.structuredContent !== null,
    `${what}: structuredContent is an object`, result)) return undefined;
  const texts = (result.content ?? []).filter((c) => c.type === 'text');
  if (check(texts.length >= 1, `${what}: has a text block mirroring structuredContent`, result)) {
    let parsed;
    try {
      parsed = JSON.parse(texts[0].text);
    } catch (e) {
      parsed = e;
    }
    check(isDeepStrictEqual(parsed, result.structuredContent),
      `${what}: text block parses to the same JSON as structuredContent`,
      { text: texts[0].text, structuredContent: result.structuredContent });
  }
  return result.structuredContent;
}

/** A successful (not isError) result's structuredContent, checked against its text mirror. */
function successfulStructured(result, what) {
  if (!result || !check(!result.isError, `${what}: not isError`, result)) return undefined;
  return checkStructured(result, what);
}

// ---------------------------------------------------------------------------

const client = new Client({ name: 'mcp-rs-interop-typescript', version: '0.1.0' }, { capabilities: {} });
const transport = new StdioClientTransport({ command: serverPath, args: serverArgs, stderr: 'pipe' });
transport.stderr?.on('data', (chunk) => {
  serverStderr = (serverStderr + chunk.toString('utf8')).slice(-65536);
});

// The v1 client tells HTTP transports the negotiated version through this
// optional hook right after `initialize`; stdio transports do not implement
// it, so install one to observe the negotiated version through public API.
let negotiated = null;
transport.setProtocolVersion = (v) => {
  negotiated = v;
};

try {
  await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
} catch (e) {
  check(false, 'connect (initialize handshake)', e);
  finish();
}
check(typeof negotiated === 'string', 'negotiated protocol version observed', negotiated);
check(client.getServerVersion()?.name === 'everything', 'serverInfo.name is "everything"', client.getServerVersion());
check(client.getServerCapabilities()?.tools !== undefined, 'server advertises the tools capability',
  client.getServerCapabilities());

// tools/list ------------------------------------------------------------------
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
const byName = new Map(tools.map((t) => [t.name, t]));
for (const name of EXPECTED_TOOLS) check(byName.has(name), `tools/list contains ${name}`, [...byName.keys()]);
const addSchema = byName.get('add')?.outputSchema;
check(addSchema && addSchema.type === 'object' && addSchema.properties?.sum !== undefined,
  'add has an outputSchema with a `sum` property', addSchema);
check(byName.get('get_weather_data')?.outputSchema?.type === 'object', 'get_weather_data has an outputSchema',
  byName.get('get_weather_data'));

// add -------------------------------------------------------------------------
{
  const r = await call('add', { a: 2, b: 3 }, 'add 2+3');
  if (r) {
    const sc = successfulStructured(r, 'add 2+3');
    check(sc?.sum === 5, 'add 2+3: structuredContent.sum == 5', sc);
  }
}

// echo ------------------------------------------------------------------------
{
  const text = 'hello, interop ✓ "quoted" \\ back';
  const r = await call('echo', { text }, 'echo');
  if (r) {
    check(!r.isError, 'echo: not isError', r);
    check(textOf(r) === text, 'echo: returns the same text', r);
  }
}

// fail ------------------------------------------------------------------------
{
  const r = await call('fail', {}, 'fail');
  if (r) {
    check(r.isError === true, 'fail: isError is true', r);
    check(textOf(r).length > 0, 'fail: carries an explanatory text block', r);
    check(r.structuredContent === undefined, 'fail: no structuredContent on an error result', r);
  }
}

// get_weather_data ------------------------------------------------------------
{
  const metric = await call('get_weather_data', { location: 'Amsterdam' }, 'weather (default units)');
  const imperial = await call('get_weather_data', { location: 'Amsterdam', units: 'imperial' }, 'weather (imperial)');
  const m = successfulStructured(metric, 'weather (default units)');
  const i = successfulStructured(imperial, 'weather (imperial)');
  for (const [w, units, what] of [[m, 'metric', 'weather (default units)'], [i, 'imperial', 'weather (imperial)']]) {
    if (!w) continue;
    check(w.location === 'Amsterdam', `${what}: location echoed`, w);
    check(w.units === units, `${what}: units == ${units}`, w);
    check(typeof w.temperature === 'number' && typeof w.wind_speed === 'number',
      `${what}: numeric temperature and wind_speed`, w);
    check(typeof w.conditions === 'string' && w.conditions.length > 0, `${what}: conditions is a non-empty string`, w);
  }
  if (m && i) {
    check(Math.abs(m.temperature * 9 / 5 + 32 - i.temperature) < 1e-9,
      'weather: imperial temperature is the metric one converted to Fahrenheit', { metric: m, imperial: i });
    check(m.conditions === i.conditions, 'weather: same conditions in both unit systems', { metric: m, imperial: i });
  }
}

// add with a bad argument -----------------------------------------------------
{
  // SEP-1303 (2025-11-25): argument validation failures are tool execution
  // errors (isError:true) that name the offending argument.
  const r = await call('add', { a: 'x', b: 3 }, 'add a:"x"');
  if (r) {
    check(r.isError === true, 'add a:"x": isError is true', r);
    check(/(^|[^A-Za-z0-9_])a([^A-Za-z0-9_]|$)/.test(textOf(r)), 'add a:"x": error message names `a`', textOf(r));
  }
}

// panic, then the server must still answer ------------------------------------
{
  const r = await call('panic', {}, 'panic');
  if (r) {
    check(r.isError === true, 'panic: isError is true', r);
    check(textOf(r).length > 0, 'panic: carries an explanatory text block', r);
  }
  const after = await call('add', { a: 40, b: 2 }, 'add after panic');
  if (after) check(after.structuredContent?.sum === 42, 'server still answers after a panic (add 40+2 == 42)', after);
}

// unknown tool ----------------------------------------------------------------
{
  try {
    const r = await client.callTool({ name: 'no_such_tool', arguments: {} }, undefined, { timeout: REQUEST_TIMEOUT_MS });
    check(false, 'unknown tool: expected a JSON-RPC error (-32602), got a result', r);
  } catch (e) {
    check(e instanceof McpError, 'unknown tool: rejected with a JSON-RPC error (McpError)', e);
    check(e?.code === -32602, 'unknown tool: error code is -32602 (invalid params)', { code: e?.code, message: e?.message });
    check(String(e?.message).includes('no_such_tool'), 'unknown tool: error message names the tool', e?.message);
  }
}

// 3 concurrent slow calls must overlap -----------------------------------------
{
  const started = performance.now();
  const results = await Promise.all([0, 1, 2].map((i) => call('slow', { ms: 300 }, `slow #${i}`)));
  const elapsed = performance.now() - started;
  results.forEach((r, idx) => {
    if (!r) return;
    check(!r.isError, `slow #${idx}: not isError`, r);
    check(r.structuredContent?.ms === 300 && r.structuredContent?.steps === 1,
      `slow #${idx}: structuredContent == {ms:300, steps:1}`, r.structuredContent);
  });
  check(elapsed >= 290, `3 concurrent slow(300) calls took at least 300 ms`, `${elapsed.toFixed(0)} ms`);
  check(elapsed < 800, `3 concurrent slow(300) calls overlap (wall time < 800 ms)`, `${elapsed.toFixed(0)} ms`);
}

try {
  await client.close();
} catch (e) {
  check(false, 'close', e);
}
finish({ serverInfo: client.getServerVersion() ?? null });
