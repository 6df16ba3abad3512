"""fastmcp's ``Client``: ``CallToolResult.data`` adapted (``adapters.fastmcp4.client``) is what
stock builds, type by type and value by value, for many output-schema shapes, and invalid
``structuredContent`` fails as stock fails; a real fastmcp server over stdio, adapted and stock."""

from __future__ import annotations

import copy
import dataclasses
import datetime
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from fastmcp.client.mixins import tools as client_tools
from fastmcp.utilities import json_schema_type
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from mcp_native import adapters
from mcp_native.adapters.fastmcp4 import client as fastmcp_client

pytestmark = [pytest.mark.usefixtures("adapters_restored")]

GROUP = "fastmcp-client-data"
ROOT = Path(__file__).resolve().parents[2]


def _proven() -> None:
    """Installs the adapters; the group must patch this fastmcp (or say why it does not)."""
    group = next(g for g in adapters.install().groups if g.spec.name == GROUP)
    if group.state == "stock":
        pytest.skip(f"{GROUP} stays stock on this fastmcp: {group.why}")
    assert vars(client_tools)["json_schema_to_type_adapter"] is fastmcp_client.json_schema_to_type_adapter


@pytest.fixture
def patched() -> Iterator[None]:
    _proven()
    yield
    adapters.uninstall()


# --- comparing .data ---------------------------------------------------------------------------


def _same(a: Any, b: Any, path: str = "$") -> None:
    """``a`` and ``b`` are the same value: the same types all the way down, equal leaves."""
    assert type(a) is type(b), f"{path}: {type(a)!r} != {type(b)!r}"
    if dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            _same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    elif isinstance(a, BaseModel):
        _same(a.__dict__, b.__dict__, f"{path}.__dict__")
        _same(a.__pydantic_extra__, b.__pydantic_extra__, f"{path}.__pydantic_extra__")
        assert a.__pydantic_fields_set__ == b.__pydantic_fields_set__, path
    elif isinstance(a, dict):
        assert list(a) == list(b), path
        for k in a:
            _same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{path}[{i}]")
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"
    assert a == b, path


def _containers(value: Any) -> dict[int, Any]:
    """Every dict and list in a JSON value, by id."""
    found: dict[int, Any] = {}
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (dict, list)):
            found[id(v)] = v
            stack.extend(v.values() if isinstance(v, dict) else v)
    return found


def _shared_paths(data: Any, given: Any) -> set[str]:
    """Where ``data`` holds a dict or list of ``given`` itself (not a copy)."""
    mine = _containers(given)
    paths: set[str] = set()

    def walk(v: Any, path: str) -> None:
        if isinstance(v, (dict, list)) and id(v) in mine:
            paths.add(path)
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            for f in dataclasses.fields(v):
                walk(getattr(v, f.name), f"{path}.{f.name}")
        elif isinstance(v, BaseModel):
            walk(v.__dict__, f"{path}.__dict__")
            walk(v.__pydantic_extra__, f"{path}.__extra__")
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(x, f"{path}[{k!r}]")
        elif isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                walk(x, f"{path}[{i}]")

    walk(data, "$")
    return paths


async def _data(schema: dict[str, Any], structured: Any, wrap: bool = False) -> tuple[Any, set[str]]:
    """``.data`` of a tools/call result as the installed client parses it, and where it shares
    the result's own objects."""
    result = mcp_types.CallToolResult(
        content=[],
        structured_content={"result": structured} if wrap else structured,
        _meta={"fastmcp": {"wrap_result": True}} if wrap else None,
    )

    async def no_listing() -> None:
        raise AssertionError("the schema is cached")

    parsed = await client_tools._parse_call_tool_result("tool", result, {"tool": schema}, no_listing)
    return parsed.data, _shared_paths(parsed.data, result.structured_content)


async def _compare(schema: dict[str, Any], structured: Any, wrap: bool = False) -> Any:
    """Parses ``structured`` stock, then adapted (a copy each), and checks they agree."""
    adapters.uninstall()
    stock, stock_shared = await _data(copy.deepcopy(schema), copy.deepcopy(structured), wrap)
    _proven()
    mine, mine_shared = await _data(copy.deepcopy(schema), copy.deepcopy(structured), wrap)
    adapters.uninstall()
    _same(stock, mine)
    assert stock_shared == mine_shared
    return stock


def _validate(schema: Any, value: Any, adapted: bool) -> Any:
    """The installed client's validation of ``value``: the value or the exception."""
    (_proven if adapted else adapters.uninstall)()
    try:
        return vars(client_tools)["json_schema_to_type_adapter"](schema).validate_python(value)
    except Exception as e:
        return e
    finally:
        adapters.uninstall()


def _errors(e: Any) -> list[dict[str, Any]]:
    return [{**d, "ctx": repr(d.get("ctx"))} for d in e.errors()]


def _same_outcome(schema: Any, value: Any) -> None:
    stock, mine = _validate(schema, copy.deepcopy(value), False), _validate(schema, copy.deepcopy(value), True)
    if isinstance(stock, Exception):
        assert type(mine) is type(stock) and str(mine) == str(stock)
        if hasattr(stock, "errors"):  # a ValidationError: the same errors (ctx holds exceptions)
            assert _errors(mine) == _errors(stock)
    else:
        _same(stock, mine)


# --- output schemas of every common shape -------------------------------------------------------

LOCATION = {
    "type": "object",
    "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
    "required": ["lat", "lon"],
}
RECORD = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "active": {"type": "boolean", "default": True},
        "temperature": {"type": "number"},
        "tags": {"type": "array", "items": {"type": "string"}, "default": []},
        "location": LOCATION,
        "updated": {"type": "string", "format": "date-time"},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        "level": {"enum": ["low", "high"]},
        "kind": {"const": "record"},
    },
    "required": ["id", "name", "temperature", "location", "updated"],
}
RECORDS = {
    "type": "object",
    "properties": {
        "records": {"type": "array", "items": RECORD},
        "total": {"type": "integer"},
        "page": {"type": "integer", "default": 1},
    },
    "required": ["records", "total"],
}


def _record(i: int, **extra: Any) -> dict[str, Any]:
    return {
        "id": i,
        "name": f"r{i}",
        "temperature": i / 3 if i % 2 else i,  # ints where a float is wanted, too
        "location": {"lat": 1.5, "lon": i},
        "updated": "2025-06-15T08:28:00Z",
        **extra,
    }


REFS = {
    "type": "object",
    "$defs": {"Location": LOCATION, "Tag": {"type": "string", "enum": ["a", "b"]}},
    "properties": {
        "home": {"$ref": "#/$defs/Location"},
        "work": {"anyOf": [{"$ref": "#/$defs/Location"}, {"type": "null"}], "default": None},
        "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}},
    },
    "required": ["home"],
}
OPEN = {  # additionalProperties: a pydantic model keeping the extra keys
    "type": "object",
    "properties": {"name": {"type": "string"}, "where": LOCATION},
    "required": ["name"],
    "additionalProperties": True,
}
TYPED_EXTRAS = {**OPEN, "additionalProperties": {"type": "integer"}}
DICT_OF = {"type": "object", "additionalProperties": LOCATION}
NESTED_OBJECTS = {
    "type": "object",
    "properties": {
        "free": {"type": "object"},
        "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
        "inner": {
            "type": "object",
            "properties": {"deep": {"type": "object", "properties": {"x": {"type": "integer"}}}},
        },
    },
}
OBJECT_DEFAULT = {  # an object default: fastmcp merges it, so its hook is kept
    "type": "object",
    "properties": {
        "where": {**LOCATION, "default": {"lat": 0, "lon": 0}},
        "name": {"type": "string"},
    },
}
OBJECT_DEFAULT_OPTIONAL = {  # ... merged under the keys given: {"lat": 5} gets the default's lon
    "type": "object",
    "properties": {
        "where": {
            "type": "object",
            "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
            "default": {"lat": 0, "lon": 0},
        },
    },
}
ENUM_OBJECT = {  # an object property converted to an enum check: kept (it may keep the object itself)
    "type": "object",
    "properties": {"choice": {"type": "object", "enum": [{"a": 1}, {"b": 2}]}},
}
RECURSIVE = {
    "type": "object",
    "title": "Node",
    "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#"}}},
    "required": ["value"],
}
WRAPPED_LIST = {
    "type": "object",
    "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/Location"}}},
    "required": ["result"],
    "$defs": {"Location": LOCATION},
    "x-fastmcp-wrap-result": True,
}
WRAPPED_SCALAR = {
    "type": "object",
    "properties": {"result": {"type": "number"}},
    "required": ["result"],
    "x-fastmcp-wrap-result": True,
}

CASES: list[tuple[str, dict[str, Any], Any]] = [
    ("records", RECORDS, {"records": [_record(i) for i in range(50)], "total": 50}),
    (
        "records, every field",
        RECORDS,
        {
            "records": [_record(i, active=False, tags=["x"], note="n", level="high", kind="record") for i in range(5)],
            "total": 5,
            "page": 2,
            "extra": "ignored",
        },
    ),
    ("records, empty", RECORDS, {"records": [], "total": 0}),
    ("refs", REFS, {"home": {"lat": 1, "lon": 2}, "tags": ["a", "b"]}),
    ("refs, optional set", REFS, {"home": {"lat": 1, "lon": 2}, "work": {"lat": 3, "lon": 4.5}, "tags": []}),
    ("open", OPEN, {"name": "n", "where": {"lat": 1, "lon": 2}, "more": [1, {"x": 2}]}),
    ("typed extras", TYPED_EXTRAS, {"name": "n", "a": 1, "b": 2}),
    ("dict of objects", DICT_OF, {"a": {"lat": 1, "lon": 2}, "b": {"lat": 3, "lon": 4}}),
    ("nested objects", NESTED_OBJECTS, {"free": {"a": [1, {"b": 2}]}, "counts": {"x": 1}, "inner": {"deep": {"x": 1}}}),
    ("nested objects, empty", NESTED_OBJECTS, {"inner": {}}),
    ("object default, omitted", OBJECT_DEFAULT, {"name": "n"}),
    ("object default, partial", OBJECT_DEFAULT, {"where": {"lat": 5}}),
    ("object default, empty", OBJECT_DEFAULT, {"where": {}}),
    ("object default, merged", OBJECT_DEFAULT_OPTIONAL, {"where": {"lat": 5}}),
    ("object default, filled", OBJECT_DEFAULT_OPTIONAL, {"where": {}}),
    ("enum object", ENUM_OBJECT, {"choice": {"a": 1}}),
    ("recursive", RECURSIVE, {"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]}),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("name", "schema", "structured"), CASES, ids=[c[0] for c in CASES])
async def test_data_is_stocks(name: str, schema: dict[str, Any], structured: Any) -> None:
    data = await _compare(schema, structured)
    assert data is not None  # valid: stock built it


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (WRAPPED_LIST, [{"lat": 1, "lon": 2}, {"lat": 3.5, "lon": 4}]),
        (WRAPPED_LIST, []),
        (WRAPPED_SCALAR, 3),
        (WRAPPED_SCALAR, 2.5),
    ],
)
async def test_wrapped_results_are_stocks(schema: dict[str, Any], value: Any) -> None:
    data = await _compare(schema, value, wrap=True)
    assert data is not None and len(data if isinstance(data, list) else [data]) == len(
        value if isinstance(value, list) else [value]
    )


def test_the_records_schema_loses_its_hooks_and_the_kept_ones_stay_stock() -> None:
    """Which schemas get the validator without hooks: a stand-in for one whose hooks change
    nothing, the stock adapter for one with an object default or an object enum (4.2), and for
    one without any dataclass."""
    _proven()
    converted = vars(client_tools)["json_schema_to_type_adapter"]
    stock = fastmcp_client.stock_json_schema_to_type_adapter
    assert stock is json_schema_type.json_schema_to_type_adapter
    plain = RECORDS if fastmcp_client._OBJECT_DEFAULTS_ONLY else DICT_OF  # (4.0, 4.1: no default at all)
    assert isinstance(converted(plain), fastmcp_client._Validated)
    assert converted(plain).adapter is stock(plain)
    for kept in (
        OBJECT_DEFAULT,
        OBJECT_DEFAULT_OPTIONAL,
        ENUM_OBJECT,
        DICT_OF | {"additionalProperties": True},
        {"type": "integer"},
    ):
        assert converted(kept) is stock(kept)
    assert converted(True) is not None


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (RECORDS, {"records": [_record(1, id="x")], "total": 1}),
        (RECORDS, {"records": [_record(1, location={"lat": 1})], "total": 1}),
        (RECORDS, {"records": [_record(1, updated="yesterday")], "total": 1}),
        (RECORDS, {"records": [_record(1, level="medium")], "total": 1}),
        (RECORDS, {"records": "none", "total": 1}),
        (RECORDS, {"total": 1}),
        (RECORDS, [1, 2]),
        (RECORDS, None),
        (REFS, {"home": {"lat": "north", "lon": 2}}),
        (REFS, {"home": {"lat": 1, "lon": 2}, "tags": ["c"]}),
        (OPEN, {"where": {"lat": 1, "lon": 2}}),
        (TYPED_EXTRAS, {"name": "n", "a": "one"}),
        (RECURSIVE, {"value": 1, "children": [{"children": []}]}),
    ],
)
def test_invalid_data_fails_as_stock_fails(schema: dict[str, Any], value: Any) -> None:
    stock = _validate(schema, value, adapted=False)
    assert isinstance(stock, Exception)
    _same_outcome(schema, value)


@pytest.mark.anyio
async def test_invalid_data_is_none_as_stock(caplog: pytest.LogCaptureFixture) -> None:
    assert await _compare(RECORDS, {"records": [_record(1, id="x")], "total": 1}) is None


# --- a property test: random schemas and values --------------------------------------------------

_LEAVES = [
    {"type": "integer"},
    {"type": "number"},
    {"type": "string"},
    {"type": "boolean"},
    {"type": "null"},
    {"type": "string", "format": "date"},
    {"type": "string", "default": "d"},
    {"type": "integer", "default": 3},
    {"type": "number", "minimum": 0},
    {"enum": ["a", "b", None]},
    {"enum": [1, "x", True]},
    {"const": "k"},
    {},
    {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
    {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    {"type": ["integer", "null"]},
]
_NAMES = st.sampled_from(["a", "b", "c", "d-e", "class", "_p", "model_dump"])


def _schemas() -> st.SearchStrategy[dict[str, Any]]:
    def extend(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
        def obj(props: dict[str, Any], required: list[str], extra: Any, default: Any) -> dict[str, Any]:
            schema: dict[str, Any] = {
                "type": "object",
                "properties": props,
                "required": [r for r in required if r in props],
            }
            if extra is not None:
                schema["additionalProperties"] = extra
            if default is not None:
                schema["default"] = default
            return schema

        return st.one_of(
            st.builds(
                lambda s, d: {"type": "array", "items": s} | ({"default": []} if d else {}), children, st.booleans()
            ),
            st.builds(
                obj,
                st.dictionaries(_NAMES, children, min_size=1, max_size=4),
                st.lists(_NAMES, max_size=4),
                st.sampled_from([None, None, True, False, {"type": "integer"}]),
                st.sampled_from([None, None, None, {}, {"a": 1}]),
            ),
            st.builds(lambda s: {"type": "object", "additionalProperties": s}, children),
        )

    return st.recursive(st.sampled_from(_LEAVES), extend, max_leaves=8)


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(-5, 5, allow_nan=False)
    | st.sampled_from(["a", "x", "k", "2024-05-01"]),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_NAMES, children, max_size=3),
    max_leaves=6,
)


def _values(schema: Any, draw: Any) -> Any:
    """A value for ``schema``: usually one that fits, sometimes any JSON."""
    if draw(st.integers(0, 9)) == 0:
        return draw(_JSON)
    kind = schema.get("type")
    if "enum" in schema:
        return draw(st.sampled_from(schema["enum"]))
    if "const" in schema:
        return schema["const"]
    if "anyOf" in schema:
        return _values(draw(st.sampled_from(schema["anyOf"])), draw)
    if isinstance(kind, list):
        return _values({**schema, "type": draw(st.sampled_from(kind))}, draw)
    if kind == "integer":
        return draw(st.integers(-3, 3) | st.just(2.0))
    if kind == "number":
        return draw(st.integers(0, 3) | st.floats(0, 3))
    if kind == "string":
        return draw(st.just("2024-05-01") if schema.get("format") == "date" else st.sampled_from(["a", "", "z"]))
    if kind == "boolean":
        return draw(st.booleans())
    if kind == "null":
        return None
    if kind == "array":
        return [_values(schema["items"], draw) for _ in range(draw(st.integers(0, 3)))]
    if kind == "object":
        props = schema.get("properties", {})
        out = {k: _values(s, draw) for k, s in props.items() if k in schema.get("required", []) or draw(st.booleans())}
        extra = schema.get("additionalProperties")
        if extra is not None and extra is not False and draw(st.booleans()):
            out["zz"] = draw(_JSON) if extra is True else _values(extra, draw)
        return out
    return draw(_JSON)


@st.composite
def _schema_and_value(draw: Any) -> tuple[dict[str, Any], Any]:
    schema = draw(_schemas())
    if schema.get("type") != "object" or draw(st.integers(0, 3)) == 0:
        schema = {"type": "object", "properties": {"result": schema}, "required": ["result"]}
    return schema, _values(schema, draw)


@pytest.mark.anyio
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_schema_and_value())
async def test_any_schema_and_value_is_parsed_as_stock(case: tuple[dict[str, Any], Any]) -> None:
    schema, value = case
    await _compare(schema, value)
    _same_outcome(schema, value)


# --- a real fastmcp server and Client over stdio --------------------------------------------------

SERVER = """
import sys
from datetime import date
from enum import Enum
from typing import Literal
from pydantic import BaseModel, Field, ConfigDict
from fastmcp import FastMCP

class Level(str, Enum):
    low = "low"
    high = "high"

class Location(BaseModel):
    lat: float
    lon: float

class Record(BaseModel):
    id: int
    name: str
    active: bool = True
    temperature: float
    tags: list[str] = []
    location: Location
    updated: str = Field(alias="updatedAt")
    note: str | None = None
    level: Level = Level.low
    day: date | None = None

class Records(BaseModel):
    records: list[Record]
    total: int
    page: int = 1

class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str

app = FastMCP("records")

@app.tool
def records(n: int) -> Records:
    rows = [Record(id=i, name=f"r{i}", temperature=i / 3, location=Location(lat=1.5, lon=i),
                   updatedAt="2025-06-15T08:28:00Z", note=None if i % 2 else "n",
                   level=Level.high if i % 3 else Level.low, day=date(2024, 1, 1 + i % 28))
            for i in range(n)]
    return Records(records=rows, total=n)

@app.tool
def locations(n: int) -> list[Location]:
    return [Location(lat=i, lon=i / 2) for i in range(n)]

@app.tool
def mapping() -> dict[str, int]:
    return {"a": 1, "b": 2}

@app.tool
def open_model() -> Open:
    return Open(name="n", more=[1, 2])

@app.tool
def level() -> Literal["low", "high"]:
    return "high"

app.run("stdio", show_banner=False)
"""

CALLS = [
    ("records", {"n": 200}),
    ("records", {"n": 0}),
    ("locations", {"n": 20}),
    ("mapping", {}),
    ("open_model", {}),
    ("level", {}),
]


async def _over_stdio(server: Path, adapted: bool) -> list[Any]:
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    args = [str(server)] if not adapted else ["-m", "mcp_native", "run", str(server)]
    env = {k: v for k, v in os.environ.items() if k != adapters.ENVIRONMENT}
    out = []
    async with Client(StdioTransport(sys.executable, args, env=env, cwd=str(ROOT))) as client:
        for name, arguments in CALLS:
            out.append((await client.call_tool(name, arguments)).data)
    return out


@pytest.mark.anyio
async def test_a_fastmcp_server_read_by_its_client_gives_stocks_data(tmp_path: Path) -> None:
    server = tmp_path / "records_server.py"
    server.write_text(SERVER)
    adapters.uninstall()
    stock = await _over_stdio(server, adapted=False)
    _proven()
    calls = []
    validated = fastmcp_client._Validated.validate_python

    def counting(self: Any, value: Any) -> Any:
        calls.append(value)
        return validated(self, value)

    fastmcp_client._Validated.validate_python = counting  # type: ignore[method-assign]
    try:
        mine = await _over_stdio(server, adapted=True)
    finally:
        fastmcp_client._Validated.validate_python = validated  # type: ignore[method-assign]
    _same(stock, mine)
    assert len(stock[0].records) == 200 and stock[0].records[3].day == datetime.date(2024, 1, 4)
    if fastmcp_client._OBJECT_DEFAULTS_ONLY:  # 4.2: the records' defaults are no object defaults
        assert calls, "the records were not validated without the hooks"
