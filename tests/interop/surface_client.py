#!/usr/bin/env python3
"""Interop check of the server surface beyond tools: drive the `everything`
example with the official Python SDK client (PyPI `mcp`) over stdio or
Streamable HTTP, through resources/list, resources/templates/list,
resources/read (text, bytes, a template), a resource subscription
(`resources/subscribe` in the legacy era, `subscriptions/listen` in
2026-07-28) with its update, prompts/list, prompts/get with arguments and
completion/complete (a prompt argument and a template variable).

Usage: python surface_client.py --mode auto|legacy stdio <path/to/everything>
       python surface_client.py --mode auto|legacy http <http://127.0.0.1:PORT/mcp>

Prints one JSON line of what the SDK returned (the Rust test compares it
whole) and exits 0; an exception is printed to stderr, exit 1.
"""

from __future__ import annotations

import json
import sys
import warnings
from importlib.metadata import version as dist_version
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.subscriptions import ResourceUpdated

OVERALL_TIMEOUT_S = 45.0
REQUEST_TIMEOUT_S = 15.0
BONUS = "everything://bonus"
GREETING = "everything://greeting/{language}/{name}"


def dump(model: Any) -> Any:
    """A result as its JSON, as the SDK parsed it."""
    if isinstance(model, list):
        return [dump(m) for m in model]
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


async def run(mode: str, kind: str, target: str, seen: dict[str, Any]) -> None:
    updates: list[str] = []
    updated = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(message.params.uri)
            updated.set()

    server: Any = StdioServerParameters(command=target, args=[]) if kind == "stdio" else target
    async with Client(server, mode=mode, read_timeout_seconds=REQUEST_TIMEOUT_S, message_handler=on_message) as client:
        seen["negotiatedProtocolVersion"] = client.protocol_version
        modern = client.session.discover_result is not None
        seen["era"] = "modern" if modern else "legacy"
        seen["resources"] = dump((await client.list_resources()).resources)
        seen["templates"] = dump((await client.list_resource_templates()).resource_templates)

        async def read(uri: str) -> Any:
            return dump((await client.read_resource(uri)).contents)

        seen["text"] = await read("everything://about")
        seen["binary"] = await read("everything://pixel.png")
        seen["templated"] = await read("everything://greeting/French/Bastien")

        # Subscribed to `everything://bonus`, which `toggle_bonus` updates.
        seen["bonusBefore"] = (await read(BONUS))[0]["text"]
        if modern:
            # The stream's events (the notifications reach `on_message` too).
            events: list[str] = []
            async with client.listen(resource_subscriptions=[BONUS]) as subscription:
                await client.call_tool("toggle_bonus", {})
                async for event in subscription:
                    if isinstance(event, ResourceUpdated):
                        events.append(event.uri)
                        break
            seen["updates"] = events
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await client.subscribe_resource(BONUS)
            await client.call_tool("toggle_bonus", {})
            await updated.wait()
            seen["updates"] = updates
        seen["bonusAfter"] = (await read(BONUS))[0]["text"]

        seen["prompts"] = dump((await client.list_prompts()).prompts)
        got = await client.get_prompt("translate", {"language": "French", "text": "Good morning", "tone": "formal"})
        seen["prompt"] = {"description": got.description, "messages": dump(got.messages)}

        async def complete(ref: Any, name: str, value: str, given: dict[str, str]) -> Any:
            result = await client.complete(ref, {"name": name, "value": value}, given)
            return dump(result.completion)

        template = types.ResourceTemplateReference(uri=GREETING)
        seen["completions"] = {
            "language": await complete(types.PromptReference(name="translate"), "language", "sw", {}),
            "greetingLanguage": await complete(template, "language", "g", {}),
            "greetingName": await complete(template, "name", "B", {"language": "French"}),
        }


def main() -> int:
    argv = sys.argv[1:]
    mode = "auto"
    if len(argv) >= 2 and argv[0] == "--mode":
        mode, argv = argv[1], argv[2:]
    if len(argv) != 2 or argv[0] not in ("stdio", "http"):
        print("usage: python surface_client.py [--mode auto|legacy] stdio <server> | http <url>", file=sys.stderr)
        return 2
    kind, target = argv
    seen: dict[str, Any] = {"client": "python", "sdkVersion": dist_version("mcp"), "transport": kind, "mode": mode}

    async def guarded() -> None:
        with anyio.fail_after(OVERALL_TIMEOUT_S):
            await run(mode, kind, target, seen)

    anyio.run(guarded)
    print(json.dumps(seen, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
