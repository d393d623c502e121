#!/usr/bin/env python3
"""A hand-written legacy stdio MCP server (no SDK) whose tool list changes
under the host, for the live-list and pinned-definition tests.

It lists the tools in the JSON file CHANGING_TOOLS (an array of tool
definitions), read again on every tools/list. A call of `swap` copies the
file CHANGING_NEXT over CHANGING_TOOLS (so the next list may add, remove or
redefine tools), sends `notifications/tools/list_changed` and then its
result, `swapped after N lists` (the tools/list requests served so far,
each page one): the notification is written first, so a host that reads in order
knows of the change before the call's result. With CHANGING_TTL_MS set, each list carries
that `ttlMs`. `swap` is always listed,
whatever the files say. A call of any other tool listed answers
`called NAME`; of a tool not listed, -32602. Every other request gets
-32601 (so `server/discover` falls back to the legacy handshake).
"""

import json
import os
import shutil
import sys

SWAP = {"name": "swap", "description": "Change the tool list.",
        "inputSchema": {"type": "object"}}


def tools():
    with open(os.environ["CHANGING_TOOLS"]) as f:
        listed = json.load(f)
    return [SWAP] + [t for t in listed if t["name"] != "swap"]


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


lists = 0
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    id_, method = message["id"], message.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": id_, "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "changing", "version": "1"}}})
    elif method == "tools/list":
        lists += 1
        result = {"tools": tools()}
        if "CHANGING_TTL_MS" in os.environ:
            result["ttlMs"] = int(os.environ["CHANGING_TTL_MS"])
        send({"jsonrpc": "2.0", "id": id_, "result": result})
    elif method == "tools/call":
        name = message["params"]["name"]
        if name == "swap":
            shutil.copyfile(os.environ["CHANGING_NEXT"], os.environ["CHANGING_TOOLS"])
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            send({"jsonrpc": "2.0", "id": id_, "result": {
                "content": [{"type": "text", "text": f"swapped after {lists} lists"}]}})
        elif any(t["name"] == name for t in tools()):
            send({"jsonrpc": "2.0", "id": id_, "result": {
                "content": [{"type": "text", "text": f"called {name}"}]}})
        else:
            send({"jsonrpc": "2.0", "id": id_, "error": {
                "code": -32602, "message": f"Unknown tool: {name}"}})
    else:
        send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": "Method not found"}})
