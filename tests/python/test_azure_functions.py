"""``mcp_native.tools.mcp_tool_result``: the McpToolResult text Azure Functions' MCP extension
reads a tool's result from when the worker owns it.

Every text is read back as the host's MCP extension reads it (its ``ToolReturnValueBinder``:
``call_tool_result`` is a whole ``CallToolResult``, ``multi_content_result`` a list of blocks, any
other type one block; ``structuredContent``, when not empty, JSON) and the ``CallToolResult`` it
gives is checked against the official 2025-11-25 schema in ../shared, and against the wrapper's
rule that structured content comes with a ``TextContent`` block."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mcp_native
from mcp_native import ValidationError, Validator, content
from mcp_native.tools import mcp_tool_result

PNG = "iVBORw0KGgo="


def stock_text(value: Any) -> str:
    """What azure-functions writes for a structured value: three json.dumps calls."""
    inner = json.dumps(value)
    return json.dumps(
        {"type": "text", "content": json.dumps({"type": "text", "text": inner}), "structuredContent": inner}
    )


@pytest.fixture(scope="module")
def call_tool_result_schema(shared: Path) -> Validator:
    doc = json.loads((shared / "mcp-schema" / "2025-11-25" / "schema.json").read_text())
    return Validator({**doc, "$ref": "#/$defs/CallToolResult"})


def read_as_host(text: str) -> dict[str, Any]:
    """The CallToolResult the host's extension builds from an McpToolResult text."""
    wrapper = json.loads(text)
    assert set(wrapper) == {"type", "content", "structuredContent"}
    assert isinstance(wrapper["type"], str) and wrapper["type"]
    assert isinstance(wrapper["content"], str)
    assert wrapper["structuredContent"] is None or isinstance(wrapper["structuredContent"], str)
    inner = json.loads(wrapper["content"])
    if wrapper["type"] == "call_tool_result":
        result: dict[str, Any] = inner
        assert isinstance(result, dict)
        if wrapper["structuredContent"] is not None:
            assert json.loads(wrapper["structuredContent"]) == result.get("structuredContent")
        return result
    blocks = inner if wrapper["type"] == "multi_content_result" else [inner]
    if wrapper["type"] != "multi_content_result":
        assert inner["type"] == wrapper["type"]
    result = {"content": blocks}
    if wrapper["structuredContent"]:
        result["structuredContent"] = json.loads(wrapper["structuredContent"])
    return result


def check_contract(text: str, schema: Validator) -> dict[str, Any]:
    result = read_as_host(text)
    schema.validate(result)
    if "structuredContent" in result:
        assert any(b["type"] == "text" for b in result["content"]), "structured content without its TextContent"
    return result


# --- the public writer --------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), json_values, max_size=5))
def test_structured_content_is_written_as_json_dumps_writes_it(value: dict[str, Any]) -> None:
    assert mcp_tool_result(value) == stock_text(value)


def test_every_shape_reads_back_as_a_valid_call_tool_result(call_tool_result_schema: Validator) -> None:
    image = content.image(b"\x89PNG", "image/png")
    data = {"temperature": 22.5, "city": "Zürich 😀"}
    cases = [
        (mcp_tool_result(data), "text"),
        (mcp_tool_result(content=[image]), "image"),
        (mcp_tool_result(content=[content.text("hi")]), "text"),
        (mcp_tool_result(data, [image], protocol_version="2025-11-25"), "call_tool_result"),
        (mcp_tool_result(content=[content.text("a"), image], protocol_version="2025-11-25"), "call_tool_result"),
        (
            mcp_tool_result(content=[content.text("boom")], is_error=True, protocol_version="2025-11-25"),
            "call_tool_result",
        ),
        (mcp_tool_result(data, [content.text("22.5 in Zürich")]), "text"),
    ]
    for text, kind in cases:
        assert text.isascii()
        assert json.loads(text)["type"] == kind
        result = check_contract(text, call_tool_result_schema)
        if "structuredContent" in result:
            assert result["structuredContent"] == data
    error = read_as_host(cases[5][0])
    assert error["isError"] is True and error["content"] == [{"type": "text", "text": "boom"}]
    mirrored = read_as_host(cases[3][0])
    assert json.loads(mirrored["content"][0]["text"]) == data and mirrored["content"][1] == image


def test_the_schema_refuses_invalid_structured_content() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert read_as_host(mcp_tool_result({"n": 3}, schema=schema))["structuredContent"] == {"n": 3}
    for given_schema in (schema, Validator(schema)):
        with pytest.raises(ValidationError, match="'three' is not of type 'integer' at /n") as e:
            mcp_tool_result({"n": "three"}, schema=given_schema)
        assert e.value.instance_path == ("n",)
    # An error result is not checked against the schema.
    mcp_tool_result({"n": "three"}, [content.text("failed")], is_error=True, schema=schema)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: mcp_tool_result(), ValueError, "give structured content, content blocks, or both"),
        (lambda: mcp_tool_result(None), ValueError, "structured: None"),
        (lambda: mcp_tool_result([1, 2], protocol_version="2025-11-25"), TypeError, "require an object"),
        (lambda: mcp_tool_result({"a": 1}, protocol_version="2024-01-01"), ValueError, "protocol_version"),
        (lambda: mcp_tool_result(content={"type": "text"}), TypeError, "content: expected a list"),  # type: ignore[arg-type]
        (lambda: mcp_tool_result(content=[{"type": "video"}]), ValueError, r"content\[0\]\.type"),
        (lambda: mcp_tool_result(content=["hi"]), TypeError, r"content\[0\]"),  # type: ignore[arg-type]
        (lambda: mcp_tool_result({"a": 1}, is_error=1), TypeError, "is_error"),  # type: ignore[arg-type]
        (lambda: mcp_tool_result({"a": 1}, schema="object"), TypeError, "schema"),  # type: ignore[arg-type]
        (lambda: mcp_tool_result({"a": 1}, schema={"type": 5}), mcp_native.SchemaError, "schema"),
        (lambda: mcp_tool_result({"a": {1, 2}}), TypeError, "set"),
        (lambda: mcp_tool_result({"a": float("nan")}), ValueError, "not JSON compliant: nan"),
        (lambda: mcp_tool_result({"a": "\ud800"}), UnicodeEncodeError, "surrogates not allowed"),
    ],
)
def test_bad_input_is_a_clear_error(call: Callable[[], Any], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        call()


def test_any_json_value_is_structured_content_from_2026_07_28(call_tool_result_schema: Validator) -> None:
    text = mcp_tool_result([1, 2])
    assert json.loads(json.loads(text)["structuredContent"]) == [1, 2]
    with_block = mcp_tool_result([1, 2], [content.text("two numbers")])
    assert json.loads(json.loads(with_block)["content"]) == {"type": "text", "text": "two numbers"}
