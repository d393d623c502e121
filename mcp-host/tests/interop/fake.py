#!/usr/bin/env python3
"""A hand-written legacy stdio MCP server (no SDK) that misbehaves on
purpose, one way per FAKE mode:

- `bad-output`: `check` has an outputSchema and answers structuredContent
  that breaks it;
- `old-version`: answers initialize with a revision nobody speaks;
- `exit`: the tool `exit` makes the process exit (the client restarts it);
  `count` says how many processes were started (a file in FAKE_DIR);
- `names`: tools whose names a model API refuses (`files.read`,
  `weather/查天气`) instead of the three above; a call answers the name.
- `listed`: the tools named by the JSON array FAKE_TOOLS (duplicates kept,
  in order); a call answers `FAKE_TAG/name: arguments` (the arguments as
  JSON with sorted keys), so a test sees which server and tool it reached;
- `big-page`: its `tools/list` answer is a 3 MiB line of tiny JSON objects;
- `big-result`: one tool, `huge`, whose call first sends a
  `sampling/createMessage` with 3 MiB of tiny objects as params (the answer
  is written to FAKE_DIR/sampling-answer), then answers 3 MiB of tiny
  objects as the result;
- `task-required`: speaks 2025-11-25 and lists `research` with
  `execution.taskSupport: "required"` (a call of it without a `task` is
  -32601, as server-everything's `simulate-research-query` answers),
  `lookup` with `"optional"` and `plain` without `execution`;
  with FAKE_LIST_CHANGED set, it says its list changed once initialized;
- `deaf`: one tool, `flood`, whose call makes it stop reading its stdin
  and send 2,000 pings, 40 notifications of 8 MiB each (5 pings after
  each), then 300,000 pings.
- `progress`: one tool, `steps`, whose call sends `notifications/progress`
  for its own `progressToken` (1 of 2 "half", then 2 of 2 "done"), one
  for a token nobody sent (`someone-else`), and one for no token; then
  answers the token it got as JSON (`null` without one).
Every other request gets -32601 (so `server/discover` falls back).
"""

import json
import os
import sys
import time

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
if MODE == "listed":
    TOOLS = [
        {"name": name, "description": f"{name} of {os.environ.get('FAKE_TAG')}",
         "inputSchema": {"type": "object"}}
        for name in json.loads(os.environ["FAKE_TOOLS"])
    ]
if MODE == "big-result":
    TOOLS = [{"name": "huge", "inputSchema": {"type": "object"}}]
if MODE == "deaf":
    TOOLS = [{"name": "flood", "inputSchema": {"type": "object"}}]
if MODE == "progress":
    TOOLS = [{"name": "steps", "inputSchema": {"type": "object"}}]
if MODE == "task-required":
    TOOLS = [
        {"name": "research", "inputSchema": {"type": "object"},
         "execution": {"taskSupport": "required"}},
        {"name": "lookup", "inputSchema": {"type": "object"},
         "execution": {"taskSupport": "optional"}},
        {"name": "plain", "inputSchema": {"type": "object"}},
    ]

# 3 MiB of `{"a":1}`: about 95 bytes of memory per byte once parsed.
TINY = [{"a": 1}] * (3 * 1024 * 1024 // 9)


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "notifications/initialized" and os.environ.get("FAKE_LIST_CHANGED"):
        # As server-everything does once it registers the tools the
        # client's capabilities allow.
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    if "id" not in message:
        continue
    if "method" not in message:
        if message["id"] == "s1":
            with open(os.path.join(os.environ["FAKE_DIR"], "sampling-answer"), "w") as out:
                out.write(line)
        continue
    id_, method = message["id"], message.get("method")
    if method == "initialize":
        version = {"old-version": "1999-01-01", "task-required": "2025-11-25"}.get(MODE, "2025-06-18")
        send({"jsonrpc": "2.0", "id": id_, "result": {
            "protocolVersion": version, "capabilities": {"tools": {}},
            "serverInfo": {"name": "fake", "version": "1"}}})
    elif method == "tools/list" and MODE == "big-page":
        send({"jsonrpc": "2.0", "id": id_, "result": {"tools": TOOLS, "_meta": {"x": TINY}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": id_, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        name = message["params"]["name"]
        if MODE == "listed":
            arguments = json.dumps(message["params"].get("arguments", {}),
                                   sort_keys=True, ensure_ascii=False)
            send({"jsonrpc": "2.0", "id": id_, "result": {
                "content": [{"type": "text",
                             "text": f"{os.environ.get('FAKE_TAG')}/{name}: {arguments}"}]}})
        elif MODE == "deaf":
            ping = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
            # The host's replies fill the pipe to this process and then
            # the host's queue after about 2,000 pings; the notifications
            # then arrive while the host waits for room.
            sys.stdout.buffer.write(ping * 2000)
            pad = b'{"jsonrpc":"2.0","method":"notifications/pad","params":{"pad":"' + b"a" * (8 << 20) + b'"}}\n'
            for _ in range(40):
                sys.stdout.buffer.write(pad + ping * 5)
                sys.stdout.buffer.flush()
            sys.stdout.buffer.write(ping * 300000)
            sys.stdout.buffer.flush()
            time.sleep(60)
        elif MODE == "progress":
            token = message["params"].get("_meta", {}).get("progressToken")
            for params in ({"progressToken": "someone-else", "progress": 99},
                           {"progressToken": token, "progress": 1, "total": 2, "message": "half"},
                           {"progress": 5},
                           {"progressToken": token, "progress": 2, "total": 2, "message": "done"}):
                send({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
            send({"jsonrpc": "2.0", "id": id_, "result": {
                "content": [{"type": "text", "text": json.dumps(token)}]}})
        elif MODE == "big-result":
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
        elif MODE == "task-required" and name == "research" and "task" not in message["params"]:
            send({"jsonrpc": "2.0", "id": id_, "error": {
                "code": -32601, "message": "Tool research requires task augmentation"}})
        else:
            send({"jsonrpc": "2.0", "id": id_, "result": {
                "content": [{"type": "text", "text": str(starts)}]}})
    else:
        send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": "Method not found"}})
