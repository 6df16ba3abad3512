"""The stubs in _core.pyi must match the native module.

stubtest checks names and signatures, but not what a function returns; the return annotations
are checked here against what each entry point returns at run time, and none may be a bare
``object`` (which makes ``ok: bool = v.is_valid_json(b)`` a type error for users of the stubs).
"""

from __future__ import annotations

import inspect
import subprocess
import sys
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import mcp_native
from mcp_native import _core, jsonrpc, sse

STUB = Path(mcp_native.__file__).with_name("_core.pyi")

# Entry points whose result is genuinely any JSON value (or None: OutputShape.copy).
ANY_RETURNS = {"loads", "OutputShape.copy"}


def test_stubtest_core() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "mcp_native._core"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _stub_namespace() -> dict[str, Any]:
    ns: dict[str, Any] = {"__name__": "_core_stub"}
    exec(compile(STUB.read_text(encoding="utf-8"), str(STUB), "exec"), ns)
    return ns


def _stub_entries() -> dict[str, Callable[..., Any]]:
    """Every public-or-private function, method and property getter the stub declares, by
    dotted name (constructors excepted: they return None by definition)."""
    ns = _stub_namespace()
    out: dict[str, Callable[..., Any]] = {}
    for name, obj in ns.items():
        if getattr(obj, "__module__", None) != "_core_stub":
            continue
        if inspect.isfunction(obj):
            out[name] = obj
        elif inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if isinstance(member, property) and member.fget is not None:
                    out[f"{name}.{attr}"] = member.fget
                elif inspect.isfunction(member) and (not attr.startswith("__") or attr == "__call__"):
                    out[f"{name}.{attr}"] = member
    return out


class Block(BaseModel):
    text: str


def _validator() -> _core.SchemaValidator:
    return mcp_native.Validator({"type": "integer"})


def _writer() -> _core.ResponseWriter:
    return _core.ResponseWriter(_validator(), "2026-07-28")


def _decoder() -> _core.JsonRpcDecoder:
    return _core.JsonRpcDecoder(1 << 20, "2025-11-25")


def _sse_decoder() -> _core.SseDecoder:
    d = _core.SseDecoder()
    d.feed(b"id: 7\nretry: 10\ndata: x\n\n")
    return d


# One call per entry point, with arguments that make it return its usual kind of result.
CALLS: dict[str, Callable[[], Any]] = {
    "dumps": lambda: _core.dumps({"a": [1, 2.5]}),
    "pydantic_json_text": lambda: _core.pydantic_json_text({"a": 1}, None),
    "loads": lambda: _core.loads(b'{"a": 1}'),
    "SchemaValidator.is_valid": lambda: _validator().is_valid(1),
    "SchemaValidator.is_valid_json": lambda: _validator().is_valid_json(b"1"),
    "SchemaValidator._errors": lambda: _validator()._errors("x"),
    "SchemaValidator._errors_json": lambda: _validator()._errors_json(b'"x"'),
    "ResponseWriter.encode_response": lambda: _writer().encode_response(1, 3),
    "mcp_tool_result": lambda: _core.mcp_tool_result("text", None, {"a": 1}, True),
    "model_copies": lambda: _core.model_copies(Block(text=""), "text", ["a"]),
    "OutputShape.copy": lambda: _core.OutputShape(("dict", (("a", True, ("int",)),))).copy({"a": 1}),
    # Registers the classes jsonrpc and sse registered already.
    "_jsonrpc_set_types": lambda: _core._jsonrpc_set_types(
        jsonrpc.Request, jsonrpc.Notification, jsonrpc.Response, jsonrpc.ErrorResponse, jsonrpc.Invalid
    ),
    "JsonRpcDecoder.feed": lambda: _decoder().feed(b'{"jsonrpc":"2.0","method":"m"}\n'),
    "JsonRpcDecoder.close": lambda: _decoder().close(),
    "JsonRpcDecoder.max_message_bytes": lambda: _decoder().max_message_bytes,
    "JsonRpcDecoder.protocol_version": lambda: _decoder().protocol_version,
    "JsonRpcDecoder.pending_bytes": lambda: _decoder().pending_bytes,
    "encode_request": lambda: _core.encode_request(1, "m", {"a": 1}),
    "encode_notification": lambda: _core.encode_notification("m"),
    "encode_response": lambda: _core.encode_response(1, {}),
    "encode_error": lambda: _core.encode_error(1, -32600, "bad"),
    "_sse_set_types": lambda: _core._sse_set_types(sse.Event),
    "sse_encode_event": lambda: _core.sse_encode_event(b"x"),
    "SseDecoder.feed": lambda: _core.SseDecoder().feed(b"data: x\n\n"),
    "SseDecoder.close": lambda: _core.SseDecoder().close(),
    "SseDecoder.last_event_id": lambda: _sse_decoder().last_event_id,
    "SseDecoder.retry": lambda: _sse_decoder().retry,
    "build_info": _core.build_info,
}


def conforms(value: Any, hint: Any) -> bool:
    """Whether value is of the annotated type (the forms the stub uses)."""
    if hint is Any or hint is object or isinstance(hint, typing.TypeVar):  # a TypeVar: an argument's type
        return True
    if hint is None or hint is type(None):
        return value is None
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(conforms(value, a) for a in args)
    if origin is list:
        return isinstance(value, list) and all(conforms(x, args[0]) for x in value)
    if origin is dict:
        return isinstance(value, dict) and all(conforms(k, args[0]) and conforms(v, args[1]) for k, v in value.items())
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(conforms(x, args[0]) for x in value)
        return len(value) == len(args) and all(conforms(x, a) for x, a in zip(value, args, strict=True))
    if origin is not None:
        return isinstance(value, origin)
    if hint is int:  # a bool is an int to isinstance, not to a reader of the stub
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def test_every_stub_entry_has_a_call() -> None:
    assert sorted(_stub_entries()) == sorted(CALLS)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_stub_return_annotation(name: str) -> None:
    hint = typing.get_type_hints(_stub_entries()[name])["return"]
    assert hint is not object, f"{name}: the stub says it returns object; name the type it returns"
    if hint is Any:
        assert name in ANY_RETURNS, f"{name}: the stub says it returns Any; name the type it returns"
    value = CALLS[name]()
    assert conforms(value, hint), f"{name}: returned {value!r} ({type(value).__name__}), the stub says {hint}"


def test_conforms_catches_a_wrong_annotation() -> None:
    # The checker itself: each of these pairs must be told apart.
    assert not conforms(True, int) and conforms(True, bool)
    assert not conforms(b"x", str) and conforms(b"x", bytes)
    assert not conforms([1, "a"], list[int]) and conforms([1, "a"], list[int | str])
    assert not conforms({"a": 1}, dict[str, str]) and conforms({"a": "b"}, dict[str, str])
    assert not conforms((1, 2), tuple[int]) and conforms((1, 2), tuple[int, ...])
    assert not conforms(None, int) and conforms(None, int | None)


def test_typed_results() -> None:
    # Checked by mypy --strict (scripts/test runs it on the tests), and here at run time.
    v = _validator()
    ok: bool = v.is_valid_json(b"1")
    valid: bool = v.is_valid(1)
    line: bytes = _core.encode_request(1, "m")
    info: dict[str, str | bool] = mcp_native.build_info()
    assert ok and valid and line.endswith(b"\n") and info["version"]
