"""Type stubs for the native module ``mcp_native._core``."""

# --- JSON codec ---------------------------------------------------------------------------------
from collections.abc import Callable
from typing import Any

def dumps(obj: Any, *, default: Callable[[Any], Any] | None = None, sort_keys: bool = False) -> bytes:
    """Serialize ``obj`` to compact JSON as UTF-8 bytes.

    The output is byte-identical to
    ``json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()``
    for dict, list, tuple, str, int, float, bool and None (and their subclasses). Values of
    other types are passed to ``default``, whose result is serialized instead; without it they
    raise ``TypeError``. ``sort_keys`` orders dict keys by code point.

    Raises ``ValueError`` for NaN/Infinity, circular references and nesting deeper than 1024,
    ``TypeError`` for unsupported types and dict keys, ``UnicodeEncodeError`` for lone
    surrogates.
    """

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
    def is_valid(self, instance: object) -> bool: ...
    def is_valid_json(self, data: object) -> object: ...
    def _errors(self, instance: object) -> list[Any]: ...
    def _errors_json(self, data: object) -> list[Any]: ...
