"""Type stubs for the native module ``mcp_native._core``."""
