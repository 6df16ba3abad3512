"""``python -m mcp_native run server.py [args]`` or ``run -m package.module [args]``: run an MCP
server or client program with :func:`mcp_native.adapters.install` done first."""

from __future__ import annotations

import argparse
import runpy
import sys


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m mcp_native", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run a program with the MCP SDK adapters installed")
    run.add_argument("-m", dest="module", help="run a module, as python -m does")
    run.add_argument("--output-validation", choices=("error", "warn", "off"), default="error")
    run.add_argument("--report", action="store_true", help="print what was patched to stderr first")
    run.add_argument("target", nargs=argparse.REMAINDER, help="the script and its arguments (or, with -m, the module's arguments)")
    args = parser.parse_args(argv)

    if args.module is None and not args.target:
        parser.error("run: give a script path or -m module")
    from . import adapters

    report = adapters.install(output_validation=args.output_validation)
    if args.report:
        print(report, file=sys.stderr)
    if args.module is not None:
        sys.argv = [args.module, *args.target]
        runpy.run_module(args.module, run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(args.target)
        runpy.run_path(args.target[0], run_name="__main__")


if __name__ == "__main__":
    main()
