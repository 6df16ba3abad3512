"""The adapter of azure-functions' MCP tool trigger (``adapters.azure_functions.tool_results``), stock against
adapted.

A function app is written as Azure's documentation writes one, and each tool is called as the
Python worker calls it: the function the app indexes, given the trigger's ``context`` text and
awaited, its return value encoded by the trigger's converter. Each output is read back as the
host's MCP extension reads an McpToolResult (its ``ToolReturnValueBinder``) and the
``CallToolResult`` it gives is checked against the official 2025-11-25 schema in ../shared and
against the wrapper's rule that structured content comes with a ``TextContent`` block.
(The test extra brings azure-functions 1.26 below Python 3.13 and 2.3 from 3.13;
scripts/azure-functions runs this module on 1.26 / Python 3.11 and 2.3 / 3.13.)"""

# mypy: disallow-untyped-decorators=False
# (azure-functions' decorators have no types)

from __future__ import annotations

import asyncio
import collections
import dataclasses
import datetime
import decimal
import enum
import importlib.metadata
import json
import keyword
import os
import subprocess
import sys
import sysconfig
import unittest.mock
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any, ClassVar, List, Optional, TypedDict, Union  # noqa: UP035

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_native import Validator, _core, adapters

func = pytest.importorskip("azure.functions", reason="azure-functions is not installed (pip install azure-functions)")
pytest.importorskip("mcp.types", reason="the mcp SDK is not installed")

from azure.functions.mcp import _MCPToolTriggerConverter  # noqa: E402
from mcp.types import (  # noqa: E402
    AudioContent,
    CallToolResult,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from pydantic import BaseModel  # noqa: E402

from mcp_native.adapters.azure_functions import tool_results as azure_functions  # noqa: E402

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
    assert isinstance(wrapper["content"], str)
    assert wrapper["structuredContent"] is None or isinstance(wrapper["structuredContent"], str)
    inner = json.loads(wrapper["content"])
    if wrapper["type"] == "call_tool_result":
        assert isinstance(inner, dict)
        if wrapper["structuredContent"] is not None:
            assert json.loads(wrapper["structuredContent"]) == inner.get("structuredContent")
        return inner
    if wrapper["type"] == "multi_content_result":
        result: dict[str, Any] = {"content": inner}
    else:
        assert inner["type"] == wrapper["type"]
        result = {"content": [inner]}
    if wrapper["structuredContent"]:
        result["structuredContent"] = json.loads(wrapper["structuredContent"])
    return result


def check_contract(text: str, schema: Validator) -> dict[str, Any]:
    result = read_as_host(text)
    schema.validate(result)
    if "structuredContent" in result:
        assert any(b["type"] == "text" for b in result["content"]), "structured content without its TextContent"
    return result


class Weather(TypedDict):
    temperature: float
    conditions: str


class Count(TypedDict):
    n: int


class OrderLine(BaseModel):
    sku: str
    qty: int


class Order(BaseModel):
    id: str
    lines: list[OrderLine]


@dataclasses.dataclass
class Point:
    x: float
    y: float


@func.mcp_content
class Snippet:
    def __init__(self, name: str, tags: list[str]) -> None:
        self.name = name
        self.tags = tags


def function_app() -> Any:
    """The eleven tools of the report: the shapes Azure's documentation shows."""
    app = func.FunctionApp(http_auth_level=func.AuthLevel.FUNCTION)

    @app.mcp_tool(use_result_schema=True)
    def weather_dict(city: str) -> dict[str, Any]:
        return {"city": city, "temperature": 22.5}

    @app.mcp_tool(use_result_schema=True)
    def weather_typed(city: str) -> Weather:
        return {"temperature": 22.5, "conditions": f"sunny in {city}"}

    @app.mcp_tool(use_result_schema=True)
    def count_invalid() -> Count:
        return {"n": "three"}  # type: ignore[typeddict-item]

    @app.mcp_tool(use_result_schema=True)
    def point() -> Point:
        return Point(1.0, 2.5)

    @app.mcp_tool(use_result_schema=True)
    def snippet() -> Snippet:
        return Snippet("logo", ["a", "b"])

    @app.mcp_tool(use_result_schema=True)
    def order() -> Order:
        return Order(id="A1", lines=[OrderLine(sku="x", qty=2)])

    @app.mcp_tool(use_result_schema=True)
    def hello() -> str:
        return "Hello I am MCPTool!"

    @app.mcp_tool(use_result_schema=True)
    def qr_code() -> Any:
        return ImageContent(type="image", data=PNG, mime_type="image/png")

    @app.mcp_tool(use_result_schema=True)
    def badge() -> Any:
        return [TextContent(type="text", text="Badge"), ImageContent(type="image", data=PNG, mime_type="image/png")]

    @app.mcp_tool(use_result_schema=True)
    def metadata() -> Any:
        return CallToolResult(content=[], structured_content={"found": True, "characters": 42})

    @app.mcp_tool(use_result_schema=True)
    def failing() -> Any:
        return CallToolResult(content=[TextContent(type="text", text="snippet not found")], is_error=True)

    return app


# The outputs stock gets right on every azure-functions line (2.x gets qr_code's block type, badge
# and failing right too).
STOCK_CORRECT = {"weather_dict", "weather_typed", "point", "snippet"}


def indexed(app: Any) -> dict[str, Any]:
    """The functions the worker indexes (once: the app refuses to index a name twice)."""
    return {f.get_function_name(): f for f in app.get_functions()}


def call_as_worker(function: Any) -> str:
    context = json.dumps({"name": function.get_function_name(), "arguments": {"city": "Paris"}})
    returned = asyncio.run(function.get_user_function()(context=context))
    datum = _MCPToolTriggerConverter.encode(returned)
    assert datum.type == "string"
    return datum.value  # type: ignore[no-any-return]


def outputs(app: Any) -> dict[str, str | Exception]:
    out: dict[str, str | Exception] = {}
    for name, function in indexed(app).items():
        try:
            out[name] = call_as_worker(function)
        except Exception as e:  # stock's crash is an outcome
            out[name] = e
    return out


def verdicts(out: dict[str, str | Exception], schema: Validator) -> dict[str, bool]:
    ok = {}
    for name, text in out.items():
        try:
            assert isinstance(text, str)
            result = check_contract(text, schema)
            if name in ("count_invalid", "failing"):
                assert result.get("isError") is True
            if name in ("hello", "qr_code", "badge"):
                assert "structuredContent" not in result
            if name in ("weather_dict", "weather_typed", "point", "snippet", "order", "metadata"):
                assert "structuredContent" in result, "the structured content is lost"
            ok[name] = True
        except (AssertionError, ValueError):
            ok[name] = False
    return ok


@pytest.fixture
def adapted() -> Iterator[adapters.Report]:
    report = adapters.install()
    try:
        yield report
    finally:
        adapters.uninstall()


def test_the_adapter_gets_right_what_stock_gets_wrong(
    adapted: adapters.Report, call_tool_result_schema: Validator
) -> None:
    assert any(g.startswith("azure-functions-results") for g in adapted.patched)
    fixed = outputs(function_app())
    assert verdicts(fixed, call_tool_result_schema) == dict.fromkeys(fixed, True)
    adapters.uninstall()
    stock = outputs(function_app())
    failed = {n for n, ok in verdicts(stock, call_tool_result_schema).items() if not ok}
    assert {"count_invalid", "order", "hello", "qr_code", "metadata"} <= failed
    assert not failed & STOCK_CORRECT
    for name, text in stock.items():  # stock's bytes wherever stock is right
        if name not in failed:
            assert fixed[name] == text, name


def test_what_each_tool_gets(adapted: adapters.Report) -> None:
    out = outputs(function_app())
    invalid = read_as_host(out["count_invalid"])  # type: ignore[arg-type]
    assert invalid["isError"] is True
    assert "'three' is not of type 'integer' at /n" in invalid["content"][0]["text"]
    assert read_as_host(out["order"])["structuredContent"] == {"id": "A1", "lines": [{"sku": "x", "qty": 2}]}  # type: ignore[arg-type]
    assert read_as_host(out["hello"]) == {"content": [{"type": "text", "text": "Hello I am MCPTool!"}]}  # type: ignore[arg-type]
    image = {"type": "image", "data": PNG, "mimeType": "image/png"}
    assert read_as_host(out["qr_code"]) == {"content": [image]}  # type: ignore[arg-type]
    assert read_as_host(out["badge"]) == {"content": [{"type": "text", "text": "Badge"}, image]}  # type: ignore[arg-type]
    metadata = read_as_host(out["metadata"])  # type: ignore[arg-type]
    assert metadata["structuredContent"] == {"found": True, "characters": 42}
    assert json.loads(metadata["content"][0]["text"]) == metadata["structuredContent"]
    failing = read_as_host(out["failing"])  # type: ignore[arg-type]
    assert failing["isError"] is True and "structuredContent" not in failing


@pytest.mark.parametrize("mode", ["warn", "off"])
def test_warn_and_off_send_the_invalid_result(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    adapters.install(output_validation=mode)
    try:
        text = call_as_worker(indexed(function_app())["count_invalid"])
    finally:
        adapters.uninstall()
    assert text == stock_text({"n": "three"})
    assert ("does not match its output schema" in caplog.text) == (mode == "warn")


def test_a_result_without_structured_content_from_a_tool_with_a_schema_is_refused(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def app() -> Any:
        app = func.FunctionApp()

        @app.mcp_tool(use_result_schema=True)
        def weather_text(city: str) -> Weather:
            return f"sunny in {city}"  # type: ignore[return-value]

        @app.mcp_tool(use_result_schema=True)
        def count_text() -> Count:
            return json.dumps({"n": "three"})  # type: ignore[return-value]

        return app

    adapters.install()
    try:
        tools = indexed(app())
        assert "outputSchema" in binding(tools["weather_text"])
        text = read_as_host(call_as_worker(tools["weather_text"]))
        count = read_as_host(call_as_worker(tools["count_text"]))
    finally:
        adapters.uninstall()
    assert text["isError"] is True
    assert text["content"][0]["text"].endswith(
        "tool 'weather_text' has an output schema but returned no structured content"
    )
    assert count["isError"] is True and "'three' is not of type 'integer' at /n" in count["content"][0]["text"]
    adapters.install(output_validation="warn")
    try:
        tools = indexed(app())
        sent = read_as_host(call_as_worker(tools["weather_text"]))
    finally:
        adapters.uninstall()
    assert sent == {"content": [{"type": "text", "text": "sunny in Paris"}]}
    assert "returned no structured content" in caplog.text


def test_a_json_object_text_keeps_its_structured_content(adapted: adapters.Report) -> None:
    app = func.FunctionApp()

    @app.mcp_tool(use_result_schema=True)
    def saved() -> str:
        return json.dumps({"saved": ["a", "b"]})

    assert call_as_worker(indexed(app)["saved"]) == stock_text({"saved": ["a", "b"]})


def test_an_mcp_return_annotation_asks_for_the_result_schema(adapted: adapters.Report) -> None:
    app = func.FunctionApp()

    @app.mcp_tool()
    def qr() -> ImageContent:
        return ImageContent(type="image", data=PNG, mime_type="image/png")

    (function,) = app.get_functions()
    assert function.get_trigger().use_result_schema is True
    assert json.loads(call_as_worker(function))["type"] == "image"


def binding(function: Any) -> dict[str, Any]:
    """The tool trigger's binding as the worker hands it to the host (the function's metadata)."""
    (trigger,) = [b for b in map(json.loads, function.get_raw_bindings()) if b["type"] == "mcpToolTrigger"]
    return trigger  # type: ignore[no-any-return]


def test_the_derived_schema_is_published_and_every_result_conforms(
    adapted: adapters.Report, call_tool_result_schema: Validator
) -> None:
    tools = indexed(function_app())
    published = {name: binding(f).get("outputSchema") for name, f in tools.items()}
    schemas = {name: json.loads(text) for name, text in published.items() if text is not None}
    # No schema where MCPServer derives none: str, Any, a class pydantic cannot describe.
    assert sorted(schemas) == ["count_invalid", "order", "point", "weather_dict", "weather_typed"]
    assert schemas["count_invalid"] == {
        "type": "object",
        "title": "Count",
        "properties": {"n": {"type": "integer", "title": "N"}},
        "required": ["n"],
    }
    for name, schema in schemas.items():
        # The host's check of an outputSchema (McpInputSchemaJsonUtilities.IsValidMcpToolJsonSchema).
        assert schema["type"] == "object", name
        assert isinstance(schema.get("properties", {}), dict) and isinstance(schema.get("required", []), list)
        result = read_as_host(call_as_worker(tools[name]))
        if not result.get("isError"):  # what a client checks against the listed schema
            Validator(schema).validate(result["structuredContent"])
    assert read_as_host(call_as_worker(tools["count_invalid"]))["isError"] is True
    adapters.uninstall()
    assert not any("outputSchema" in binding(f) for f in indexed(function_app()).values())


def mixed_app() -> Any:
    """Tools returning content blocks beside plain dicts."""
    app = func.FunctionApp()
    image = {"type": "image", "data": PNG, "mimeType": "image/png"}

    @app.mcp_tool(use_result_schema=True)
    def block_first() -> Any:
        return [TextContent(type="text", text="Badge"), image]

    @app.mcp_tool(use_result_schema=True)
    def dict_first() -> Any:
        return [image, TextContent(type="text", text="Badge")]

    @app.mcp_tool(use_result_schema=True)
    def not_a_block() -> Any:
        return [TextContent(type="text", text="Badge"), {"badge": 1}]

    @app.mcp_tool(use_result_schema=True)
    def not_a_dict() -> Any:
        return [TextContent(type="text", text="Badge"), "Badge"]

    return app


def test_a_list_of_blocks_and_block_dicts_is_a_call_tool_result(
    adapted: adapters.Report, call_tool_result_schema: Validator
) -> None:
    tools = indexed(mixed_app())
    fixed = {name: call_as_worker(tools[name]) for name in ("block_first", "dict_first")}
    text, image = {"type": "text", "text": "Badge"}, {"type": "image", "data": PNG, "mimeType": "image/png"}
    assert check_contract(fixed["block_first"], call_tool_result_schema) == {"content": [text, image]}
    assert check_contract(fixed["dict_first"], call_tool_result_schema) == {"content": [image, text]}
    with pytest.raises(ValueError, match=r"tool result\[1\]\.type: None is not one of audio, image"):
        call_as_worker(tools["not_a_block"])
    with pytest.raises(TypeError, match=r"tool result\[1\]: expected a content block dict, got str"):
        call_as_worker(tools["not_a_dict"])
    adapters.uninstall()
    stock = indexed(mixed_app())
    # Stock reads a list by its first item: not a block it knows, and the wrapper returns nothing.
    if int(importlib.metadata.version("azure-functions").split(".")[0]) >= 2:
        # 2.x takes the dicts after a first block as blocks (any dict: not_a_block's too).
        assert call_as_worker(stock["block_first"]) == fixed["block_first"]
        assert "badge" in call_as_worker(stock["not_a_block"])
    else:  # 1.x knows no mcp 2.x block
        assert call_as_worker(stock["block_first"]) == ""
    assert call_as_worker(stock["dict_first"]) == ""


# Content-block annotations: what a tool declaring content returns, and what stock sends for it.
RADAR_TEXT = TextContent(type="text", text="radar over Paris")
RADAR_IMAGE = ImageContent(type="image", data=PNG, mime_type="image/png")
RADAR_AUDIO = AudioContent(type="audio", data="UklGRg==", mime_type="audio/wav")
RADAR_LINK = ResourceLink(type="resource_link", name="radar", uri="file:///radar.png", mime_type="image/png")
RADAR_EMBEDDED = EmbeddedResource(
    type="resource", resource=TextResourceContents(uri="file:///radar.txt", mime_type="text/plain", text="rain")
)
CONTENT_ANNOTATIONS: list[tuple[str, Any, Any]] = [
    ("text", TextContent, RADAR_TEXT),
    ("image", ImageContent, RADAR_IMAGE),
    ("audio", AudioContent, RADAR_AUDIO),
    ("resource_link", ResourceLink, RADAR_LINK),
    ("embedded_resource", EmbeddedResource, RADAR_EMBEDDED),
    ("typing_list_of_pep604_union", List[TextContent | ImageContent], [RADAR_TEXT, RADAR_IMAGE]),  # noqa: UP006
    ("list_of_pep604_union", list[TextContent | ImageContent], [RADAR_TEXT, RADAR_IMAGE]),
    # Members of its own: typing caches List[X | Y] as List[Union[X, Y]], which compare equal.
    ("list_of_typing_union", List[Union[ImageContent, AudioContent]], [RADAR_IMAGE, RADAR_AUDIO]),  # noqa: UP006, UP007
    ("list_of_one_block_type", list[ImageContent], [RADAR_IMAGE, RADAR_IMAGE]),
    ("list_of_content_block", list[ContentBlock], [RADAR_TEXT, RADAR_AUDIO, RADAR_LINK, RADAR_EMBEDDED]),
    ("sequence_of_content_block", Sequence[ContentBlock], [RADAR_TEXT, RADAR_IMAGE]),
    ("tuple_of_blocks", tuple[TextContent, ImageContent], (RADAR_TEXT, RADAR_IMAGE)),
    ("variadic_tuple", tuple[ContentBlock, ...], (RADAR_IMAGE, RADAR_TEXT)),
    ("pep604_union", TextContent | ImageContent, RADAR_IMAGE),
    ("typing_union", Union[TextContent, AudioContent], RADAR_AUDIO),  # noqa: UP007
    ("content_block", ContentBlock, RADAR_LINK),
    ("optional_block", Optional[ImageContent], RADAR_IMAGE),  # noqa: UP045
    ("optional_list", list[ImageContent] | None, [RADAR_IMAGE]),
    ("union_with_data", TextContent | Weather, RADAR_TEXT),
    ("annotated_list", Annotated[list[TextContent | ImageContent], "radar"], [RADAR_TEXT, RADAR_IMAGE]),
    ("call_tool_result", CallToolResult, CallToolResult(content=[RADAR_TEXT, RADAR_IMAGE])),
    ("failed_call_tool_result", CallToolResult, CallToolResult(content=[RADAR_TEXT], is_error=True)),
]


def dumped(block: Any) -> Any:
    return block.model_dump(mode="json", exclude_none=True, by_alias=True)


def stock2_text(value: Any) -> str:
    """What azure-functions 2.x writes for a tool's content (checked against 2.x itself below): a
    ``CallToolResult`` or a list of blocks as ``call_tool_result``, one block as its own type with
    a copy of itself as structured content. 1.x knows no mcp 2.x type."""
    if isinstance(value, CallToolResult):
        result = dumped(value)
        structured = result.get("structuredContent")
        return json.dumps(
            {
                "type": "call_tool_result",
                "content": json.dumps(result),
                "structuredContent": None if structured is None else json.dumps(structured),
            }
        )
    if isinstance(value, list):
        blocks = json.dumps({"content": [dumped(b) for b in value]})
        return json.dumps({"type": "call_tool_result", "content": blocks, "structuredContent": None})
    block = json.dumps(dumped(value))
    return json.dumps({"type": dumped(value)["type"], "content": block, "structuredContent": block})


def content_app(annotation: Any, value: Any) -> Any:
    app = func.FunctionApp()

    def radar() -> Any:
        return value

    radar.__annotations__["return"] = annotation  # before the decorator reads it
    app.mcp_tool(use_result_schema=True)(radar)
    return app


@pytest.mark.parametrize(("annotation", "value"), [pytest.param(a, v, id=i) for i, a, v in CONTENT_ANNOTATIONS])
def test_an_annotation_of_content_declares_no_schema_and_sends_the_blocks_as_stock(
    annotation: Any, value: Any, call_tool_result_schema: Validator
) -> None:
    adapters.install()
    try:
        (tool,) = indexed(content_app(annotation, value)).values()
        assert "outputSchema" not in binding(tool)
        fixed = call_as_worker(tool)
    finally:
        adapters.uninstall()
    result = check_contract(fixed, call_tool_result_schema)
    assert "structuredContent" not in result
    # Stock 2.x's bytes; a tuple as stock writes the same blocks in a list (stock raises for a
    # tuple), one block without the copy of itself as structured content stock adds.
    expected = json.loads(stock2_text(list(value) if isinstance(value, tuple) else value))
    if not isinstance(value, (list, tuple, CallToolResult)):
        expected["structuredContent"] = None
    assert fixed == json.dumps(expected)
    assert result.get("isError", False) is (isinstance(value, CallToolResult) and value.is_error is True)
    (tool,) = indexed(content_app(annotation, value)).values()
    assert "outputSchema" not in binding(tool)
    if int(importlib.metadata.version("azure-functions").split(".")[0]) >= 2:
        if isinstance(value, tuple):
            with pytest.raises(TypeError, match="not JSON serializable"):
                call_as_worker(tool)
        else:
            assert call_as_worker(tool) == stock2_text(value)


def test_a_result_json_cannot_hold_is_a_clear_error(adapted: adapters.Report) -> None:
    app = func.FunctionApp()

    @app.mcp_tool(use_result_schema=True)
    def tags() -> Any:
        return {"tags": {"a", "b"}}

    @app.mcp_tool(use_result_schema=True)
    def ratio() -> Any:
        return {"ratio": float("nan")}

    @app.mcp_tool(use_result_schema=True)
    def handle() -> Any:
        return object()

    tools = indexed(app)
    with pytest.raises(TypeError, match="set"):
        call_as_worker(tools["tags"])
    with pytest.raises(ValueError, match="nan"):  # stock wrote NaN, which the host cannot parse
        call_as_worker(tools["ratio"])
    with pytest.raises(TypeError, match="tool result of type object is not JSON serializable"):
        call_as_worker(tools["handle"])


# Dataclass results, converted directly: asdict's bytes, asdict itself for what is not plain JSON.
class Color(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Mode(str, enum.Enum):
    FAST = "fast"


class Tag(str):
    pass


class Rows(list):  # type: ignore[type-arg]
    pass


Pair = collections.namedtuple("Pair", "a b")

# Values of types asdict copies or converts (or the writer refuses): the whole result goes to asdict.
NOT_PLAIN = [
    datetime.datetime(2025, 6, 1, 12, 30),
    datetime.date(2025, 6, 1),
    uuid.UUID(int=7),
    decimal.Decimal("1.5"),
    Color.RED,
    Level.HIGH,
    Mode.FAST,
    Tag("tagged"),
    b"bytes",
    {1, 2},
    frozenset(),
    Pair(1, "b"),
    Rows([1, 2]),
    collections.OrderedDict(a=1),
    collections.defaultdict(list, a=[1]),
    object(),
    Point,  # a dataclass type, not an instance
]
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**64)  # beyond 64 bits
    | st.floats()  # NaN and infinities: the writer's ValueError, either way
    | st.text()
    | st.just("\ud800")  # a lone surrogate: the writer's UnicodeEncodeError, either way
)
# (Not "__x": a dataclass's own __init__ mangles such a name.)
field_names = st.from_regex(r"_?[A-Za-z][A-Za-z0-9_]{0,6}", fullmatch=True).filter(lambda n: not keyword.iskeyword(n))


@dataclasses.dataclass
class Shape:
    """A generated dataclass instance and whether every value in it is plain JSON."""

    value: Any
    plain: bool


def make_dataclass(fields: dict[str, tuple[Any, bool]], frozen: bool, slots: bool, marked: bool) -> Shape:
    cls = dataclasses.make_dataclass("Generated", [(n, Any) for n in fields], frozen=frozen, slots=slots)
    if marked:
        cls = func.mcp_content(cls)
    return Shape(cls(**{n: v for n, (v, _) in fields.items()}), all(p for _, p in fields.values()))


def shapes(children: st.SearchStrategy[Shape]) -> st.SearchStrategy[Shape]:
    def of_list(items: list[Shape], as_tuple: bool) -> Shape:
        values = [i.value for i in items]
        return Shape(tuple(values) if as_tuple else values, all(i.plain for i in items))

    def of_dict(items: dict[Any, Shape]) -> Shape:
        value = {k: i.value for k, i in items.items()}
        return Shape(value, all(type(k) is str and i.plain for k, i in items.items()))

    return (
        st.builds(of_list, st.lists(children, max_size=4), st.booleans())
        | st.builds(of_dict, st.dictionaries(st.text(max_size=4) | st.integers(), children, max_size=4))
        | dataclass_shapes(children)
    )


def dataclass_shapes(children: st.SearchStrategy[Shape]) -> st.SearchStrategy[Shape]:
    fields = st.dictionaries(field_names, children.map(lambda c: (c.value, c.plain)), max_size=5)
    return st.builds(make_dataclass, fields, st.booleans(), st.booleans(), st.booleans())


plain_leaves = st.builds(Shape, json_scalars, st.just(True))
mixed_leaves = plain_leaves | st.builds(Shape, st.sampled_from(NOT_PLAIN), st.just(False))
# Half the results plain JSON throughout, half with leaves of every kind.
results = dataclass_shapes(st.recursive(plain_leaves, shapes, max_leaves=25)) | dataclass_shapes(
    st.recursive(mixed_leaves, shapes, max_leaves=25)
)


def outcome(call: Callable[[], str]) -> str | tuple[type[BaseException], str]:
    try:
        return call()
    except Exception as e:
        return type(e), str(e)


def asdict_text(value: Any) -> str:
    """What the adapter wrote for a dataclass before the direct conversion: asdict's value."""
    return _core.mcp_tool_result("text", None, dataclasses.asdict(value), True)


@settings(max_examples=500, deadline=None)
@given(results)
def test_a_dataclass_result_is_written_as_asdict_wrote_it(shape: Shape) -> None:
    expected = outcome(lambda: asdict_text(shape.value))
    with unittest.mock.patch.object(dataclasses, "asdict", wraps=dataclasses.asdict) as asdict:
        assert outcome(lambda: azure_functions.convert("shape", shape.value, None)) == expected
    # Plain JSON anywhere: converted directly, asdict not called; else asdict converts it all.
    assert asdict.called is not shape.plain


@dataclasses.dataclass
class Location:
    lat: float
    lon: float


@dataclasses.dataclass
class Reading:
    id: int
    name: str
    active: bool
    tags: list[str]
    location: Location
    note: str | None = None


@func.mcp_content
@dataclasses.dataclass
class Readings:
    readings: list[Reading]
    total: int


def test_an_mcp_content_dataclass_of_records_is_sent_in_stock_bytes_without_asdict() -> None:
    readings = Readings(
        [
            Reading(i, f"sensor-{i} ✓", i % 2 == 0, ["north", 'quote "q"'][: i % 3], Location(48.85 + i, 2.35), note)
            for i, note in enumerate([None, "checked", None, "\u00e9t\u00e9 😀"])
        ],
        4,
    )
    invalid = Readings([Reading(1, "x", True, [], Location("north", 2.35))], 1)  # type: ignore[arg-type]

    def app() -> Any:
        app = func.FunctionApp()

        @app.mcp_tool(use_result_schema=True)
        def list_readings() -> Readings:
            return readings

        @app.mcp_tool(use_result_schema=True)
        def list_invalid() -> Readings:
            return invalid

        return app

    stock = {name: call_as_worker(f) for name, f in indexed(app()).items()}
    adapters.install()
    try:
        tools = indexed(app())
        schema = json.loads(binding(tools["list_readings"])["outputSchema"])
        with unittest.mock.patch.object(dataclasses, "asdict", wraps=dataclasses.asdict) as asdict:
            fixed = {name: call_as_worker(f) for name, f in tools.items()}
        assert not asdict.called
    finally:
        adapters.uninstall()
    assert fixed["list_readings"] == stock["list_readings"] == stock_text(dataclasses.asdict(readings))
    Validator(schema).validate(read_as_host(fixed["list_readings"])["structuredContent"])
    refused = read_as_host(fixed["list_invalid"])  # validated against the derived schema as before
    assert refused["isError"] is True and "'north' is not of type 'number'" in refused["content"][0]["text"]


@dataclasses.dataclass
class Base:
    kind: str
    label: Any = None


@dataclasses.dataclass(frozen=True, slots=True)
class Frozen:
    n: int
    items: tuple[Any, ...]


@dataclasses.dataclass
class Special(Base):
    """Inherited fields first, a ClassVar and an InitVar not fields, an init=False field."""

    LIMIT: ClassVar[int] = 3
    seed: dataclasses.InitVar[int] = 0
    derived: list[Any] = dataclasses.field(init=False, default_factory=list)
    __private: int = 1

    def __post_init__(self, seed: int) -> None:
        self.derived = [seed, {"nested": Frozen(seed, (Point(1.0, 2.0),))}]


class Sub(Point):
    """A subclass not decorated again: Point's fields."""

    extra = "not a field"


@dataclasses.dataclass
class Unset:
    missing: int = dataclasses.field(init=False)  # never set: AttributeError from asdict too


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        pytest.param(Special("a", seed=5), True, id="inherited-classvar-initvar-init_false-private"),
        pytest.param(Special("a", label=Level.HIGH), False, id="int_enum"),
        pytest.param(Frozen(1, ({"x": [Point(0.5, 1.5)]},)), True, id="frozen-slots-nested"),
        pytest.param(Sub(3.0, 4.0), True, id="undecorated_subclass"),
        pytest.param(Unset(), False, id="unset_field"),
        pytest.param(Point(1.0, {"ok": [1, {"deep": Color.RED}]}), False, id="deep_enum"),  # type: ignore[arg-type]
        pytest.param(Point(1.0, {3: "int key"}), False, id="int_key"),  # type: ignore[arg-type]
        pytest.param(
            Point(1.0, {"a": {4: "int key"}, "b": Point(0, 0)}),  # type: ignore[arg-type]
            False,
            id="int_key_beside_a_dataclass",
        ),
    ],
)
def test_dataclass_forms_are_written_as_asdict_wrote_them(value: Any, plain: bool) -> None:
    expected = outcome(lambda: asdict_text(value))
    with unittest.mock.patch.object(dataclasses, "asdict", wraps=dataclasses.asdict) as asdict:
        assert outcome(lambda: azure_functions.convert("shape", value, None)) == expected
    assert asdict.called is not plain


def test_tools_without_result_schema_keep_the_stock_wrapper(adapted: adapters.Report) -> None:
    app = func.FunctionApp()

    @app.mcp_tool()
    def plain(city: str) -> str:
        return f"sunny in {city}"

    (function,) = indexed(app).values()
    assert call_as_worker(function) == "sunny in Paris"
    assert "outputSchema" not in binding(function)  # the host wraps its result: no structured content


def test_uninstall_restores_the_decorator(adapted: adapters.Report) -> None:
    from azure.functions.decorators.function_app import TriggerApi

    assert TriggerApi.mcp_tool.__module__ == "mcp_native.adapters.azure_functions.tool_results"
    adapters.uninstall()
    assert TriggerApi.mcp_tool.__module__ == "azure.functions.decorators.function_app"


# A function app as the documentation writes it, with no line of mcp-native in it, and the worker's
# side: the app's module imported, its tool indexed and called, the output printed.
FUNCTION_APP = """
import azure.functions as func
from typing_extensions import TypedDict

app = func.FunctionApp()

class Count(TypedDict):
    n: int

@app.mcp_tool(use_result_schema=True)
def count() -> Count:
    return {"n": "three"}
"""
WORKER = """
import asyncio, sys
sys.path.insert(0, sys.argv[1])
import function_app
from azure.functions.mcp import _MCPToolTriggerConverter
(f,) = function_app.app.get_functions()
print(_MCPToolTriggerConverter.encode(asyncio.run(f.get_user_function()(context='{"arguments": {}}'))).value)
"""


@pytest.mark.skipif(
    not (Path(sysconfig.get_paths()["purelib"]) / "mcp_native_adapters.pth").is_file(),
    reason="the start-up hook mcp_native_adapters.pth is not in this environment's site-packages",
)
@pytest.mark.parametrize("setting", ["1", None])
def test_the_environment_adapts_an_unchanged_function_app(tmp_path: Path, setting: str | None) -> None:
    (tmp_path / "function_app.py").write_text(FUNCTION_APP)
    env = {k: v for k, v in os.environ.items() if k != adapters.ENVIRONMENT}
    if setting is not None:
        env[adapters.ENVIRONMENT] = setting
    out = subprocess.run(
        [sys.executable, "-c", WORKER, str(tmp_path)], env=env, capture_output=True, text=True, check=True
    )
    result = read_as_host(out.stdout)
    if setting is None:
        assert result["structuredContent"] == {"n": "three"}
    else:
        assert result["isError"] is True and "at /n" in result["content"][0]["text"]
