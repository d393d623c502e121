#!/usr/bin/env python3
"""Interop check: drive an mcp-runtime stdio server (the `everything` example)
with the official Python MCP SDK client (PyPI `mcp`).

Usage: python client.py [--mode auto|legacy|2026-07-28] <path/to/everything> [server args...]

By default the client connects with the SDK's default ``mode="auto"``: it
probes ``server/discover`` at the newest modern version (2026-07-28) and falls
back to the ``initialize`` handshake if the server does not answer as a modern
server. ``--mode legacy`` forces the ``initialize`` handshake.

On success prints exactly one JSON line to stdout, e.g.
  {"client":"python","sdkVersion":"2.3.0","negotiatedProtocolVersion":"2026-07-28","checks":42,...}
and exits 0. On any failed check, prints every failure to stderr and exits 1.
"""

from __future__ import annotations

import json
import math
import re
import sys
import time
from importlib.metadata import version as dist_version
from typing import Any

import anyio
from mcp import Client, MCPError, StdioServerParameters

OVERALL_TIMEOUT_S = 45.0
REQUEST_TIMEOUT_S = 15.0
EXPECTED_TOOLS = ["add", "echo", "fail", "slow", "panic", "get_weather_data"]


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


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in (result.content or []) if getattr(c, "type", None) == "text")


async def run(mode: str, server: list[str], check: Checks, info: dict[str, Any]) -> None:
    params = StdioServerParameters(command=server[0], args=server[1:])
    async with Client(params, mode=mode, read_timeout_seconds=REQUEST_TIMEOUT_S) as client:
        session = client.session
        info["negotiatedProtocolVersion"] = client.protocol_version
        info["era"] = "modern" if session.discover_result is not None else "legacy"
        if session.discover_result is not None:
            info["supportedVersions"] = list(session.discover_result.supported_versions)
        server_info = client.server_info
        info["serverInfo"] = server_info.model_dump(exclude_none=True) if server_info else None
        check(server_info is not None and server_info.name == "everything", "server identifies as everything", server_info)
        check(client.server_capabilities.tools is not None, "server advertises the tools capability", client.server_capabilities)

        async def call(name: str, args: dict[str, Any], what: str) -> Any:
            try:
                return await client.call_tool(name, args)
            except Exception as e:  # noqa: BLE001 - every failure is a check failure here
                check(False, f"{what}: tools/call {name} {_show(args)} raised", e)
                return None

        def structured(result: Any, what: str) -> Any:
            """structuredContent of a successful result, checked against its text mirror."""
            if result is None or not check(not result.is_error, f"{what}: not isError", result):
                return None
            sc = result.structured_content
            if not check(isinstance(sc, dict), f"{what}: structuredContent is an object", result):
                return None
            texts = [c.text for c in result.content if c.type == "text"]
            if check(texts, f"{what}: has a text block mirroring structuredContent", result):
                try:
                    parsed: Any = json.loads(texts[0])
                except ValueError as e:
                    parsed = e
                check(
                    parsed == sc,
                    f"{what}: text block parses to the same JSON as structuredContent",
                    {"text": texts[0], "structuredContent": sc},
                )
            return sc

        # tools/list -----------------------------------------------------------
        tools: list[Any] = []
        try:
            cursor = None
            while True:
                page = await client.list_tools(cursor=cursor)
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
        except Exception as e:  # noqa: BLE001
            check(False, "tools/list raised", e)
        by_name = {t.name: t for t in tools}
        for name in EXPECTED_TOOLS:
            check(name in by_name, f"tools/list contains {name}", sorted(by_name))
        add_schema = by_name["add"].output_schema if "add" in by_name else None
        check(
            isinstance(add_schema, dict) and add_schema.get("type") == "object" and "sum" in add_schema.get("properties", {}),
            "add has an outputSchema with a `sum` property",
            add_schema,
        )
        weather = by_name.get("get_weather_data")
        check(weather is not None and isinstance(weather.output_schema, dict), "get_weather_data has an outputSchema", weather)

        # add ------------------------------------------------------------------
        sc = structured(await call("add", {"a": 2, "b": 3}, "add 2+3"), "add 2+3")
        check(sc is not None and sc.get("sum") == 5, "add 2+3: structuredContent.sum == 5", sc)

        # echo -----------------------------------------------------------------
        text = 'hello, interop \u2713 "quoted" \\ back'
        r = await call("echo", {"text": text}, "echo")
        if r is not None:
            check(not r.is_error, "echo: not isError", r)
            check(text_of(r) == text, "echo: returns the same text", r)

        # fail -----------------------------------------------------------------
        r = await call("fail", {}, "fail")
        if r is not None:
            check(r.is_error is True, "fail: isError is true", r)
            check(text_of(r), "fail: carries an explanatory text block", r)
            check(r.structured_content is None, "fail: no structuredContent on an error result", r)

        # get_weather_data -----------------------------------------------------
        m = structured(await call("get_weather_data", {"location": "Amsterdam"}, "weather (default units)"), "weather (default units)")
        i = structured(
            await call("get_weather_data", {"location": "Amsterdam", "units": "imperial"}, "weather (imperial)"),
            "weather (imperial)",
        )
        for w, units, what in ((m, "metric", "weather (default units)"), (i, "imperial", "weather (imperial)")):
            if w is None:
                continue
            check(w.get("location") == "Amsterdam", f"{what}: location echoed", w)
            check(w.get("units") == units, f"{what}: units == {units}", w)
            check(
                isinstance(w.get("temperature"), (int, float)) and isinstance(w.get("wind_speed"), (int, float)),
                f"{what}: numeric temperature and wind_speed",
                w,
            )
            check(isinstance(w.get("conditions"), str) and w["conditions"], f"{what}: conditions is a non-empty string", w)
        if m is not None and i is not None:
            check(
                math.isclose(m["temperature"] * 9 / 5 + 32, i["temperature"], abs_tol=1e-9),
                "weather: imperial temperature is the metric one converted to Fahrenheit",
                {"metric": m, "imperial": i},
            )
            check(m.get("conditions") == i.get("conditions"), "weather: same conditions in both unit systems", {"metric": m, "imperial": i})

        # add with a bad argument (SEP-1303: isError naming the argument) --------
        r = await call("add", {"a": "x", "b": 3}, 'add a:"x"')
        if r is not None:
            check(r.is_error is True, 'add a:"x": isError is true', r)
            check(re.search(r"(^|[^A-Za-z0-9_])a([^A-Za-z0-9_]|$)", text_of(r)), 'add a:"x": error message names `a`', text_of(r))

        # panic, then the server must still answer -------------------------------
        r = await call("panic", {}, "panic")
        if r is not None:
            check(r.is_error is True, "panic: isError is true", r)
            check(text_of(r), "panic: carries an explanatory text block", r)
        r = await call("add", {"a": 40, "b": 2}, "add after panic")
        if r is not None:
            check((r.structured_content or {}).get("sum") == 42, "server still answers after a panic (add 40+2 == 42)", r)

        # unknown tool ---------------------------------------------------------
        try:
            r = await client.call_tool("no_such_tool", {})
            check(False, "unknown tool: expected a JSON-RPC error (-32602), got a result", r)
        except MCPError as e:
            check(e.code == -32602, "unknown tool: error code is -32602 (invalid params)", {"code": e.code, "message": e.message})
            check("no_such_tool" in e.message, "unknown tool: error message names the tool", e.message)
        except Exception as e:  # noqa: BLE001
            check(False, "unknown tool: rejected with a JSON-RPC error (MCPError)", e)

        # 3 concurrent slow calls must overlap ---------------------------------
        results: list[Any] = [None, None, None]

        async def slow(idx: int) -> None:
            results[idx] = await call("slow", {"ms": 300}, f"slow #{idx}")

        started = time.monotonic()
        async with anyio.create_task_group() as tg:
            for idx in range(3):
                tg.start_soon(slow, idx)
        elapsed_ms = (time.monotonic() - started) * 1000
        for idx, r in enumerate(results):
            if r is None:
                continue
            check(not r.is_error, f"slow #{idx}: not isError", r)
            check(r.structured_content == {"ms": 300, "steps": 1}, f"slow #{idx}: structuredContent == {{ms:300, steps:1}}", r.structured_content)
        check(elapsed_ms >= 290, "3 concurrent slow(300) calls took at least 300 ms", f"{elapsed_ms:.0f} ms")
        check(elapsed_ms < 800, "3 concurrent slow(300) calls overlap (wall time < 800 ms)", f"{elapsed_ms:.0f} ms")


def main() -> int:
    argv = sys.argv[1:]
    mode = "auto"
    if len(argv) >= 2 and argv[0] == "--mode":
        mode, argv = argv[1], argv[2:]
    if not argv:
        print("usage: python client.py [--mode auto|legacy|2026-07-28] <path/to/everything> [args...]", file=sys.stderr)
        return 2
    check = Checks()
    info: dict[str, Any] = {"negotiatedProtocolVersion": None, "mode": mode}

    async def guarded() -> None:
        with anyio.move_on_after(OVERALL_TIMEOUT_S) as scope:
            await run(mode, argv, check, info)
        if scope.cancelled_caught:
            check(False, f"overall timeout: the run did not finish within {OVERALL_TIMEOUT_S} s (server hang?)")

    try:
        anyio.run(guarded)
    except BaseException as e:  # noqa: BLE001 - report connect/transport failures as a failed check
        groups = getattr(e, "exceptions", None)
        check(False, "client run raised", groups[0] if groups else e)

    if check.failures:
        print(f"python interop (mode={mode}): {len(check.failures)} of {check.count} checks failed:", file=sys.stderr)
        for f in check.failures:
            print(f"  - {f}", file=sys.stderr)
        return 1
    out = {
        "client": "python",
        "sdkVersion": dist_version("mcp"),
        "negotiatedProtocolVersion": info.pop("negotiatedProtocolVersion"),
        "checks": check.count,
        **info,
    }
    print(json.dumps(out, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
