"""mcp 1.x: FastMCP's tool results (``mcp.server.fastmcp``) written once, and sent without the
session's second dump.

Stock, FastMCP 1.x's ``FuncMetadata.convert_result`` writes the text mirror from the raw return
value with pydantic-core (``_convert_to_content``: pretty-printed, a block per list or tuple
item), then validates and dumps the value with the output model (``structuredContent``); the
low-level ``call_tool`` handler builds a ``CallToolResult`` of the two, and
``BaseSession._send_response`` dumps the whole result once more (``exclude_none``) before the
transport writes the message.

Here, for a tool with an output schema whose return value is a dict, list, tuple, str, number,
bool, ``None``, pydantic model or dataclass (the rules of ``adapters._engines.mirror``, MCPServer's):

- the output model validates and dumps the value as stock does (same coercions; on any error
  the stock conversion runs, so that the error is stock's), or a native copy of a value the
  model would give back unchanged (``adapters._engines.outputs``, as on mcp 2.x);
- the mirror has stock's blocks, each value's JSON written natively from its counterpart in
  ``structuredContent`` in pydantic-core's layout (``indent=2``): stock's text byte for byte
  for a value that already matches its model (where the model coerced or dropped something,
  the mirror shows what ``structuredContent`` holds, as on mcp 2.x);
- ``_send_response`` sends a ``tools/call`` result whose blocks are that marked mirror of its
  ``structuredContent`` (fastmcp 3.x marks its results too, ``adapters.fastmcp3.server``, and
  the low-level handler a dict result's mirror, ``adapters.mcp1.lowlevel``) as
  the dict stock's dump gives, key order and ``exclude_none`` included, without dumping it.

Anything else (content blocks, ``Image``/``Audio``, a ``CallToolResult``, results changed
since, values JSON cannot hold) takes the stock path.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from mcp.shared.message import SessionMessage

from .._engines.mirror import json_block, proven_result, server_mirror
from .._engines.outputs import exact_copy

# mcp 1.x's models (mypy checks this package against mcp 2.x, whose mcp.types differ).
types: Any = importlib.import_module("mcp.types")

stock_convert_result: Callable[[Any, Any], Any] | None = None  # set by install()
stock_send_response: Callable[..., Any] | None = None  # set by install()
mirror_indent: int | None = 2  # install(mirror="compact") sets None


def convert_result(self: Any, result: Any) -> Any:
    """``FuncMetadata.convert_result`` with the text mirror written natively and marked."""
    assert stock_convert_result is not None
    output_model = self.output_model if self.output_schema is not None else None
    kind = type(result)
    if output_model is None or not (kind is list or kind is tuple or kind is str or result is None or json_block(kind)):
        return stock_convert_result(self, result)  # content blocks, Image, a CallToolResult, ...
    value = {"result": result} if self.wrap_output else result
    structured = exact_copy(output_model, value)  # what the model's validation and dump give back, if proven
    if structured is None:
        try:
            structured = output_model.model_validate(value).model_dump(mode="json", by_alias=True)
        except Exception:
            return stock_convert_result(self, result)  # stock's own error, from where stock raises it
    blocks = server_mirror(result, structured, self.wrap_output, mirror_indent)
    return stock_convert_result(self, result) if blocks is None else (blocks, structured)


def _wire(response: Any) -> dict[str, Any] | None:
    """``response.model_dump(by_alias=True, mode="json", exclude_none=True)`` of a result whose
    blocks are a marked mirror of its structuredContent (JSON-native, so the dump would copy it
    as it is), or None."""
    result: Any = response.root if type(response) is types.ServerResult else None
    if (
        type(result) is not types.CallToolResult
        or (proven := proven_result(result, "structuredContent", "isError")) is None
    ):
        return None
    meta, blocks = proven
    # The models' field order: Result's _meta, then content, structuredContent, isError.
    wire = {
        "content": [{"type": "text", "text": b.text} for b in blocks],
        "structuredContent": result.structuredContent,
    }
    wire["isError"] = False
    return wire if meta is None else {"_meta": meta, **wire}


async def send_response(self: Any, request_id: Any, response: Any) -> None:
    """``BaseSession._send_response``: a result proven by its marked mirror goes out undumped."""
    assert stock_send_response is not None
    wire = _wire(response)
    if wire is None:
        return await stock_send_response(self, request_id, response)  # type: ignore[no-any-return]
    jsonrpc_response = types.JSONRPCResponse(jsonrpc="2.0", id=request_id, result=wire)
    await self._write_stream.send(SessionMessage(message=types.JSONRPCMessage(jsonrpc_response)))
