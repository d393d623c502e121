#!/usr/bin/env python3
"""Load from the official Python SDK client (PyPI `mcp`, pinned in
tests/interop/requirements.txt): the same pattern as
`bench/src/bin/client-load.rs`, CALLS `add` calls with INFLIGHT in flight on
one connection, every answer checked, then one JSON line on stdout (`rss_kib`:
this process's peak RSS).

Usage: python py_client.py (--stdio SERVER | --http URL) MODE CALLS INFLIGHT
MODE: auto (2026-07-28 when the server speaks it) or legacy.
"""

import json
import os
import resource
import sys
import time

import anyio
from mcp import Client, StdioServerParameters


async def main(kind: str, target: str, mode: str, calls: int, inflight: int) -> None:
    # The whole environment (the SDK passes only a safe subset by default):
    # `clients` sets `RATE_LIMIT=off` there for the server.
    server = StdioServerParameters(command=target, args=[], env=dict(os.environ)) if kind == "--stdio" else target
    async with Client(server, mode=mode) as client:
        await client.list_tools()
        latencies: list[float] = []
        counter = iter(range(calls))

        async def worker() -> None:
            for i in counter:
                at = time.perf_counter()
                result = await client.call_tool("add", {"a": i, "b": 1})
                latencies.append((time.perf_counter() - at) * 1e6)
                got = (result.structured_content or {}).get("sum")
                if got != i + 1:
                    raise AssertionError(f"call {i}: {result}")

        started = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for _ in range(inflight):
                tg.start_soon(worker)
        secs = time.perf_counter() - started
        latencies.sort()

        def at(q: float) -> float:
            return latencies[min(len(latencies) - 1, int(len(latencies) * q))]

        print(
            json.dumps(
                {
                    "calls": calls,
                    "secs": secs,
                    "calls_per_s": calls / secs,
                    "p50_us": at(0.5),
                    "p99_us": at(0.99),
                    "rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                    "version": str(client.protocol_version),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    kind, target, mode, calls, inflight = sys.argv[1:6]
    anyio.run(main, kind, target, mode, int(calls), int(inflight))
