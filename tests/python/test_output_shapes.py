"""OutputShape: a tool's return value copied natively only where pydantic's validation and
JSON-mode dump by its output model would give that very value back.

The reference is pydantic itself: for generated models (typed dicts and models of str, int,
float, bool, optionals, lists, nested) and values near them (exact, and with the differences
pydantic would change: an int under a float, a float under an int, a bool, a tuple, keys out of
order, extra or missing keys, subclasses, non-finite floats), whatever the shape copies is
exactly pydantic's result, key order and int/float spelling included, in new containers; and
every value of exactly the model's shape is copied (so the property cannot pass by copying
nothing).
"""

from __future__ import annotations

import json
import math
import warnings
from typing import Annotated, Any, Optional

import pydantic_core
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    TypeAdapter,
    computed_field,
    create_model,
    field_serializer,
    field_validator,
    model_validator,
)
from typing_extensions import NotRequired, TypedDict

from mcp_native._core import OutputShape
from mcp_native.adapters._engines.outputs import exact_copy, output_shape

_names = iter(range(10**9))


def _model(kind: str, fields: list[tuple[str, Any, bool]]) -> Any:
    """A typed dict or model class with ``fields`` (name, annotation, required)."""
    name = f"M{next(_names)}"
    if kind == "typed-dict":
        return TypedDict(name, {f: (t if req else NotRequired[t]) for f, t, req in fields})  # type: ignore[operator]
    return create_model(name, **{f: ((t, ...) if req else (t, None)) for f, t, req in fields})  # type: ignore[call-overload]


_FIELD_NAMES = ["a", "b", "c", "d"]


def _models(inner: Any, kinds: tuple[str, ...] = ("typed-dict", "model")) -> Any:
    return st.tuples(
        st.sampled_from(kinds),
        st.lists(st.tuples(inner, st.booleans()), min_size=1, max_size=4),
    ).map(lambda km: _model(km[0], [(_FIELD_NAMES[i], t, req) for i, (t, req) in enumerate(km[1])]))


def _optional(t: Any) -> Any:
    return Optional[t]  # noqa: UP045 (built at run time)


def _list(t: Any) -> Any:
    return list[t]


field_types: Any = st.recursive(
    st.sampled_from([str, int, float, bool]),
    lambda inner: inner.map(_optional) | inner.map(_list) | _models(inner),
    max_leaves=6,
)
# fastmcp serializes with its return annotation's schema: typed dicts (a model there is not given
# a dict without a warning, so none is walked).
typed_dict_field_types: Any = st.recursive(
    st.sampled_from([str, int, float, bool]),
    lambda inner: inner.map(_optional) | inner.map(_list) | _models(inner, ("typed-dict",)),
    max_leaves=6,
)


class Str(str):
    pass


class Dict(dict):  # type: ignore[type-arg]
    pass


def _fields(t: Any) -> list[tuple[str, Any, bool]]:
    if isinstance(t, type) and issubclass(t, BaseModel):
        return [(n, f.annotation, f.is_required()) for n, f in t.model_fields.items()]
    required = t.__required_keys__
    return [(n, a, n in required) for n, a in t.__annotations__.items()]


def _strip_not_required(a: Any) -> Any:
    return a.__args__[0] if getattr(a, "__origin__", None) is NotRequired else a


@st.composite
def exact_values(draw: Any, t: Any) -> Any:
    """A value of exactly ``t``'s shape: what pydantic gives back unchanged."""
    t = _strip_not_required(t)
    if t is str:
        return draw(st.text(max_size=5))
    if t is int:
        return draw(st.integers(min_value=-(2**70), max_value=2**70))
    if t is float:
        return draw(st.floats(allow_nan=False, allow_infinity=False))
    if t is bool:
        return draw(st.booleans())
    origin = getattr(t, "__origin__", None)
    if origin is list:
        return draw(st.lists(exact_values(t.__args__[0]), max_size=3))
    if t.__class__.__name__ in ("UnionType", "_UnionGenericAlias") or origin is not None:  # Optional[x]
        inner = next(a for a in t.__args__ if a is not type(None))
        return draw(st.none() | exact_values(inner))
    is_model = isinstance(t, type) and issubclass(t, BaseModel)
    out = {}
    for name, a, required in _fields(t):
        if required or is_model or draw(st.booleans()):
            out[name] = draw(exact_values(a))
    return out


@st.composite
def near_values(draw: Any, t: Any) -> Any:
    """An exact value, then perhaps one of the differences pydantic would change."""
    value = draw(exact_values(t))
    return _perturb(draw, value)


def _perturb(draw: Any, value: Any) -> Any:
    change = draw(st.integers(0, 12))
    if isinstance(value, bool):
        return [value, int(value), Str("x")][draw(st.integers(0, 2))] if change < 3 else value
    if isinstance(value, int):
        return [value, float(value), bool(value % 2), Str(str(value))][draw(st.integers(0, 3))] if change < 4 else value
    if isinstance(value, float):
        alternatives = [value, math.nan, math.inf, -math.inf]
        if value.is_integer() and abs(value) < 2**53:
            alternatives.append(int(value))
        return alternatives[draw(st.integers(0, len(alternatives) - 1))] if change < 4 else value
    if isinstance(value, str):
        return Str(value) if change < 2 else value
    if isinstance(value, list):
        items = [_perturb(draw, v) for v in value]
        return tuple(items) if change < 2 else items
    if isinstance(value, dict):
        items = [(k, _perturb(draw, v)) for k, v in value.items()]
        if change == 0 and len(items) > 1:
            items.reverse()
        elif change == 1:
            items.append(("zz", 1))
        elif change == 2 and items:
            items.pop(draw(st.integers(0, len(items) - 1)))
        return Dict(items) if change == 3 else dict(items)
    return value


def _pydantic(adapter: TypeAdapter[Any], value: Any) -> Any:
    validated = adapter.validate_python(value, by_alias=True, by_name=True)
    if isinstance(validated, BaseModel):
        return validated.model_dump(mode="json", by_alias=True)
    return adapter.dump_python(validated, mode="json", by_alias=True)


def _same(a: Any, b: Any) -> bool:
    """Equal with the same key order and the same types (1 is not 1.0, True is not 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@st.composite
def models_and_values(draw: Any) -> tuple[Any, Any, Any]:
    # structuredContent is an object: a typed dict or a model at the top (a tool's other
    # results are wrapped in a model's "result" field).
    t = draw(_models(field_types))
    return t, draw(exact_values(t)), draw(near_values(t))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models_and_values())
def test_what_is_copied_is_pydantics_result(case: tuple[Any, Any, Any]) -> None:
    t, exact, near = case
    adapter = TypeAdapter(t)
    shape = output_shape(adapter)
    assert shape is not None, adapter.core_schema
    copied = shape.copy(exact)
    assert copied is not None and _same(copied, _pydantic(adapter, exact)), (exact, copied)
    copied = shape.copy(near)
    if copied is not None:
        assert _same(copied, _pydantic(adapter, near)), (near, copied)
    if isinstance(near, (dict, list)) and copied is not None:
        assert copied is not near


def _serialized(adapter: TypeAdapter[Any], value: Any) -> Any:
    """fastmcp's ``_serialize_to_jsonable``: the JSON serialization, parsed back."""
    serializer = pydantic_core.SchemaSerializer(adapter.core_schema, config={"ser_json_inf_nan": "constants"})
    return json.loads(serializer.to_json(value))


@st.composite
def typed_dicts_and_values(draw: Any) -> tuple[Any, Any, Any]:
    t = draw(_models(typed_dict_field_types, ("typed-dict",)))
    near = draw(near_values(t))
    if draw(st.booleans()) and isinstance(near, dict) and near:  # a lone surrogate somewhere
        near = {**near, next(iter(near)): "\ud800"}
    return t, draw(exact_values(t)), near


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(typed_dicts_and_values())
def test_what_is_copied_for_fastmcp_is_its_serialization_parsed_back(case: tuple[Any, Any, Any]) -> None:
    t, exact, near = case
    adapter = TypeAdapter(t)
    shape = output_shape(adapter, serialized=True)
    assert shape is not None, adapter.core_schema
    copied = shape.copy(exact)
    assert copied is not None and _same(copied, _serialized(adapter, exact)), (exact, copied)
    copied = shape.copy(near)
    if copied is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a value serialized with a warning is not copied
            assert _same(copied, _serialized(adapter, near)), (near, copied)


def test_serialized_a_model_or_a_lone_surrogate_is_not_copied() -> None:
    class Inner(BaseModel):
        a: int

    class Outer(TypedDict):
        inner: Inner

    class Named(TypedDict):
        name: str

    assert output_shape(TypeAdapter(Outer), serialized=True) is None
    assert output_shape(TypeAdapter(Outer)) is not None  # validated and dumped, it is walked
    adapter = TypeAdapter(Named)
    assert exact_copy(adapter, {"name": "x\ud800"}, serialized=True) is None
    assert exact_copy(adapter, {"name": "x\ud800"}) == {"name": "x\ud800"}
    assert exact_copy(adapter, {"name": "é"}, serialized=True) == {"name": "é"}


def test_a_table_of_records() -> None:
    class Record(TypedDict):
        id: int
        name: str
        score: float
        tags: list[str]
        note: NotRequired[str | None]

    class Table(TypedDict):
        records: list[Record]
        total: int

    adapter = TypeAdapter(Table)
    rows: list[Record] = [{"id": i, "name": f"n{i}", "score": i / 3, "tags": ["a"] * (i % 3)} for i in range(50)]
    rows[7]["note"] = None
    rows[8]["note"] = "x"
    value = {"records": rows, "total": 50}
    copied = exact_copy(adapter, value)
    assert copied is not None and _same(copied, _pydantic(adapter, value))
    assert copied["records"] is not rows and copied["records"][0] is not rows[0]
    assert copied["records"][0]["tags"] is not rows[0]["tags"]
    # Each difference pydantic would change takes its path, wherever it is.
    for broken in (
        {"records": rows, "total": 50.0},
        {"total": 50, "records": rows},
        {"records": [*rows[:-1], {**rows[-1], "score": 1}], "total": 50},
        {"records": [*rows[:-1], {**rows[-1], "extra": 1}], "total": 50},
        {"records": [*rows[:-1], {"name": "x", "id": 1, "score": 1.0, "tags": []}], "total": 50},
        {"records": [*rows[:-1], {**rows[-1], "tags": ("a",)}], "total": 50},
        {"records": [*rows[:-1], {**rows[-1], "score": math.nan}], "total": 50},
        {"records": [*rows[:-1], {"id": 1, "name": "x", "score": 1.0}], "total": 50},
        {"records": tuple(rows), "total": 50},
    ):
        assert exact_copy(adapter, broken) is None, broken
    assert exact_copy(adapter, []) is None
    assert exact_copy(adapter, None) is None


class Plain(BaseModel):
    a: int
    b: str = "x"


class Validated(BaseModel):
    a: int

    @field_validator("a")
    @classmethod
    def double(cls, v: int) -> int:
        return v * 2


class ModelValidated(BaseModel):
    a: int

    @model_validator(mode="after")
    def check(self) -> ModelValidated:
        return self


class Serialized(BaseModel):
    a: int

    @field_serializer("a")
    def out(self, v: int) -> str:
        return str(v)


class Computed(BaseModel):
    a: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def b(self) -> int:
        return self.a


class Aliased(BaseModel):
    a: int = Field(alias="A")


class Stripped(BaseModel):
    model_config = ConfigDict(str_strip_whitespace=True)
    a: str


class Extra(BaseModel):
    model_config = ConfigDict(extra="allow")
    a: int


class OwnDump(BaseModel):
    a: int

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        return {"a": -1}


class Tree(BaseModel):
    children: list[Tree]


class Bounded(TypedDict):
    a: Annotated[str, Field(max_length=2)]


class Spelled(TypedDict):
    a: Annotated[int, PlainSerializer(lambda v: str(v))]


class Open(TypedDict):
    a: Any


class Keyed(TypedDict):
    a: dict[str, int]


class Paired(TypedDict):
    a: tuple[int, int]


@pytest.mark.parametrize(
    "t",
    [
        Validated,
        ModelValidated,
        Serialized,
        Computed,
        Aliased,
        Stripped,
        Extra,
        OwnDump,
        Tree,
        Bounded,
        Spelled,
        Open,
        Keyed,
        Paired,
        Annotated[int, Field(gt=0)],
        list[Any],
        dict[str, str] | None,
        list[int],  # not an object
        int,
    ],
    ids=lambda t: getattr(t, "__name__", repr(t)),
)
def test_models_that_could_change_a_value_are_not_walked(t: Any) -> None:
    assert output_shape(TypeAdapter(t)) is None
    if isinstance(t, type) and issubclass(t, BaseModel):
        assert output_shape(t) is None


def test_a_model_copies_with_all_its_fields_only() -> None:
    # Its dump adds a default the value left out: that value is pydantic's to finish.
    assert _same(exact_copy(Plain, {"a": 1, "b": "y"}), Plain.model_validate({"a": 1, "b": "y"}).model_dump())
    assert exact_copy(Plain, {"a": 1}) is None
    assert exact_copy(Plain, {"b": "y", "a": 1}) is None


def test_the_shape_is_read_once_per_owner() -> None:
    adapter = TypeAdapter(Plain)
    assert output_shape(adapter) is output_shape(adapter)


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ("int", TypeError),
        (("nope",), ValueError),
        (("dict", (("a", 1, ("int",)),)), TypeError),
        (("list",), ValueError),
    ],
)
def test_a_bad_spec_is_refused(spec: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        OutputShape(spec)


def test_a_deep_spec_is_refused() -> None:
    spec: Any = ("int",)
    for _ in range(70):
        spec = ("list", spec)
    with pytest.raises(ValueError, match="64 levels"):
        OutputShape(spec)


def test_the_copy_keeps_the_values_text() -> None:
    shape = OutputShape(("dict", (("a", True, ("float",)), ("b", False, ("nullable", ("str",))))))
    value = {"a": 1e300, "b": "é\ud800"}
    assert json.dumps(shape.copy(value)) == json.dumps(value)
