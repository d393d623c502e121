#!/usr/bin/env python3
"""A hand-written legacy stdio MCP server (no SDK) for the tests of what a
server process gets and how it ends (tests/host_process.rs). Every start
appends "PID PGID server" to PROC_DIR/pids (when PROC_DIR is set). Tools
(each name prefixed with PREFIX, if set):

- `env`: answers "ENV " and the JSON of its whole environment;
- `exit`: the process exits with status 3 at once, unanswered;
- `starts`: answers how many times it was started (PROC_DIR/pids lines).

PROC modes (several may be given, comma-separated):

- `orphan`: at start, runs `sleep 1000` in the background holding its
  stdout and stderr, and appends "PID PGID child" to PROC_DIR/pids;
- `save`: at the end of stdin, takes 0.5 s, then writes PROC_DIR/state;
- `stubborn`: ignores SIGTERM, and at the end of stdin sleeps on;
- `flood`: for FLOOD_SECS seconds (default 3) writes lines of FLOOD_BYTES
  (default 1 MiB) to stderr and `notifications/message` with data of that
  size on stdout, each from its own thread, as fast as they are read.
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
if "stubborn" in MODES:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


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


TOOLS = [{"name": PREFIX + name, "inputSchema": {"type": "object"}}
         for name in ("env", "exit", "starts")]

for raw in sys.stdin:
    message = json.loads(raw)
    if "id" not in message:
        continue
    id_, method = message["id"], message.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": id_, "result": {
            "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
            "serverInfo": {"name": "proc", "version": "1"}}})
        if "flood" in MODES:
            threading.Thread(target=flood_stderr, daemon=True).start()
            threading.Thread(target=flood_notifications, daemon=True).start()
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": id_, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        name = message["params"]["name"][len(PREFIX):]
        if name == "exit":
            os._exit(3)
        text = ("ENV " + json.dumps(dict(os.environ))) if name == "env" \
            else str(starts())
        send({"jsonrpc": "2.0", "id": id_, "result": {
            "content": [{"type": "text", "text": text}]}})
    else:
        send({"jsonrpc": "2.0", "id": id_, "error": {
            "code": -32601, "message": f"Method not found: {method}"}})

# The end of stdin.
if "flood" in MODES:
    # Not a wait for the flooding threads.
    os._exit(0)
if "save" in MODES:
    time.sleep(0.5)
    with open(os.path.join(DIR, "state"), "w") as f:
        f.write("saved")
if "stubborn" in MODES:
    while True:
        time.sleep(1000)
