#!/usr/bin/env python3
"""A hand-written 2026-07-28 MCP server (no SDK) that answers `tools/call`
with tasks (the `io.modelcontextprotocol/tasks` extension), over stdio, or
over Streamable HTTP with `--http` (it prints `PORT <n>` once listening).

Every message it receives is appended to the JSON-lines file TASKS_LOG as
{"t": <seconds, monotonic>, "message": ..., "headers": {...}}, so a test
sees what the client sent and when. With TASKS_LEGACY=1 it refuses
`server/discover` and speaks the 2025-11-25 handshake instead.

A call becomes a task only when its `_meta` client capabilities declare
the extension (otherwise the answer is direct, as the spec requires). The
tool's name says what its task does:

- `flow` (poll interval 100 ms, then 200 ms): working "starting", working
  "halfway", input_required {name} until `name` is answered, then
  input_required {name, color} once (a stale `name` beside a new key),
  until `color` is answered, then completed "Hello, <name> (<color>)" with
  structuredContent {"greeting": ...} (the tool's outputSchema);
- `bad-output`: completed at once with structuredContent breaking the
  outputSchema;
- `fail`: failed with JSON-RPC error -32603 "API rate limit exceeded";
- `cancelled`: cancelled by the server ("an operator stopped it");
- `expire`: `tasks/get` answers -32602 (the task has expired);
- `slow` (poll interval 50 ms): working forever, until `tasks/cancel`;
- `stuck` (poll interval 50 ms): as `slow`, but each `tasks/get` takes a
  second to answer (so a timeout or a dropped call finds one in flight);
- `default-interval` (no pollIntervalMs): working once, then completed.
"""

import json
import os
import sys
import threading
import time

LOG = os.environ["TASKS_LOG"]
LEGACY = os.environ.get("TASKS_LEGACY") == "1"
EXTENSION = "io.modelcontextprotocol/tasks"
LOCK = threading.Lock()
TASKS = {}
COUNTER = [0]

GREETING_SCHEMA = {
    "type": "object",
    "properties": {"greeting": {"type": "string"}},
    "required": ["greeting"],
}
TOOLS = [
    {"name": name, "inputSchema": {"type": "object"}}
    for name in ["fail", "cancelled", "expire", "slow", "stuck", "default-interval"]
] + [
    {"name": name, "inputSchema": {"type": "object"}, "outputSchema": GREETING_SCHEMA}
    for name in ["flow", "bad-output"]
]


def log(message, headers):
    with LOCK, open(LOG, "a") as f:
        f.write(json.dumps({"t": time.monotonic(), "message": message, "headers": headers}) + "\n")


def elicit(message, field):
    return {
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": {field: {"type": "string"}},
                "required": [field],
            },
        },
    }


def task_fields(task_id, status, interval, message=None):
    task = {
        "taskId": task_id,
        "status": status,
        "createdAt": "2026-07-28T10:30:00Z",
        "lastUpdatedAt": "2026-07-28T10:30:00Z",
        "ttlMs": 60000,
    }
    if interval is not None:
        task["pollIntervalMs"] = interval
    if message is not None:
        task["statusMessage"] = message
    return task


def declares_tasks(params):
    capabilities = (params.get("_meta") or {}).get("io.modelcontextprotocol/clientCapabilities") or {}
    return EXTENSION in (capabilities.get("extensions") or {})


def text_result(text, structured=None):
    result = {"resultType": "complete", "content": [{"type": "text", "text": text}]}
    if structured is not None:
        result["structuredContent"] = structured
    return result


def call(params):
    tool = params["name"]
    if not declares_tasks(params):
        return text_result("direct: " + tool, {"greeting": "direct"})
    with LOCK:
        COUNTER[0] += 1
        task_id = f"task-{tool}-{COUNTER[0]}"
        TASKS[task_id] = {"tool": tool, "polls": 0, "answers": {}, "cancelled": False}
    interval = {"flow": 100, "default-interval": None}.get(tool, 50)
    result = task_fields(task_id, "working", interval, "accepted")
    result["resultType"] = "task"
    return result


def get(task_id):
    """The task's state at this poll, or a JSON-RPC error."""
    with LOCK:
        task = TASKS.get(task_id)
        if task is None or task["tool"] == "expire":
            return None, {"code": -32602, "message": "Failed to retrieve task: Task has expired"}
        task["polls"] += 1
        polls, answers, tool = task["polls"], task["answers"], task["tool"]
        cancelled = task["cancelled"]
    if tool == "stuck" and not cancelled:
        time.sleep(1)
    if cancelled:
        return task_fields(task_id, "cancelled", 50, "cancelled at the client's request"), None
    if tool == "flow":
        if polls == 1:
            return task_fields(task_id, "working", 100, "starting"), None
        if polls == 2:
            return task_fields(task_id, "working", 200, "halfway"), None
        if "name" not in answers:
            state = task_fields(task_id, "input_required", 200, "waiting for a name")
            state["inputRequests"] = {"name": elicit("Your name?", "name")}
            return state, None
        if "color" not in answers:
            # The snapshot still shows `name` (our answer not yet taken in)
            # beside a new request: only `color` may be answered.
            state = task_fields(task_id, "input_required", 200, "waiting for a colour")
            state["inputRequests"] = {
                "name": elicit("Your name?", "name"),
                "color": elicit("Your colour?", "color"),
            }
            return state, None
        name = answers["name"]["content"]["name"]
        color = answers["color"]["content"]["color"]
        greeting = f"Hello, {name} ({color})"
        state = task_fields(task_id, "completed", 200, "done")
        state["result"] = text_result(greeting, {"greeting": greeting})
        del state["result"]["resultType"]
        return state, None
    if tool == "bad-output":
        state = task_fields(task_id, "completed", 50)
        state["result"] = {"content": [{"type": "text", "text": "5"}], "structuredContent": {"greeting": 5}}
        return state, None
    if tool == "fail":
        state = task_fields(task_id, "failed", 50, "Tool execution failed: API rate limit exceeded")
        state["error"] = {"code": -32603, "message": "API rate limit exceeded", "data": {"retryAfter": 30}}
        return state, None
    if tool == "cancelled":
        return task_fields(task_id, "cancelled", 50, "an operator stopped it"), None
    if tool == "default-interval":
        if polls == 1:
            return task_fields(task_id, "working", None), None
        state = task_fields(task_id, "completed", None)
        state["result"] = {"content": [{"type": "text", "text": "finally"}]}
        return state, None
    return task_fields(task_id, "working", 50, f"still going ({polls})"), None


def handle(message, headers):
    """The answer to one message (None for a notification)."""
    log(message, headers)
    if "id" not in message or "method" not in message:
        return None
    id_, method = message["id"], message["method"]
    params = message.get("params") or {}
    result, error = None, None
    if method == "server/discover" and not LEGACY:
        result = {
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}, "extensions": {EXTENSION: {}}},
            "serverInfo": {"name": "tasks", "version": "1"},
            "ttlMs": 60000,
            "cacheScope": "public",
        }
    elif method == "initialize" and LEGACY:
        result = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "tasks", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
        if not LEGACY:
            result.update({"resultType": "complete", "ttlMs": 60000, "cacheScope": "public"})
    elif method == "tools/call":
        result = call(params)
    elif method == "tasks/get" and not LEGACY:
        state, error = get(params.get("taskId"))
        if state is not None:
            result = dict(state, resultType="complete")
    elif method == "tasks/update" and not LEGACY:
        with LOCK:
            task = TASKS.get(params.get("taskId"))
            if task is None:
                error = {"code": -32602, "message": "Task not found"}
            else:
                for key, answer in (params.get("inputResponses") or {}).items():
                    task["answers"].setdefault(key, answer)
                result = {"resultType": "complete"}
    elif method == "tasks/cancel" and not LEGACY:
        with LOCK:
            task = TASKS.get(params.get("taskId"))
            if task is None:
                error = {"code": -32602, "message": "Task not found"}
            else:
                task["cancelled"] = True
                result = {"resultType": "complete"}
    else:
        error = {"code": -32601, "message": "Method not found"}
    if error is not None:
        return {"jsonrpc": "2.0", "id": id_, "error": error}
    return {"jsonrpc": "2.0", "id": id_, "result": result}


def serve_stdio():
    for line in sys.stdin:
        answer = handle(json.loads(line), {})
        if answer is not None:
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()


def serve_http():
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status, body=b""):
            self.send_response(status)
            if body:
                self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            self.reply(405)

        def do_DELETE(self):
            self.reply(405)

        def do_POST(self):
            length = int(self.headers.get("content-length", "0"))
            message = json.loads(self.rfile.read(length))
            headers = {name.lower(): value for name, value in self.headers.items()}
            answer = handle(message, headers)
            if answer is None:
                self.reply(202)
            else:
                self.reply(200, json.dumps(answer).encode())

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    if "--http" in sys.argv:
        serve_http()
    else:
        serve_stdio()
