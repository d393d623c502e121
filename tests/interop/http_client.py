#!/usr/bin/env python3
"""Interop check over Streamable HTTP: drive an mcp-runtime HTTP server (the
`everything` example run with ``--http ADDR``) with the official Python MCP SDK
client (PyPI `mcp`).

Usage: python http_client.py [--mode auto|legacy] http://127.0.0.1:PORT/mcp

``--mode auto`` (the SDK default) connects with ``mcp.Client(url)``: it probes
``server/discover`` at 2026-07-28 and falls back to ``initialize`` if the server
does not answer as a modern server. It then calls ``locate``, whose arguments
the client mirrors into ``Mcp-Param-Region``/``Mcp-Param-Shard`` headers (a
non-ASCII region goes in the ``=?base64?...?=`` sentinel); the server refuses
such a call without matching headers, so success shows they were sent. A second
connection through an httpx2 client with a request hook records the headers
themselves. The auto run also books a table for 10 (two elicitation rounds,
answered by an elicitation callback) and follows a slow call's progress.
``--mode legacy`` forces the ``initialize`` handshake over the
streamable HTTP transport.

On success prints exactly one JSON line to stdout, e.g.
  {"client":"python-http","sdkVersion":"2.3.0","negotiatedProtocolVersion":"2026-07-28","checks":20,...}
and exits 0. On any failed check, prints every failure to stderr and exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib.metadata import version as dist_version
from typing import Any

import anyio
import httpx2
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client

OVERALL_TIMEOUT_S = 45.0
REQUEST_TIMEOUT_S = 15.0
# A region that is not visible ASCII, so the client must use the base64 sentinel.
UNICODE_REGION = "São Paulo ☀"


class Checks:
    def __init__(self) -> None:
        self.count = 0
        self.failures: list[str] = []

    def __call__(self, cond: object, what: str, detail: object = None) -> bool:
        self.count += 1
        if not cond:
            self.failures.append(what if detail is None else f"{what}: {_show(detail)}")
        return bool(cond)


def _show(v: object) -> str:
    if isinstance(v, BaseException):
        return f"{type(v).__name__}: {v}"
    dump = getattr(v, "model_dump", None)
    if callable(dump):
        v = dump(by_alias=True, exclude_none=True, mode="json")
    try:
        return json.dumps(v, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(v)


async def call(client: Client, check: Checks, name: str, args: dict[str, Any], what: str) -> Any:
    try:
        return await client.call_tool(name, args)
    except Exception as e:  # noqa: BLE001 - every failure is a check failure here
        check(False, f"{what}: tools/call {name} {_show(args)} raised", e)
        return None


async def list_and_add(client: Client, check: Checks, info: dict[str, Any]) -> None:
    info["negotiatedProtocolVersion"] = client.protocol_version
    info["era"] = "modern" if client.session.discover_result is not None else "legacy"
    server_info = client.server_info
    check(server_info is not None and server_info.name == "everything", "server identifies as everything", server_info)
    try:
        listed = await client.list_tools()
        info["tools"] = sorted(t.name for t in listed.tools)
    except Exception as e:  # noqa: BLE001
        check(False, "tools/list raised", e)
    check("add" in info.get("tools", []), "tools/list contains add", info.get("tools"))
    r = await call(client, check, "add", {"a": 2, "b": 3}, "add 2+3")
    check(r is not None and not r.is_error and r.structured_content == {"sum": 5}, "add 2+3 == 5", r)


async def locate(client: Client, check: Checks, info: dict[str, Any]) -> None:
    located = []
    for args in ({"region": "eu-west1", "shard": 7}, {"region": UNICODE_REGION}):
        r = await call(client, check, "locate", args, f"locate {args}")
        ok = r is not None and not r.is_error
        check(ok, f"locate {args}: succeeds", r)
        if ok:
            located.append(r.structured_content)
    info["located"] = located


async def run_auto(url: str, check: Checks, info: dict[str, Any]) -> None:
    questions: list[str] = []

    async def elicit(_context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        # `book_table` asks for a name, then (a party of more than 8) for a deposit.
        questions.append(params.message)
        content = {"pay": True} if "deposit" in params.message else {"name": "Grace"}
        return types.ElicitResult(action="accept", content=content)

    async with Client(url, read_timeout_seconds=REQUEST_TIMEOUT_S, elicitation_callback=elicit) as client:
        await list_and_add(client, check, info)
        await locate(client, check, info)
        # Two input-required rounds over HTTP: the second retry carries the
        # requestState that seals the first answer.
        r = await call(client, check, "book_table", {"party": 10}, "book_table party 10")
        check(r is not None and not r.is_error, "book_table party 10: not isError", r)
        info["booking"] = r.structured_content if r is not None else None
        info["elicitations"] = questions
        progress: list[list[float | None]] = []

        async def on_progress(value: float, total: float | None, _message: str | None) -> None:
            progress.append([value, total])

        try:
            r = await client.call_tool("slow", {"ms": 300, "steps": 3}, progress_callback=on_progress)
            check(not r.is_error, "slow with progress: not isError", r)
        except Exception as e:  # noqa: BLE001
            check(False, "slow with progress raised", e)
        info["progress"] = progress

    # The same calls through an httpx2 client whose request hook records the
    # routing headers of every tools/call.
    sent: list[dict[str, str]] = []

    async def record(request: httpx2.Request) -> None:
        if request.headers.get("mcp-method") == "tools/call":
            sent.append({k.lower(): v for k, v in request.headers.items() if k.lower().startswith("mcp-")})

    async with httpx2.AsyncClient(event_hooks={"request": [record]}) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, read_timeout_seconds=REQUEST_TIMEOUT_S) as client:
            await locate(client, check, {})
    info["toolsCallHeaders"] = sent


async def run_legacy(url: str, check: Checks, info: dict[str, Any]) -> None:
    async with Client(url, mode="legacy", read_timeout_seconds=REQUEST_TIMEOUT_S) as client:
        await list_and_add(client, check, info)


async def main_async(mode: str, url: str, check: Checks, info: dict[str, Any]) -> None:
    with anyio.fail_after(OVERALL_TIMEOUT_S):
        if mode == "auto":
            await run_auto(url, check, info)
        else:
            await run_legacy(url, check, info)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["auto", "legacy"], default="auto")
    parser.add_argument("url")
    args = parser.parse_args()
    check = Checks()
    info: dict[str, Any] = {"client": "python-http", "sdkVersion": dist_version("mcp"), "mode": args.mode}
    try:
        anyio.run(main_async, args.mode, args.url, check, info)
    except BaseException as e:  # noqa: BLE001 - a crash is a failed check, reported below
        check(False, "client run raised", e)
    if check.failures:
        print(f"python http interop: {len(check.failures)} of {check.count} checks failed:", file=sys.stderr)
        for f in check.failures:
            print(f"  - {f}", file=sys.stderr)
        return 1
    info["checks"] = check.count
    print(json.dumps(info, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
