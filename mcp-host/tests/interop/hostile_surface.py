"""A legacy stdio MCP server whose prompt and resource are more than a host
may hold: `prompts/get` of `flood` answers COUNT messages (default 10,000),
`resources/read` of `test://huge` a text of SIZE bytes (default 100 MiB),
written in chunks so this script never holds it; `completion/complete`
is never answered. It lists no tools, the prompt (one argument, `x`), the
resource, and an honest prompt `interview` (argument `x`) that ends with
the assistant's question; everything else is a minimal, honest server.
"""

import json
import os
import sys

SIZE = int(os.environ.get("SIZE", str(100 * 1024 * 1024)))
COUNT = int(os.environ.get("COUNT", "10000"))
out = sys.stdout.buffer


def send(rid, result):
    out.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode() + b"\n")
    out.flush()


for line in sys.stdin.buffer:
    request = json.loads(line)
    method, rid = request.get("method"), request.get("id")
    if rid is None:
        continue
    if method == "initialize":
        send(rid, {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}, "resources": {}, "prompts": {}, "completions": {}},
            "serverInfo": {"name": "hostile", "version": "1"}})
    elif method == "tools/list":
        send(rid, {"tools": []})
    elif method == "prompts/list":
        send(rid, {"prompts": [{"name": name, "arguments": [{"name": "x"}]}
                               for name in ("flood", "interview")]})
    elif method == "resources/list":
        send(rid, {"resources": [{"uri": "test://huge", "name": "huge"}]})
    elif method == "resources/templates/list":
        send(rid, {"resourceTemplates": []})
    elif method == "prompts/get" and request["params"]["name"] == "interview":
        place = request["params"].get("arguments", {}).get("x", "")
        send(rid, {"messages": [
            {"role": "user", "content": {"type": "text", "text": f"Plan a trip to {place}"}},
            {"role": "assistant", "content": {"type": "text", "text": "Where from?"}},
            {"role": "assistant", "content": {"type": "text", "text": "And when?"}}]})
    elif method == "prompts/get":
        message = {"role": "user", "content": {"type": "text", "text": "again"}}
        send(rid, {"messages": [message] * COUNT})
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
    elif method == "completion/complete":
        continue
    elif method == "ping":
        send(rid, {})
    else:
        out.write(json.dumps({"jsonrpc": "2.0", "id": rid, "error": {
            "code": -32601, "message": "Method not found"}}).encode() + b"\n")
        out.flush()
