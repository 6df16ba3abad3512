"""Command line of mcp-native: ``python -m mcp_native --version``."""

from __future__ import annotations

import argparse
import sys

from . import build_info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mcp_native", description="Native wire handling for Python MCP servers.")
    # Not argparse's action="version": it would re-wrap the lines of the build information.
    parser.add_argument("--version", action="store_true", help="print the version and what this build was made with")
    args = parser.parse_args(argv)
    if args.version:
        info = build_info()
        print(f"mcp-native {info.pop('version')}")
        for key, value in info.items():
            print(f"{key}: {value}")
        return 0
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
