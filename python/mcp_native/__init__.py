"""mcp-native: fast, correct MCP wire handling for Python.

JSON codec (``dumps``/``loads``), compiled JSON Schema validation (``Validator``), JSON-RPC framing
(``jsonrpc``), SSE (``sse``), content blocks (``content``) and tool results (``Tool``); the
protocol versions and error codes (``protocol``).
"""

from __future__ import annotations

from . import _core
from .errors import JSONDecodeError, SchemaError, ValidationError

# JSON codec
from ._core import dumps, loads

# JSON Schema engine
from .schema import Limits, Validator

# Content blocks and tool results.
from . import content
from .tools import Tool

# JSON-RPC framing and SSE
from . import jsonrpc, sse

# Protocol versions and error codes
from . import protocol
from .protocol import ProtocolVersion

__version__ = "0.1.0"


def build_info() -> dict[str, str | bool]:
    """What this installation was built with, for bug reports and for checking a wheel.

    Keys: ``version`` (of the package), ``compiler``, ``simdjson_version``, ``simdjson_kernel``
    (the SIMD code simdjson chose for this CPU at run time, e.g. ``"haswell"``; ``"fallback"``
    means no SIMD), ``pcre2_version`` and ``pcre2_jit`` (whether regexes run JIT-compiled here).
    ``python -m mcp_native --version`` prints the same.
    """
    return {"version": __version__, **_core.build_info()}


__all__ = [
    "JSONDecodeError",
    "Limits",
    "SchemaError",
    "ValidationError",
    "Validator",
    # Content blocks and tool results.
    "Tool",
    "content",
    "__version__",
    "build_info",
    # JSON codec
    "dumps",
    "loads",
    # JSON-RPC framing and SSE
    "jsonrpc",
    "sse",
    # Protocol versions and error codes
    "ProtocolVersion",
    "protocol",
]
