"""Tool results on the adapters, in process, MCPServer and fastmcp: the same ``structuredContent``,
the text mirror pydantic-core would write for it, and the same wire dict from the server runner
for every protocol version, stock and adapted."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest

pytest.importorskip("mcp")
pytest.importorskip("fastmcp")

import pydantic_core
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.mixins.mcp_operations import _normalize_call_tool_result
from fastmcp.tools.base import ToolResult
from mcp.server.mcpserver import MCPServer
from mcp.server.runner import ServerRunner
from mcp.types import CallToolResult, TextContent
from mcp_types.methods import SERVER_RESULTS
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from mcp_native import adapters
from mcp_native._core import model_copies
from mcp_native.adapters._engines import mirror as _mirror
from mcp_native.adapters.mcp2 import server as mcp_server

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("adapters_restored")]
VERSIONS = sorted(v for m, v in SERVER_RESULTS if m == "tools/call")


class Point(TypedDict):
    x: float
    label: str


class Shape(BaseModel):
    name: str
    points: list[Point]


def weather(city: str) -> Point:
    return {"x": 22.5, "label": city}


def records(n: int) -> dict[str, list[dict[str, Any]]]:
    return {"rows": [{"id": i, "score": i * 1.37 % 100, "tags": ["a"] * (i % 3), "none": None} for i in range(n)]}


def tiny_floats() -> dict[str, float]:  # exponents pydantic-core spells its own way
    return {"a": 1e-05, "b": -2.5e-07, "c": 1e16, "d": 0.1}


def coerced() -> Point:  # an int where the model wants a float, and a key it does not have
    return {"x": 1, "label": 'é\n"', "extra": True}  # type: ignore[typeddict-unknown-key]


def shape() -> Shape:  # a model: validated as it is, dumped once
    return Shape(name="s", points=[{"x": 1.0, "label": "a"}])


def shape_as_dict() -> Shape:
    return {"name": "s", "points": [{"x": 1.5, "label": "a"}]}  # type: ignore[return-value]


def not_json() -> dict[str, float]:
    return {"a": math.nan}


def listing() -> list[int]:  # a wrapped output: {"result": [...]}, one block per item on MCPServer
    return [1, 2]


def mapping() -> dict[str, int]:
    return {"b": 2, "a": 1}


def plain(x: int) -> str:  # a wrapped str: the text is the string itself
    return str(x)


class Where(BaseModel):
    lat: float
    lon: float = 0.0


class Station(BaseModel):  # nested, aliased, $defs, Optional and defaults
    station_id: int = Field(alias="stationId")
    where: Where | None = None
    tags: list[str] = []
    note: str | None = Field(default=None, alias="Note")


@dataclasses.dataclass
class Reading:
    at: str
    value: float
    flags: list[int] = dataclasses.field(default_factory=list)


def station() -> Station:
    return Station(stationId=7, where=Where(lat=46.5), tags=["a", "é"], Note='q"')


def stations() -> list[Station]:
    return [Station(stationId=i, where=None if i % 2 else Where(lat=i, lon=-i)) for i in range(5)]


def maybe_station() -> Station | None:
    return station()


def reading() -> Reading:
    return Reading(at="2026-01-01T00:00:00Z", value=1.25, flags=[1, 2])


def readings() -> list[Reading]:
    return [Reading(at=str(i), value=i / 3) for i in range(4)]


def rows() -> list[dict[str, Any]]:
    return [{"i": i, "v": [i, None, "x"]} for i in range(3)]


def strings() -> list[str]:
    return ["a", "", "b\n"]


def pair() -> tuple[int, str]:
    return (1, "a")


def nested() -> list[list[int]]:  # MCPServer's blocks are flattened: 1, 2, 3
    return [[1, 2], [3]]


def empty() -> list[int]:  # no block at all
    return []


def mixed() -> list[Any]:  # blocks item by item: "1", "a", none for None, JSON, then 2 and "b"
    return [1, "a", None, {"k": 1.5}, [2, "b"]]


def with_block() -> list[Any]:  # a content block among the items: the stock path
    return [1, TextContent(type="text", text="hi")]


def number() -> float:
    return 2.5


def int_as_float() -> float:  # coerced: 1 -> 1.0 in structuredContent
    return 1


def flag() -> bool:
    return True


def nothing() -> None:
    return None


def precision() -> dict[str, float]:  # an int the model turns into a float that cannot hold it
    return {"d": 123456789012345678}


def block() -> TextContent:  # content blocks: the stock path
    return TextContent(type="text", text="hi")


def built() -> CallToolResult:  # a CallToolResult the tool built: the stock path
    return CallToolResult(content=[TextContent(type="text", text="x")], structured_content={"k": 1})


_TOOLS: list[tuple[Callable[..., Any], dict[str, Any]]] = [
    (weather, {"city": "Zürich"}),
    (records, {"n": 50}),
    (tiny_floats, {}),
    (coerced, {}),
    (shape, {}),
    (shape_as_dict, {}),
    (not_json, {}),
    (listing, {}),
    (mapping, {}),
    (plain, {"x": 3}),
    (station, {}),
    (stations, {}),
    (maybe_station, {}),
    (reading, {}),
    (readings, {}),
    (rows, {}),
    (strings, {}),
    (pair, {}),
    (nested, {}),
    (empty, {}),
    (mixed, {}),
    (with_block, {}),
    (number, {}),
    (int_as_float, {}),
    (flag, {}),
    (nothing, {}),
    (precision, {}),
    (block, {}),
    (built, {}),
]
TOOLS = {f.__name__: (f, args) for f, args in _TOOLS}
# Results the runner sends without its second validation and dump (their mirror is marked).
STOCK_PATH = {"not_json", "empty", "nothing", "block", "built", "with_block"}
NATIVE = set(TOOLS) - STOCK_PATH
# Where the mirror shows structuredContent and stock's shows the raw value (README's differences).
MIRROR_FOLLOWS_MODEL = {"coerced", "int_as_float", "precision"}


def server() -> MCPServer:
    app = MCPServer("t")
    for fn, _ in TOOLS.values():
        app.tool()(fn)
    return app


async def call(name: str) -> CallToolResult:
    fn, args = TOOLS[name]
    result = await server().call_tool(fn.__name__, args)
    assert isinstance(result, CallToolResult)
    return result


def runner() -> Any:
    """What ServerRunner._serialize reads of its runner."""
    fake = SimpleNamespace(server=SimpleNamespace(cache_hints={}, server_info_stamp={"name": "t", "version": "1"}))
    fake._stamp_server_info = lambda version, result: ServerRunner._stamp_server_info(fake, version, result)  # type: ignore[arg-type]
    return fake


def stock_wire(result: CallToolResult, version: str) -> str:
    serialize = mcp_server.stock_serialize or ServerRunner._serialize
    return json.dumps(serialize(runner(), "tools/call", version, result))  # key order included


@pytest.mark.parametrize("name", list(TOOLS))
async def test_results_are_stock_but_the_mirror_follows_structured_content(name: str) -> None:
    stock = await call(name)
    adapters.install(strict=True)
    adapted = await call(name)
    assert adapted.structured_content == stock.structured_content
    assert json.dumps(adapted.structured_content) == json.dumps(stock.structured_content)
    assert adapted.model_fields_set == stock.model_fields_set
    assert (mcp_server._wire(adapted) is not None) == (name in NATIVE)
    if name in MIRROR_FOLLOWS_MODEL:
        sc = adapted.structured_content
        assert sc is not None
        texts = [c.text for c in adapted.content if isinstance(c, TextContent)]
        assert texts == [pydantic_core.to_json(sc.get("result", sc), indent=2).decode()]
        assert adapted.content != stock.content
    else:  # byte for byte, every block
        assert adapted.content == stock.content
    import mcp.server.runner

    serialize = mcp.server.runner.ServerRunner._serialize
    for version in VERSIONS:  # what goes on the wire: stock's, key order included
        ours = json.dumps(serialize(runner(), "tools/call", version, adapted))
        assert ours == stock_wire(adapted if name in MIRROR_FOLLOWS_MODEL else stock, version)


async def test_the_mirror_holds_the_value_structured_content_holds() -> None:
    """A float field given an int beyond 2**53: stock's mirror shows the int the tool returned,
    structuredContent the float the model made of it; here both show the float."""
    stock = await call("precision")
    adapters.install(strict=True)
    adapted = await call("precision")
    assert stock.structured_content == adapted.structured_content == {"d": 1.2345678901234568e17}
    (stock_text,), (text,) = ([c.text for c in r.content if isinstance(c, TextContent)] for r in (stock, adapted))
    assert stock_text == '{\n  "d": 123456789012345678\n}'
    assert text == '{\n  "d": 1.2345678901234568e+17\n}'
    assert json.loads(text) == adapted.structured_content != json.loads(stock_text)


async def test_the_coerced_mirror_shows_structured_content() -> None:
    adapters.install(strict=True)
    (block,) = (await call("coerced")).content
    assert isinstance(block, TextContent)
    assert json.loads(block.text) == {"x": 1.0, "label": 'é\n"'}
    assert '"x": 1.0' in block.text  # stock's mirror says 1 and shows "extra"


class Loose(BaseModel, extra="allow"):  # the mcp 1.x content models allow extra members
    text: str
    n: int = 0


TEMPLATES: dict[str, TextContent | Loose] = {
    "TextContent": TextContent(type="text", text=""),
    "with _meta": TextContent(type="text", text="", _meta={"k": [1]}),
    "extra allowed": Loose.model_validate({"text": "", "z": [1]}),
}


@pytest.mark.parametrize("name", list(TEMPLATES))
def test_model_copies_are_the_copies_pydantic_makes(name: str) -> None:
    template = TEMPLATES[name]
    before = copy.deepcopy(template.__getstate__())  # getstate hands out the template's own state
    values = ["", "a", "é\n" * 40, "\x00", "a"]
    copies = model_copies(template, "text", values)
    assert len(copies) == len(values)
    for made, value in zip(copies, values, strict=True):
        expected = template.model_copy(update={"text": value})
        assert type(made) is type(template)
        assert made.__getstate__() == expected.__getstate__()  # __dict__, fields set, extra, private
        assert made.text is value
    # Each copy's state is its own, as model_copy's is.
    second = copy.deepcopy(copies[1].__getstate__())
    copies[0].__dict__["text"] = "changed"
    copies[0].model_fields_set.add("annotations")
    if copies[0].__pydantic_extra__ is not None:
        copies[0].__pydantic_extra__["z"] = "changed"
    assert copies[1].__getstate__() == second
    assert template.__getstate__() == before


def test_text_blocks_are_what_the_constructor_builds() -> None:
    assert _mirror._COPIES  # copied natively on this SDK
    texts = ["", '{"a": 1}', "é" * 100]
    for block, text in zip(_mirror.text_blocks(texts), texts, strict=True):
        assert block.__getstate__() == TextContent(type="text", text=text).__getstate__()
        assert block.model_dump(by_alias=True) == {"type": "text", "text": text, "annotations": None, "_meta": None}


class Private(BaseModel):
    text: str
    _cache: dict[str, Any] = {}


class StrippedText(TextContent):
    model_config = ConfigDict(str_strip_whitespace=True)


class CachedText(TextContent):
    _cache: str = ""


@pytest.mark.parametrize("kind", [StrippedText, CachedText])
def test_text_blocks_take_the_constructor_when_a_copy_would_differ(
    kind: type[TextContent], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A TextContent whose validation changes a text, or one with private attributes (what a
    later SDK might ship): the copies would not be what it builds, so its constructor builds them."""
    monkeypatch.setattr(_mirror, "TextContent", kind)
    monkeypatch.setattr(_mirror, "_TEXT_BLOCK", kind(type="text", text=""))
    assert not _mirror.copies_are_built()
    monkeypatch.setattr(_mirror, "_COPIES", False)
    blocks = _mirror.text_blocks([" x ", "y"])
    assert [b.__getstate__() for b in blocks] == [kind(type="text", text=t).__getstate__() for t in (" x ", "y")]


class Flaky(BaseModel):
    """Its __new__ runs Python code: it empties the list being copied, then fails the third time."""

    text: str
    made: ClassVar[int] = 0
    values: ClassVar[list[str]] = []

    def __new__(cls, *args: Any, **kwargs: Any) -> Flaky:
        Flaky.made += 1
        Flaky.values.clear()
        if Flaky.made == 4:
            raise RuntimeError("no more")
        return super().__new__(cls)


def test_model_copies_survives_and_reports_what_a_class_does() -> None:
    template = Flaky(text="")
    Flaky.made, Flaky.values = 0, ["a", "b"]
    copies = model_copies(template, "text", Flaky.values)
    assert [c.text for c in copies] == ["a", "b"] and Flaky.values == []  # the values as they were
    Flaky.values = ["a", "b", "c"]
    with pytest.raises(RuntimeError, match="no more"):  # the fourth instance, the second copy
        model_copies(template, "text", Flaky.values)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((Private(text=""), "text", ["a"]), "not a pydantic model with a set field 'text' and no private"),
        ((Loose(text=""), "n", ["a"]), "not a pydantic model with a set field 'n'"),  # a default: not set
        ((Loose.model_validate({"text": "", "z": 1}), "z", ["a"]), "set field 'z'"),  # an extra member is not a field
        ((TextContent(type="text", text=""), 1, ["a"]), "set field 1"),
        ((object(), "text", ["a"]), "object is not a pydantic model"),
        ((TextContent(type="text", text=""), "text", ("a",)), "values must be a list, not tuple"),
        ((TextContent(type="text", text=""), "text"), r"takes 3 arguments \(2 given\)"),
    ],
)
def test_model_copies_refuses_what_it_cannot_copy(args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(TypeError, match=message):
        model_copies(*args)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", sorted(NATIVE))
async def test_the_runner_sends_what_stock_would(name: str, version: str) -> None:
    adapters.install(strict=True)
    result = await call(name)
    import mcp.server.runner

    ours = mcp.server.runner.ServerRunner._serialize(runner(), "tools/call", version, result)
    assert json.dumps(ours) == stock_wire(result, version)


async def test_a_changed_result_takes_the_stock_path(monkeypatch: pytest.MonkeyPatch) -> None:
    adapters.install(strict=True)
    import mcp.server.runner

    serialize = mcp.server.runner.ServerRunner._serialize
    changes: list[Callable[[CallToolResult], Any]] = [
        lambda r: setattr(r, "is_error", True),
        lambda r: r.content.append(TextContent(type="text", text="more")),
        lambda r: r.content.__setitem__(0, TextContent(type="text", text="x", _meta={"k": 1})),
        lambda r: setattr(r, "structured_content", None),
        lambda r: r.structured_content.__setitem__("x", 5),
        lambda r: r.structured_content.__setitem__("more", 5),
    ]
    for change in changes:
        result = await call("weather")
        change(result)
        assert mcp_server._wire(result) is None
        assert json.dumps(serialize(runner(), "tools/call", "2025-11-25", result)) == stock_wire(result, "2025-11-25")
    # A result built anywhere else, even of the same shape, is not trusted.
    other = CallToolResult(content=[TextContent(type="text", text="{}")], structured_content={"a": 1})
    assert mcp_server._wire(other) is None
    # Cache hints stay with the stock path.
    hinted = runner()
    hinted.server.cache_hints = {"tools/call": SimpleNamespace(ttl_ms=5, scope="private")}
    calls: list[tuple[Any, ...]] = []

    def stock(*a: Any) -> dict[str, Any]:
        calls.append(a)
        return {}

    monkeypatch.setattr(mcp_server, "stock_serialize", stock)
    serialize(hinted, "tools/call", "2025-11-25", await call("weather"))
    assert len(calls) == 1


async def test_the_mark_goes_with_the_result() -> None:
    adapters.install(strict=True)
    for _ in range(100):
        await call("weather")
    import gc

    gc.collect()
    assert len(_mirror._proven) == 0


# -- fastmcp ----------------------------------------------------------------------------------


def tool_result() -> ToolResult:  # a ToolResult the tool built: the stock path
    return ToolResult(content="x", structured_content={"k": 1})


FASTMCP_TOOLS = {**TOOLS, "tool_result": (tool_result, {})}
# fastmcp writes its mirror from the serialized value, so every text is stock's byte for byte.
# It gives list[Any] no output schema: no structured content, nothing to mark.
FASTMCP_NATIVE = NATIVE - {"mixed"}


async def fastmcp_call(name: str) -> ToolResult:
    fn, args = FASTMCP_TOOLS[name]
    app = FastMCP("t")
    app.tool(fn)
    tool = await app.get_tool(fn.__name__)
    assert tool is not None
    return tool.convert_result(fn(**args))


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")  # shape_as_dict: stock warns too
@pytest.mark.parametrize("name", list(FASTMCP_TOOLS))
async def test_fastmcp_results_are_stock(name: str) -> None:
    try:
        stock = await fastmcp_call(name)
    except ToolError as refused:  # fastmcp 4.2 refuses non-finite floats (not_json): so must we
        adapters.install(strict=True, output_validation="off")
        with pytest.raises(ToolError) as raised:
            await fastmcp_call(name)
        assert str(raised.value) == str(refused)
        return
    adapters.install(strict=True, output_validation="off")
    adapted = await fastmcp_call(name)
    assert adapted.content == stock.content
    assert json.dumps(adapted.structured_content) == json.dumps(stock.structured_content)
    assert (adapted.meta, adapted.is_error, adapted.model_fields_set) == (
        stock.meta,
        stock.is_error,
        stock.model_fields_set,
    )
    wire = mcp_server._wire(_normalize_call_tool_result(adapted.to_mcp_result()))
    assert (wire is not None) == (name in FASTMCP_NATIVE)
    import mcp.server.runner

    for version in VERSIONS:
        ours = _normalize_call_tool_result(adapted.to_mcp_result())
        got = mcp.server.runner.ServerRunner._serialize(runner(), "tools/call", version, ours)
        assert json.dumps(got) == stock_wire(_normalize_call_tool_result(stock.to_mcp_result()), version)


async def test_compact_mirror_on_request() -> None:
    adapters.install(strict=True, mirror="compact")
    result = await call("records")
    (block,) = result.content
    assert isinstance(block, TextContent)
    assert block.text == pydantic_core.to_json(result.structured_content).decode()
    assert mcp_server._wire(result) is not None
    with pytest.raises(ValueError, match="mirror"):
        adapters.install(mirror="pretty")
