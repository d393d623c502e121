#!/usr/bin/env node
// An MCP server made with the official TypeScript SDK (npm
// `@modelcontextprotocol/sdk`, pinned in tests/interop/package-lock.json),
// for mcp-host's client interop tests. Tools: `add` (structured output with an
// outputSchema), `pixel` (an image block), `fail` (isError: true).
//
// Usage: node ts_server.mjs SDK_DIR            (stdio)
//        node ts_server.mjs SDK_DIR --http PORT (Streamable HTTP, stateful
//                                              sessions, at /mcp)
// SDK_DIR is the directory whose node_modules holds the SDK (tests/interop):
// this script lives in mcp-host/tests/interop, where Node's resolution
// would not find it, so the modules are imported by absolute path.

import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [sdkDir, flag, port] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(join(sdkDir, 'node_modules', path)).href);
const { McpServer } = await load('@modelcontextprotocol/sdk/dist/esm/server/mcp.js');
const { z } = await load('zod/index.js');

// A 1x1 transparent PNG.
const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

function makeServer() {
  const server = new McpServer({ name: 'ts-interop', version: '1.0.0' });
  server.registerTool(
    'add',
    {
      description: 'Add two numbers.',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    async ({ a, b }) => ({
      content: [{ type: 'text', text: JSON.stringify({ sum: a + b }) }],
      structuredContent: { sum: a + b },
    }),
  );
  server.registerTool(
    'pixel',
    { description: 'A 1x1 PNG.', inputSchema: {} },
    async () => ({
      content: [
        { type: 'text', text: 'one pixel' },
        { type: 'image', data: PIXEL, mimeType: 'image/png' },
      ],
    }),
  );
  server.registerTool(
    'fail',
    { description: 'Always fails.', inputSchema: { reason: z.string() } },
    async ({ reason }) => ({ content: [{ type: 'text', text: `failed: ${reason}` }], isError: true }),
  );
  return server;
}

if (flag === '--http') {
  const { StreamableHTTPServerTransport } = await load(
    '@modelcontextprotocol/sdk/dist/esm/server/streamableHttp.js',
  );
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    if (!req.url.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    let body;
    if (req.method === 'POST') {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
    }
    const id = req.headers['mcp-session-id'];
    let transport = id ? sessions.get(id) : undefined;
    if (!transport) {
      if (id || body?.method !== 'initialize') {
        // Not a session's request and not a handshake (e.g. a
        // `server/discover` probe): this v1 server speaks no 2026-07-28.
        res.writeHead(id ? 404 : 400, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: body?.id ?? null,
            error: { code: -32600, message: 'Bad Request: no valid session ID provided' },
          }),
        );
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await makeServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  http.listen(Number(port), '127.0.0.1', () => {
    process.stderr.write(`listening on 127.0.0.1:${http.address().port}\n`);
  });
} else {
  const { StdioServerTransport } = await load(
    '@modelcontextprotocol/sdk/dist/esm/server/stdio.js',
  );
  await makeServer().connect(new StdioServerTransport());
}
