#!/usr/bin/env python3
"""A hand-written legacy stdio MCP server (no SDK) for the tests of what a
server process gets and how it ends (tests/suite/host_process.rs). Every start
appends "PID PGID server" to PROC_DIR/pids (when PROC_DIR is set). Tools
(each name prefixed with PREFIX, if set):

- `env`: answers "ENV " and the JSON of its whole environment;
- `exit`: the process exits with status 3 at once, unanswered;
- `starts`: answers how many times it was started (PROC_DIR/pids lines);
- `brief`: double-forks a grandchild that appends "PID PGID brief" to
  PROC_DIR/pids and exits 0.2 s later (an orphan the host adopts and must
  reap), and answers "forked".

PROC modes (several may be given, comma-separated):

- `orphan`: at start, runs `sleep 1000` in the background holding its
  stdout and stderr, and appends "PID PGID child" to PROC_DIR/pids;
- `daemon`: at start, double-forks a `sleep 1000` that leaves the process
  group with setsid and holds stdout and stderr, and appends
  "PID PGID daemon" to PROC_DIR/pids;
- `save`: at the end of stdin, takes 0.5 s, then writes PROC_DIR/state;
- `stubborn`: ignores SIGTERM, and at the end of stdin sleeps on;
- `slow`: sleeps 1000 s before it reads anything;
- `flood`: for FLOOD_SECS seconds (default 3) writes lines of FLOOD_BYTES
  (default 1 MiB) to stderr and `notifications/message` with data of that
  size on stdout, each from its own thread, as fast as they are read.
- `requests`: a call of its `requests` tool writes FLOOD_REQUESTS
  requests (default 300,000: ping, sampling/createMessage,
  elicitation/create and roots/list in turn) as fast as they are read,
  then never reads its stdin again nor answers the call (it appends
  "PID PGID flooding" to PROC_DIR/pids as it starts, "flooded" once
  done);
- `junk`: for FLOOD_SECS seconds writes to stdout, as fast as they are
  read, lines that are not JSON-RPC and answers to ids never sent (each
  id 64 KiB long).
- `http`: a legacy Streamable HTTP server on 127.0.0.1 instead (its port
  the first line of its stdout), with a session, whose GET stream sends
  `notifications/message` with data of FLOOD_BYTES for FLOOD_SECS seconds.
Every other request gets -32601 (so `server/discover` falls back).
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time

MODES = set(filter(None, os.environ.get("PROC", "").split(",")))
DIR = os.environ.get("PROC_DIR")
LOCK = threading.Lock()


PREFIX = os.environ.get("PREFIX", "")


def record(pid, kind):
    if DIR:
        with open(os.path.join(DIR, "pids"), "a") as f:
            f.write(f"{pid} {os.getpgid(pid)} {kind}\n")


def starts():
    with open(os.path.join(DIR, "pids")) as f:
        return sum(1 for line in f if line.split()[2:] == ["server"])


def send(message):
    with LOCK:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


record(os.getpid(), "server")
if "orphan" in MODES:
    child = subprocess.Popen(["sleep", "1000"], stdin=subprocess.DEVNULL)
    record(child.pid, "child")
if "daemon" in MODES:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            record(os.getpid(), "daemon")
            os.execvp("sleep", ["sleep", "1000"])
        os._exit(0)
    os.wait()
if "stubborn" in MODES:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if "slow" in MODES:
    time.sleep(1000)


LINE = "x" * int(os.environ.get("FLOOD_BYTES", str(1 << 20)))
FLOOD_END = time.monotonic() + float(os.environ.get("FLOOD_SECS", "3"))


def flood_stderr():
    while time.monotonic() < FLOOD_END:
        sys.stderr.write(LINE + "\n")
        sys.stderr.flush()


def flood_notifications():
    message = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                          "params": {"level": "info", "data": LINE}})
    while time.monotonic() < FLOOD_END:
        with LOCK:
            sys.stdout.write(message + "\n")
            sys.stdout.flush()


def flood_junk():
    unknown = json.dumps({"jsonrpc": "2.0", "id": "i" * 65536, "result": {}})
    while time.monotonic() < FLOOD_END:
        with LOCK:
            sys.stdout.write("{not json\n" + unknown + "\n")
            sys.stdout.flush()


TOOLS = [{"name": PREFIX + name, "inputSchema": {"type": "object"}}
         for name in ("env", "exit", "starts", "requests", "brief")]


def fork_brief():
    first = os.fork()
    if first == 0:
        if os.fork() == 0:
            record(os.getpid(), "brief")
            time.sleep(0.2)
        os._exit(0)
    os.waitpid(first, 0)


def flood_requests():
    methods = [("ping", None),
               ("sampling/createMessage", {"messages": [], "maxTokens": 1}),
               ("elicitation/create", {"message": "?", "requestedSchema": {
                   "type": "object", "properties": {}}}),
               ("roots/list", None)]
    record(os.getpid(), "flooding")
    lines = []
    for i in range(int(os.environ.get("FLOOD_REQUESTS", "300000"))):
        method, params = methods[i % len(methods)]
        request = {"jsonrpc": "2.0", "id": f"r{i}", "method": method}
        if params is not None:
            request["params"] = params
        lines.append(json.dumps(request))
        if len(lines) == 1000:
            sys.stdout.write("\n".join(lines) + "\n")
            sys.stdout.flush()
            lines = []
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
    record(os.getpid(), "flooded")
    # Never reads its stdin again.
    while True:
        time.sleep(1000)


def answer(message):
    """The answer to a request (None to answer nothing)."""
    id_, method = message["id"], message.get("method")
    if method == "initialize":
        return {"jsonrpc": "2.0", "id": id_, "result": {
            "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
            "serverInfo": {"name": "proc", "version": "1"}}}
    if method == "tools/list":
        return {"jsonrpc": "2.0", "id": id_, "result": {"tools": TOOLS}}
    if method == "tools/call":
        name = message["params"]["name"][len(PREFIX):]
        if name == "exit":
            os._exit(3)
        if name == "requests" and "requests" in MODES:
            flood_requests()
        if name == "brief":
            fork_brief()
            text = "forked"
        elif name == "env":
            text = "ENV " + json.dumps(dict(os.environ))
        else:
            text = str(starts())
        return {"jsonrpc": "2.0", "id": id_, "result": {
            "content": [{"type": "text", "text": text}]}}
    return {"jsonrpc": "2.0", "id": id_, "error": {
        "code": -32601, "message": f"Method not found: {method}"}}


if "http" in MODES:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            message = json.loads(body)
            if "id" not in message:
                self.send_response(202)
                self.send_header("content-length", "0")
                self.end_headers()
                return
            out = json.dumps(answer(message)).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            if message.get("method") == "initialize":
                self.send_header("mcp-session-id", "session-1")
            self.end_headers()
            self.wfile.write(out)

        def do_GET(self):
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            event = ("data: " + json.dumps({
                "jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "info", "data": LINE}}) + "\n\n").encode()
            end = time.monotonic() + float(os.environ.get("FLOOD_SECS", "3"))
            try:
                while time.monotonic() < end:
                    self.wfile.write(event)
                    self.wfile.flush()
            except OSError:
                pass

        def do_DELETE(self):
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()

for raw in sys.stdin:
    message = json.loads(raw)
    if "id" not in message:
        continue
    send(answer(message))
    if message.get("method") == "initialize" and "flood" in MODES:
        threading.Thread(target=flood_stderr, daemon=True).start()
        threading.Thread(target=flood_notifications, daemon=True).start()
    if message.get("method") == "initialize" and "junk" in MODES:
        threading.Thread(target=flood_junk, daemon=True).start()

# The end of stdin.
if "flood" in MODES or "junk" in MODES:
    # Not a wait for the flooding threads.
    os._exit(0)
if "save" in MODES:
    time.sleep(0.5)
    with open(os.path.join(DIR, "state"), "w") as f:
        f.write("saved")
if "stubborn" in MODES:
    while True:
        time.sleep(1000)
