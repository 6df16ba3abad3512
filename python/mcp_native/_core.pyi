"""Type stubs for the native module ``mcp_native._core``."""

# --- JSON codec ---------------------------------------------------------------------------------
from collections.abc import Callable
from typing import Any, TypeVar, final
from typing import Any as _Any

from typing_extensions import disjoint_base

def dumps(
    obj: Any, *, default: Callable[[Any], Any] | None = None, sort_keys: bool = False, indent: int | None = None
) -> bytes:
    """Serialize ``obj`` to compact JSON as UTF-8 bytes.

    The output is byte-identical to
    ``json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()``
    for dict, list, tuple, str, int, float, bool and None (and their subclasses). Values of
    other types are passed to ``default``, whose result is serialized instead; without it they
    raise ``TypeError``. ``sort_keys`` orders dict keys by code point. ``indent=N`` (0 to 64)
    lays the text out as ``json.dumps(obj, indent=N, ensure_ascii=False, allow_nan=False)``
    does: one member or element per line, ``": "`` after keys, empty containers kept as ``[]``
    and ``{}``.

    Raises ``ValueError`` for NaN/Infinity, circular references and nesting deeper than 1024,
    ``TypeError`` for unsupported types and dict keys, ``UnicodeEncodeError`` for lone
    surrogates.
    """

def pydantic_json_text(obj: Any, indent: int | None, /) -> str:
    """The text ``pydantic_core.to_json(obj, indent=indent).decode()`` returns for JSON-native
    ``obj`` (what ``dumps`` takes without ``default``): the layout of ``dumps(obj, indent=...)``
    with floats spelled as pydantic-core writes them (``1e-7``, ``0.000025``). The
    adapters write MCPServer's text mirror with it. Raises as ``dumps`` does."""

def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """Parse a JSON document into Python objects, with the same result as ``json.loads``.

    Integers keep their exact value at any size; floats are bit-identical to ``float()``;
    duplicate keys keep the last value. Invalid documents (including invalid UTF-8, NaN and
    Infinity literals, trailing data and nesting deeper than 1024) raise
    ``mcp_native.JSONDecodeError`` with the position of the first error.
    """

# --- JSON Schema engine ---
class SchemaValidator:
    """Compiled JSON Schema; mcp_native.Validator builds on it."""

    def __init__(
        self,
        schema: object,
        dialect: str | None,
        formats: bool,
        registry: dict[Any, Any] | None,
        limits: tuple[int, int, int, int],
    ) -> None: ...
    def is_valid(self, instance: object) -> bool:
        """True when the instance (Python objects) conforms to the schema."""
    def is_valid_json(self, data: bytes | bytearray | memoryview | str) -> bool:
        """True when the JSON text conforms to the schema (no Python objects are built)."""
    def _errors(self, instance: object) -> list[Any]: ...
    def _errors_json(self, data: object) -> list[Any]: ...

# --- Tool results -------------------------------------------------------------------------------

@disjoint_base
class ResponseWriter:
    """The native part of ``mcp_native.Tool``: ``check`` is the output schema's validator (or
    None); ``protocol_version`` (2025-06-18 or later) decides whether ``structured`` must be a
    dict and results carry ``resultType: "complete"`` (both from 2026-07-28 on)."""

    def __init__(self, check: SchemaValidator | None, protocol_version: str) -> None: ...
    def encode_response(
        self,
        request_id: str | int,
        structured: Any,
        content: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> bytes:
        """The JSON-RPC response line answering ``request_id`` with a ``CallToolResult``:
        ``structuredContent`` serialized once, its bytes escaped into a leading text block
        unless ``content`` has a text block, then ``_meta`` and ``resultType``. ``check``
        validates ``structured`` while it is written, with the verdict of ``check.is_valid``;
        when it fails the answer is ``self._encode_invalid(request_id, structured, content,
        meta)``. Arguments are checked with errors naming them."""

def mcp_tool_result(type: str, content: Any, structured: Any, mirror: bool, /) -> str:
    """Azure Functions' McpToolResult text (``mcp_native.tools.mcp_tool_result`` checks the
    arguments): ``{"type": type, "content": <JSON of content>, "structuredContent": <JSON of
    structured> or null}`` in ``json.dumps``'s default layout, the inner JSON texts held as
    strings. With ``mirror``, ``content`` is not used and is the text block of ``structured``,
    whose bytes are written once and escaped for both places. ``structured`` None writes null.
    Raises as ``dumps`` does for values JSON cannot hold."""

_Model = TypeVar("_Model")

@final
class OutputShape:
    """The exact shape of a value an output model gives back unchanged (its validation and
    JSON-mode dump), from a spec: ``("str",)``, ``("int",)``, ``("float",)``, ``("bool",)``,
    ``("nullable", spec)``, ``("list", spec)`` or ``("dict", ((name, required, spec), ...))``
    with the fields in the model's order."""

    def __init__(self, spec: tuple[Any, ...]) -> None: ...
    def copy(self, value: object, /) -> Any:
        """A copy of value (new lists and dicts) when it has the shape exactly: exact builtin
        types, floats finite, each dict's keys its fields in order with the required ones and
        nothing else; else None."""

def model_copies(template: _Model, field: str, values: list[Any], /) -> list[_Model]:
    """``[template.model_copy(update={field: v}) for v in values]``, built natively as pydantic's
    ``__copy__`` builds each copy (``cls.__new__``, then copies of ``__dict__``, the fields set
    and the extra dict, set with ``object.__setattr__``); nothing is validated. The adapters'
    text blocks. Raises ``TypeError`` unless ``template`` is a pydantic model instance with
    ``field`` declared and set and no private attributes, and ``values`` is a list."""

# --- JSON-RPC framing (mcp_native.jsonrpc) ---
def _jsonrpc_set_types(
    request: type, notification: type, response: type, error_response: type, invalid: type
) -> None: ...

class JsonRpcDecoder:
    def __init__(self, max_message_bytes: int, protocol_version: str) -> None: ...
    def feed(self, chunk: _Any) -> list[_Any]: ...
    def close(self) -> list[_Any]: ...
    @property
    def max_message_bytes(self) -> int: ...
    @property
    def protocol_version(self) -> str: ...
    @property
    def pending_bytes(self) -> int: ...

def encode_request(id: str | int, method: str, params: dict[str, _Any] | None = None) -> bytes: ...
def encode_notification(method: str, params: dict[str, _Any] | None = None) -> bytes: ...
def encode_response(id: str | int, result: dict[str, _Any]) -> bytes: ...
def encode_error(
    id: str | int | None, code: int, message: str, data: _Any = None, protocol_version: str = "2025-11-25"
) -> bytes: ...

# --- SSE (mcp_native.sse) ---
def _sse_set_types(event: type) -> None: ...
def sse_encode_event(
    data: _Any, *, event: str = "message", id: str | None = None, retry: int | None = None
) -> bytes: ...

class SseDecoder:
    def __init__(self) -> None: ...
    def feed(self, chunk: _Any) -> list[_Any]: ...
    def close(self) -> list[_Any]: ...
    @property
    def last_event_id(self) -> str: ...
    @property
    def retry(self) -> int | None: ...

# --- Build information (mcp_native.build_info) ---
def build_info() -> dict[str, str | bool]:
    """What the native core was built with and the SIMD kernel simdjson chose; see mcp_native.build_info()."""
