"""Command line of mcp-native.

``python -m mcp_native run server.py [args]`` or ``run -m package.module [args]`` runs an MCP
server or client program with :func:`mcp_native.adapters.install` done first: everything after
the script path or ``-m MODULE`` is the program's own. ``python -m mcp_native doctor`` says,
per patch group, what the installed SDKs would get, and the per-request costs of this
environment that a setting removes (``doctor APP`` also those of the app a server serves); ``python -m mcp_native --version`` prints the version and
what this build was made with.
"""

from __future__ import annotations

import argparse
import atexit
import os
import runpy
import sys
import warnings

from . import build_info


def _split_run(argv: list[str]) -> tuple[list[str], list[str]]:
    """``run``'s own options, and the program with its arguments (``-m MODULE ...`` or
    ``script ...``): the first ``-m`` or argument that is not an option starts the program, as
    for ``python`` itself, so the program's options are never taken for ours."""
    takes_value = {"--output-validation", "--mirror"}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "-m" or not arg.startswith("-"):
            return argv[:i], argv[i:]
        if arg == "--":
            return argv[:i], argv[i + 1 :]
        i += 2 if arg in takes_value else 1
    return argv, []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m mcp_native", description="Native wire handling for Python MCP servers."
    )
    # Not argparse's action="version": it would re-wrap the lines of the build information.
    parser.add_argument("--version", action="store_true", help="print the version and what this build was made with")
    commands = parser.add_subparsers(dest="command")
    run = commands.add_parser(
        "run",
        help="run a program with the MCP SDK adapters installed",
        usage="python -m mcp_native run [options] (script | -m module) [args ...]",
    )
    run.add_argument("--output-validation", choices=("error", "warn", "off"), default="error")
    run.add_argument(
        "--mirror",
        choices=("framework", "compact"),
        default="framework",
        help="compact: MCPServer's text mirror as compact JSON instead of pretty-printed",
    )
    run.add_argument("--report", action="store_true", help="print what was patched, group by group, at exit")
    run.add_argument("--quiet", action="store_true", help="no line on stderr saying what is patched")
    doctor = commands.add_parser(
        "doctor", help="what the installed SDKs get, group by group, and the per-request costs; exit 1 if nothing"
    )
    doctor.add_argument(
        "app", nargs="?", help="the app your server serves (module:attribute or path/to/server.py): its costs too"
    )
    argv = sys.argv[1:] if argv is None else argv
    program: list[str] = []
    if argv[:1] == ["run"]:
        ours, program = _split_run(argv[1:])
        argv = ["run", *ours]
    args = parser.parse_args(argv)

    if args.version:
        info = build_info()
        print(f"mcp-native {info.pop('version')}")
        for key, value in info.items():
            print(f"{key}: {value}")
        return 0
    if args.command == "doctor":
        from ._doctor import doctor as run_doctor

        return run_doctor(args.app)
    if args.command != "run":
        parser.print_help()
        return 0
    if not program or program == ["-m"]:
        run.error("give a script path or -m module")
    from . import adapters

    # The program's worker and child interpreters install the same (the start-up hook).
    os.environ[adapters.ENVIRONMENT] = adapters.environment_value(
        output_validation=args.output_validation, mirror=args.mirror
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the line below says it
        report = adapters.install(output_validation=args.output_validation, mirror=args.mirror)
    if not args.quiet:
        print(report.summary(), file=sys.stderr, flush=True)
    if args.report:
        # Once the program has imported what it uses: groups it never imported are shown so.
        atexit.register(lambda: print(report.describe(at_exit=True), file=sys.stderr, flush=True))
    if program[0] == "-m":
        sys.argv = [program[1], *program[2:]]
        runpy.run_module(program[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(program)
        # As `python script.py` does: the script's directory first on the path, for its siblings.
        sys.path[0] = os.path.dirname(os.path.abspath(program[0]))
        runpy.run_path(program[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
