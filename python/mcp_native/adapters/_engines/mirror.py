"""The text mirror of a tool's result, written natively and marked, shared by the result adapters
of every SDK line (MCPServer and fastmcp on mcp 2.x, FastMCP and fastmcp on mcp 1.x).

A block this package wrote as the mirror of a ``structuredContent`` dict is marked, while it
lives, with the members of that dict: a result whose blocks and members are still those very
objects holds a JSON-native ``structuredContent`` (the JSON dump of a validated value, or on the
mcp 1.x low-level server a dict the native encoder has just written) and blocks with nothing
else set, so it can go on the wire as the dict its model's dump would give,
without being validated and dumped again (:func:`proven_blocks`).
"""

from __future__ import annotations

import dataclasses
import functools
import weakref
from itertools import repeat
from operator import is_
from typing import Any, get_args

from mcp.types import ContentBlock, TextContent
from pydantic import BaseModel

from ..._core import model_copies, pydantic_json_text

# id(first block) -> (weak reference to it, the mirror's other blocks, the members of the
# structuredContent it mirrors), for the text blocks this package wrote, while they live.
_Proof = tuple[weakref.ref[TextContent], tuple[TextContent, ...], tuple[tuple[str, Any], ...]]
_proven: dict[int, _Proof] = {}
# The JSON values whose block MCPServer writes with pydantic-core (a str is its own text).
_JSON_SCALARS = (dict, int, float, bool)
# What TextContent(type="text", text=t) builds, copied natively with each text: a list of 200
# in 45% of the time pydantic takes to validate them.
_TEXT_BLOCK = TextContent(type="text", text="")
# The block types the SDKs pass on as they are (ContentBlock is their union).
_CONTENT_CLASSES: tuple[type, ...] = get_args(ContentBlock) or (ContentBlock,)


def copies_are_built() -> bool:
    """Whether a copy of ``_TEXT_BLOCK`` given a text is what ``TextContent`` builds from it.
    ``model_copies`` validates nothing: a ``TextContent`` whose validation changed a text, or
    that gained a private attribute, is built by its constructor instead."""
    sample = " é\n"
    try:
        (copy,) = model_copies(_TEXT_BLOCK, "text", [sample])
    except TypeError:
        return False
    return copy.__getstate__() == TextContent(type="text", text=sample).__getstate__()


_COPIES = copies_are_built()


def text_blocks(texts: list[str]) -> list[TextContent]:
    """A ``TextContent`` of each str in ``texts``, as its constructor builds it."""
    if _COPIES:
        return model_copies(_TEXT_BLOCK, "text", texts)
    return [TextContent(type="text", text=text) for text in texts]


def mirrors(texts: list[str], structured: dict[str, Any]) -> list[TextContent]:
    """The text blocks of ``texts``, the mirror of ``structured``, marked for :func:`proven_blocks`."""
    blocks = text_blocks(texts)
    if blocks:
        first = blocks[0]
        key = id(first)
        # The callback holds the dict's pop: module globals may be gone when it runs at exit.
        forget = _proven.pop
        _proven[key] = (
            weakref.ref(first, lambda _ref: forget(key, None)),
            tuple(blocks[1:]),
            tuple(structured.items()),
        )
    return blocks


def fastmcp_tool_result(result_class: Any, texts: list[str], structured: Any, schema: Any) -> Any:
    """fastmcp's ``ToolResult`` (``result_class``, of fastmcp 3.x or 4.x) for a serialized value
    and its mirror's texts, as stock builds it, the mirror marked; ``None`` where stock's
    conversion must decide (no structured object to send, no block to mark). A wrapped output
    (``x-fastmcp-wrap-result``) gets ``{"result": ...}`` and fastmcp's ``_meta`` mark."""
    meta = None
    if schema is not None and schema.get("x-fastmcp-wrap-result"):
        structured, meta = {"result": structured}, {"fastmcp": {"wrap_result": True}}
    elif type(structured) is not dict:
        return None
    if not texts:
        return None
    # ToolResult() would serialize the JSON-native dict again; what it builds is this.
    return result_class.model_construct(
        content=mirrors(texts, structured), structured_content=structured, meta=meta, is_error=False
    )


def json_block(kind: type) -> bool:
    """Whether MCPServer (FastMCP on mcp 1.x) writes a value of this type as one block of
    pydantic-core's JSON."""
    if kind in _JSON_SCALARS:
        return True
    if issubclass(kind, BaseModel):
        return not issubclass(kind, _CONTENT_CLASSES)
    return dataclasses.is_dataclass(kind)


def texts(raw: Any, value: Any, out: list[str], indent: int | None) -> bool:
    """Append the texts of the blocks MCPServer's ``_convert_to_content(raw)`` (FastMCP's on mcp
    1.x, the same rules) writes, each JSON text written from ``value`` (raw's counterpart in
    structuredContent); False where it writes something else (content blocks, ``Image``,
    anything the mirror cannot prove). Raises ``ValueError``/``TypeError`` for a value that is
    not JSON (NaN, say)."""
    kind = type(raw)
    if kind is str:
        out.append(raw)
    elif raw is None:
        pass
    elif kind is list or kind is tuple:
        if type(value) is not list or len(value) != len(raw):
            return False  # the model changed the sequence (a set, say): its items are not raw's
        kinds = set(map(type, raw))
        if len(kinds) == 1 and json_block(next(iter(kinds))):  # the common case, in one loop
            out.extend(map(pydantic_json_text, value, repeat(indent, len(value))))
            return True
        return all(texts(r, v, out, indent) for r, v in zip(raw, value, strict=True))
    elif json_block(kind):
        out.append(pydantic_json_text(value, indent))
    else:
        return False
    return True


def server_mirror(raw: Any, structured: Any, wrapped: bool, indent: int | None) -> list[TextContent] | None:
    """MCPServer's (FastMCP 1.x's) marked text mirror of the return value ``raw``: stock's
    blocks, each written from its value in ``structured`` (under ``"result"`` when ``wrapped``);
    None where that cannot be proven, and stock's conversion decides."""
    out: list[str] = []
    try:
        proven = texts(raw, structured["result"] if wrapped else structured, out, indent)
    except (ValueError, TypeError):  # not JSON-native (NaN, say): pydantic's own text
        return None
    return mirrors(out, structured) if proven else None


def wire_meta(meta: Any) -> dict[str, Any] | None:
    """A copy of the one ``_meta`` a marked result may carry, fastmcp's mark of a wrapped
    output, or None."""
    inner = meta.get("fastmcp") if type(meta) is dict and len(meta) == 1 else None
    if type(inner) is dict and len(inner) == 1 and inner.get("wrap_result") is True:
        return {"fastmcp": {"wrap_result": True}}
    return None


def proven_blocks(content: Any, structured: Any) -> tuple[TextContent, ...] | None:
    """The blocks of a result, if they are a marked mirror of its ``structuredContent`` (whose
    members must be the very objects marked: the models may copy the dict itself) with nothing
    else set on them; else None."""
    proven = _proven.get(id(content[0])) if content else None
    first = proven[0]() if proven is not None else None
    if proven is None or first is None or first is not content[0] or len(proven[1]) != len(content) - 1:
        return None
    marked = proven[2]
    if type(structured) is not dict or len(structured) != len(marked):
        return None
    if any(structured.get(k, structured) is not v for k, v in marked):
        return None
    ours = (first, *proven[1])
    if not all(map(is_, content, ours)) or any(b.annotations is not None or b.meta is not None for b in ours):
        return None
    return ours


@functools.cache
def _result_fields(structured: str, is_error: str) -> tuple[frozenset[str], frozenset[str]]:
    return frozenset({"content", structured}), frozenset({"content", structured, is_error, "meta"})


def proven_result(
    result: Any, structured: str, is_error: str
) -> tuple[dict[str, Any] | None, tuple[TextContent, ...]] | None:
    """For a ``CallToolResult`` that may go out without its dump (``structured`` and ``is_error``:
    the names its SDK line gives those fields): its content and structured content set, nothing
    else but ``_meta`` and ``is_error``, not an error, no ``_meta`` but fastmcp's mark, its blocks
    a marked mirror of its structured content. Then (the ``_meta`` to write or None, the
    blocks); else None."""
    fields, allowed = _result_fields(structured, is_error)
    if not fields <= result.model_fields_set <= allowed or getattr(result, is_error):
        return None
    wire = None
    if result.meta is not None and (wire := wire_meta(result.meta)) is None:
        return None
    blocks = proven_blocks(result.content, getattr(result, structured))
    return None if blocks is None else (wire, blocks)
