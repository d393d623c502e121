"""A legacy stdio MCP server that answers with what a client must refuse.

`resources/read` of `test://huge` answers a text of SIZE bytes (default
100 MiB), written in chunks so this script never holds it; `prompts/get`
of `flood` answers COUNT messages (default 10,000). `resources/subscribe`
of URI tells, before its answer, updates of URI, of a resource below it and
of one beside it (URI + "b"); `resources/unsubscribe` tells, after its
answer, an update of URI and then a prompt list change. Everything else is
a minimal, honest server: `initialize`, empty lists, `ping`.
"""

import json
import os
import sys

SIZE = int(os.environ.get("SIZE", str(100 * 1024 * 1024)))
COUNT = int(os.environ.get("COUNT", "10000"))
out = sys.stdout.buffer


def send(message):
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


for line in sys.stdin.buffer:
    request = json.loads(line)
    method, rid = request.get("method"), request.get("id")
    if rid is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"resources": {"subscribe": True}, "prompts": {"listChanged": True}},
            "serverInfo": {"name": "hostile", "version": "1"}}})
    elif method == "resources/read":
        head = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"contents": [
            {"uri": request["params"]["uri"], "mimeType": "text/plain", "text": "@"}]}})
        before, after = head.split("@")
        out.write(before.encode())
        chunk = b"x" * (1 << 20)
        left = SIZE
        while left > 0:
            out.write(chunk[: min(left, len(chunk))])
            left -= len(chunk)
        out.write(after.encode() + b"\n")
        out.flush()
    elif method == "prompts/get":
        message = {"role": "user", "content": {"type": "text", "text": "again"}}
        send({"jsonrpc": "2.0", "id": rid, "result": {"messages": [message] * COUNT}})
    elif method == "resources/subscribe":
        uri = request["params"]["uri"]
        for updated in (uri + "/part", uri + "b", uri):
            send({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                  "params": {"uri": updated}})
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
    elif method == "resources/unsubscribe":
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
        send({"jsonrpc": "2.0", "method": "notifications/resources/updated",
              "params": {"uri": request["params"]["uri"]}})
        send({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
