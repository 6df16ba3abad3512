"""mcp-native: fast, correct MCP wire handling for Python.

JSON codec (``dumps``/``loads``), compiled JSON Schema validation (``Validator``), JSON-RPC framing
(``jsonrpc``), SSE (``sse``), content blocks (``content``) and tool results (``Tool``).
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

__version__ = "0.1.0"

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
    # JSON codec
    "dumps",
    "loads",
    # JSON-RPC framing and SSE
    "jsonrpc",
    "sse",
]
