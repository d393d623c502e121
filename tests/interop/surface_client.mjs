#!/usr/bin/env node
// Interop check of the server surface beyond tools: drive the `everything`
// example with the official TypeScript SDK client (v1, the `initialize`
// handshake) over stdio or Streamable HTTP, through resources/list,
// resources/templates/list, resources/read (text, bytes, a template),
// resources/subscribe with notifications/resources/updated, prompts/list,
// prompts/get with arguments and completion/complete (a prompt argument
// and a template variable).
//
// Usage: node surface_client.mjs stdio <path/to/everything>
//        node surface_client.mjs http <http://127.0.0.1:PORT/mcp>
//
// Prints one JSON line of what the SDK returned (the Rust test compares it
// whole) and exits 0; a call that throws is printed to stderr, exit 1.

import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const OVERALL_TIMEOUT_MS = 45_000;
const REQUEST_TIMEOUT_MS = 15_000;
const options = { timeout: REQUEST_TIMEOUT_MS };

const [kind, target] = process.argv.slice(2);
if (!['stdio', 'http'].includes(kind) || !target) {
  process.stderr.write('usage: node surface_client.mjs stdio <server> | http <url>\n');
  process.exit(2);
}

const sdkVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8'),
).version;

const watchdog = setTimeout(() => {
  process.stderr.write(`overall timeout: the run did not finish within ${OVERALL_TIMEOUT_MS} ms\n`);
  process.exit(1);
}, OVERALL_TIMEOUT_MS);
watchdog.unref();

const client = new Client({ name: 'mcp-rs-interop-surface', version: '0.1.0' }, { capabilities: {} });
const updates = [];
let updated;
const firstUpdate = new Promise((resolve) => {
  updated = resolve;
});
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
  updates.push(notification.params.uri);
  updated();
});

const transport =
  kind === 'stdio'
    ? new StdioClientTransport({ command: target, args: [], stderr: 'ignore' })
    : new StreamableHTTPClientTransport(new URL(target));
await client.connect(transport, options);

const seen = { client: 'typescript', sdkVersion, transport: kind };
seen.resources = (await client.listResources(undefined, options)).resources;
seen.templates = (await client.listResourceTemplates(undefined, options)).resourceTemplates;
const read = async (uri) => (await client.readResource({ uri }, options)).contents;
seen.text = await read('everything://about');
seen.binary = await read('everything://pixel.png');
seen.templated = await read('everything://greeting/French/Bastien');

// Subscribed to `everything://bonus`, which `toggle_bonus` updates.
seen.bonusBefore = (await read('everything://bonus'))[0].text;
await client.subscribeResource({ uri: 'everything://bonus' }, options);
await client.callTool({ name: 'toggle_bonus', arguments: {} }, undefined, options);
await firstUpdate;
seen.updates = updates;
seen.bonusAfter = (await read('everything://bonus'))[0].text;
await client.unsubscribeResource({ uri: 'everything://bonus' }, options);

seen.prompts = (await client.listPrompts(undefined, options)).prompts;
seen.prompt = await client.getPrompt(
  { name: 'translate', arguments: { language: 'French', text: 'Good morning', tone: 'formal' } },
  options,
);
const complete = async (ref, name, value, context) =>
  (await client.complete({ ref, argument: { name, value }, context: { arguments: context } }, options)).completion;
seen.completions = {
  language: await complete({ type: 'ref/prompt', name: 'translate' }, 'language', 'sw', {}),
  greetingLanguage: await complete(
    { type: 'ref/resource', uri: 'everything://greeting/{language}/{name}' },
    'language', 'g', {},
  ),
  greetingName: await complete(
    { type: 'ref/resource', uri: 'everything://greeting/{language}/{name}' },
    'name', 'B', { language: 'French' },
  ),
};
await client.close();
process.stdout.write(`${JSON.stringify(seen)}\n`);
process.exit(0);
