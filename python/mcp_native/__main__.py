"""Command line of mcp-native.

``python -m mcp_native run server.py [args]`` or ``run -m package.module [args]`` runs an MCP
server or client program with :func:`mcp_native.adapters.install` done first;
``python -m mcp_native --version`` prints the version and what this build was made with.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys

from . import build_info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m mcp_native", description="Native wire handling for Python MCP servers."
    )
    # Not argparse's action="version": it would re-wrap the lines of the build information.
    parser.add_argument("--version", action="store_true", help="print the version and what this build was made with")
    commands = parser.add_subparsers(dest="command")
    run = commands.add_parser("run", help="run a program with the MCP SDK adapters installed")
    run.add_argument("-m", dest="module", help="run a module, as python -m does")
    run.add_argument("--output-validation", choices=("error", "warn", "off"), default="error")
    run.add_argument(
        "--mirror",
        choices=("framework", "compact"),
        default="framework",
        help="compact: MCPServer's text mirror as compact JSON instead of pretty-printed",
    )
    run.add_argument("--report", action="store_true", help="print what the adapters patch to stderr first")
    run.add_argument(
        "target", nargs=argparse.REMAINDER, help="the script and its arguments (or, with -m, the module's arguments)"
    )
    args = parser.parse_args(argv)

    if args.version:
        info = build_info()
        print(f"mcp-native {info.pop('version')}")
        for key, value in info.items():
            print(f"{key}: {value}")
        return 0
    if args.command != "run":
        parser.print_help()
        return 0
    if args.module is None and not args.target:
        parser.error("run: give a script path or -m module")
    from . import adapters

    report = adapters.install(output_validation=args.output_validation, mirror=args.mirror)
    if args.report:
        print(report, file=sys.stderr)
    if args.module is not None:
        sys.argv = [args.module, *args.target]
        runpy.run_module(args.module, run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(args.target)
        # As `python script.py` does: the script's directory first on the path, for its siblings.
        sys.path[0] = os.path.dirname(os.path.abspath(args.target[0]))
        runpy.run_path(args.target[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
