#!/usr/bin/env python3
"""A hand-written legacy stdio MCP server (no SDK) whose tool listing is
hostile, one way per LISTS mode:

- `endless`: every tools/list page holds LISTS_PER_PAGE tools (default
  1,000), each described in LISTS_DESC bytes (default 25), and a new cursor;
- `fat`: LISTS_TOOLS tools (default 900) in one page, each with
  LISTS_PROPS tiny properties (default 600): the most a listing can build
  within the default caps;
- `loop`: every page holds one tool and the same cursor;
- `many`: one page of LISTS_TOOLS tools (default 100,000);
- `regex`: one tool, `shape`, whose outputSchema holds about 6 KiB of
  Unicode regular expressions that compile to hundreds of MiB; its result
  has structuredContent;
- `headers`: one tool, `wide`, with LISTS_PROPS properties (default
  200,000), each with an `x-mcp-header` (with LISTS_PLAIN=1 the same
  text without the keyword: a baseline).
A call of any tool answers `called NAME`. Every other request gets -32601
(so `server/discover` falls back to the legacy handshake).
"""

import json
import os
import sys

MODE = os.environ.get("LISTS", "endless")


def tool(name):
    size = int(os.environ.get("LISTS_DESC", "25"))
    return {"name": name, "description": (f"Tool {name}, one of many. " * size)[:size],
            "inputSchema": {"type": "object"}}


def regex_schema():
    # Each pattern is short text but a large automaton (a Unicode class
    # repeated), just under the regex crate's default 10 MiB size limit, so
    # each compiles; all distinct, so none is shared.
    count = int(os.environ.get("LISTS_PATTERNS", "24"))
    repeat = int(os.environ.get("LISTS_REPEAT", "170"))
    properties = {}
    for i in range(count):
        pattern = "^(?:[\\p{L}\\p{N}]|[\\p{M}\\p{S}]){%d}(?:x%d)?$" % (repeat - i, i)
        properties[f"f{i}"] = {"type": "string", "pattern": pattern}
    return {"type": "object", "properties": properties}


def page(params):
    cursor = (params or {}).get("cursor")
    if MODE == "endless":
        n = int(cursor[1:]) + 1 if cursor else 0
        per_page = int(os.environ.get("LISTS_PER_PAGE", "1000"))
        return {"tools": [tool(f"t{n}_{i}") for i in range(per_page)], "nextCursor": f"c{n}"}
    if MODE == "fat":
        count = int(os.environ.get("LISTS_TOOLS", "900"))
        props = {f"p{i}": {"t": 1} for i in range(int(os.environ.get("LISTS_PROPS", "600")))}
        return {"tools": [{"name": f"t{i}", "inputSchema": {"type": "object", "properties": props}}
                          for i in range(count)]}
    if MODE == "loop":
        return {"tools": [tool("again")], "nextCursor": "same"}
    if MODE == "many":
        count = int(os.environ.get("LISTS_TOOLS", "100000"))
        return {"tools": [{"name": f"t{i}", "inputSchema": {}} for i in range(count)]}
    if MODE == "regex":
        return {"tools": [{"name": "shape", "description": "A shaped result.",
                           "inputSchema": {"type": "object"},
                           "outputSchema": regex_schema()}]}
    if MODE == "headers":
        count = int(os.environ.get("LISTS_PROPS", "200000"))
        plain = os.environ.get("LISTS_PLAIN") == "1"
        properties = {f"p{i}": {"type": "string", "x-mcp-header": f"P{i}"}
                      for i in range(count)}
        if plain:
            # The same size without the keyword: a baseline.
            properties = {f"p{i}": {"type": "string", "x-mcp-hdr": f"P{i}"}
                          for i in range(count)}
        return {"tools": [{"name": "wide", "description": "Many header params.",
                           "inputSchema": {"type": "object", "properties": properties}}]}
    raise SystemExit(f"unknown LISTS mode {MODE}")


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    id_, method = message["id"], message.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": id_, "result": {
            "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile-lists", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": id_, "result": page(message.get("params"))})
    elif method == "tools/call":
        name = message["params"]["name"]
        result = {"content": [{"type": "text", "text": f"called {name}"}]}
        if name == "shape":
            result["structuredContent"] = {"f0": "abc"}
        send({"jsonrpc": "2.0", "id": id_, "result": result})
    else:
        send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": "Method not found"}})
