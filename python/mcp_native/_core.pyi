"""Type stubs for the native module ``mcp_native._core``."""

# --- JSON Schema engine ---
from typing import Any

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
