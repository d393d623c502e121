#!/usr/bin/env python3
"""A hand-written legacy stdio MCP server (no SDK) that misbehaves on
purpose, one way per FAKE mode:

- `bad-output`: `check` has an outputSchema and answers structuredContent
  that breaks it;
- `old-version`: answers initialize with a revision nobody speaks;
- `exit`: the tool `exit` makes the process exit (the client restarts it);
  `count` says how many processes were started (a file in FAKE_DIR);
- `names`: tools whose names a model API refuses (`files.read`,
  `weather/查天气`) instead of the three above; a call answers the name;
- `big-page`: its `tools/list` answer is a 3 MiB line of tiny JSON objects;
- `big-result`: one tool, `huge`, whose call first sends a
  `sampling/createMessage` with 3 MiB of tiny objects as params (the answer
  is written to FAKE_DIR/sampling-answer), then answers 3 MiB of tiny
  objects as the result.
Every other request gets -32601 (so `server/discover` falls back).
"""

import json
import os
import sys

MODE = os.environ.get("FAKE", "bad-output")
if MODE == "exit":
    path = os.path.join(os.environ["FAKE_DIR"], "starts")
    starts = int(open(path).read()) + 1 if os.path.exists(path) else 1
    open(path, "w").write(str(starts))
else:
    starts = 1

TOOLS = [
    {
        "name": "check",
        "inputSchema": {"type": "object"},
        "outputSchema": {
            "type": "object",
            "properties": {"ok": {"type": "boolean"}},
            "required": ["ok"],
        },
    },
    {"name": "exit", "inputSchema": {"type": "object"}},
    {"name": "count", "inputSchema": {"type": "object"}},
]
if MODE == "names":
    TOOLS = [
        {"name": "files.read", "description": "Read a file.",
         "inputSchema": {"type": "object"}},
        {"name": "weather/查天气", "description": "Look up the weather.",
         "inputSchema": {"type": "object"}},
    ]
if MODE == "big-result":
    TOOLS = [{"name": "huge", "inputSchema": {"type": "object"}}]

# 3 MiB of `{"a":1}`: about 95 bytes of memory per byte once parsed.
TINY = [{"a": 1}] * (3 * 1024 * 1024 // 9)


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if "method" not in message:
        if message["id"] == "s1":
            with open(os.path.join(os.environ["FAKE_DIR"], "sampling-answer"), "w") as out:
                out.write(line)
        continue
    id_, method = message["id"], message.get("method")
    if method == "initialize":
        version = "1999-01-01" if MODE == "old-version" else "2025-06-18"
        send({"jsonrpc": "2.0", "id": id_, "result": {
            "protocolVersion": version, "capabilities": {"tools": {}},
            "serverInfo": {"name": "fake", "version": "1"}}})
    elif method == "tools/list" and MODE == "big-page":
        send({"jsonrpc": "2.0", "id": id_, "result": {"tools": TOOLS, "_meta": {"x": TINY}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": id_, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        name = message["params"]["name"]
        if MODE == "big-result":
            send({"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage",
                  "params": {"messages": TINY, "maxTokens": 10}})
            send({"jsonrpc": "2.0", "id": id_, "result": {
                "content": [{"type": "text", "text": "tiny"}],
                "structuredContent": {"x": TINY}}})
        elif MODE == "names":
            send({"jsonrpc": "2.0", "id": id_, "result": {
                "content": [{"type": "text", "text": f"called {name}"}]}})
        elif name == "check":
            good = message["params"].get("arguments", {}).get("good", False)
            structured = {"ok": True} if good else {"ok": "yes"}
            send({"jsonrpc": "2.0", "id": id_, "result": {
                "content": [{"type": "text", "text": json.dumps(structured)}],
                "structuredContent": structured}})
        elif name == "exit":
            sys.exit(3)
        else:
            send({"jsonrpc": "2.0", "id": id_, "result": {
                "content": [{"type": "text", "text": str(starts)}]}})
    else:
        send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": "Method not found"}})
