#!/usr/bin/env python3
"""A stdio (or, with `--http PORT`, Streamable HTTP) MCP server written with the official Python SDK (PyPI `mcp`), for
mcp-host's client interop tests. Tools: `add` (structured output), `greet`
(text), `e__add` (a name that collides with the prefixed `add` of a server
called `e`, for the catalog's reserved prefixes)."""

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

server = MCPServer("python-interop")


class Sum(BaseModel):
    sum: float


@server.tool()
def add(a: float, b: float) -> Sum:
    """Add two numbers."""
    return Sum(sum=a + b)


@server.tool()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}!"


@server.tool()
def e__add(a: float, b: float) -> str:
    """Add two numbers, as text."""
    return str(a + b)


if __name__ == "__main__":
    import sys

    # `--http PORT`: Streamable HTTP at http://127.0.0.1:PORT/mcp.
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
