"""The line parser of ``mcp.client.stdio`` (the stdio client of ``mcp`` and fastmcp): each line
the server writes is framed and parsed by :class:`mcp_native.jsonrpc.Decoder` instead of
pydantic (about 4x faster on a 64 KB tool result), then handed to the session as the same
``SessionMessage``. A line that is not a valid message is returned as a ``ValueError`` and
logged, as the stock parser does with its pydantic error."""

from __future__ import annotations

import logging

from mcp.shared.message import SessionMessage

from .. import jsonrpc
from ._wire import sdk_message

# The stock parser's logger.
logger = logging.getLogger("mcp.client.stdio")


def parse_line(line: str) -> SessionMessage | Exception:
    """Parses one stdout line, returning parse errors as values for the session to surface."""
    items = jsonrpc.Decoder().feed(line.encode("utf-8", "surrogatepass") + b"\n")
    if not items:
        problem = "an empty line"
    elif isinstance(items[0], jsonrpc.Invalid):
        problem = f"{items[0].message}: {items[0].error.get('data')}"
    else:
        return SessionMessage(sdk_message(items[0]))
    logger.error("Failed to parse JSONRPC message from server: %s", problem)
    return ValueError(f"invalid JSON-RPC message from the server: {problem}")
