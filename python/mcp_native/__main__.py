"""Command line of mcp-native.

``python -m mcp_native run server.py [args]`` or ``run -m package.module [args]`` runs an MCP
server or client program with :func:`mcp_native.adapters.install` done first: everything after
the script path or ``-m MODULE`` is the program's own. ``python -m mcp_native doctor`` says,
per patch group, what the installed SDKs would get, and the per-request costs of this
environment that a setting removes; ``python -m mcp_native --version`` prints the version and
what this build was made with.
"""

from __future__ import annotations

import argparse
import atexit
import importlib.metadata
import os
import runpy
import sys
import warnings
from collections.abc import Callable

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
    commands.add_parser("doctor", help="what the installed SDKs get, group by group; exit 1 if nothing")
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
        return _doctor()
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


def _installed(dist: str) -> str | None:
    """The installed version of ``dist``, or None (read from its metadata: nothing is imported)."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def per_request_costs(installed: Callable[[str], str | None] = _installed) -> list[str]:
    """What this environment spends on every request that a setting removes, as far as the
    installed distributions tell (the program itself is not run): each with the cost measured,
    where it was measured, and the setting."""
    found: list[str] = []
    mcp, rich = installed("mcp"), installed("rich")
    to = "through rich" if rich else "to stderr"
    if mcp is not None and mcp.startswith("1."):
        # Its constructor passes log_level="INFO" to its settings, over FASTMCP_LOG_LEVEL.
        found.append(
            f'FastMCP (mcp {mcp}) logs each request at INFO {to} ("Processing request of type ...", '
            '"Terminating session: None" when stateless): server CPU per weather call 1.69 ms at INFO, '
            "0.62 ms at WARNING adapted, 3.19 and 2.02 ms stock (mcp 1.30.0, stateless JSON, uvicorn, "
            'scripts/bench-http); set FastMCP(..., log_level="WARNING") (FASTMCP_LOG_LEVEL does not reach it)'
        )
    elif mcp is not None:
        found.append(
            f'MCPServer (mcp {mcp}) logs at INFO {to} by default ("Terminating session" for each session '
            "and each 2025-era stateless request): server CPU per weather call 1.00 ms at INFO, 0.45 ms at "
            "WARNING adapted, 1.41 and 0.89 ms stock (mcp 2.3.0, 2025-era stateless JSON, uvicorn, "
            'scripts/bench-http); set MCPServer(..., log_level="WARNING") (FASTMCP_LOG_LEVEL does not reach it)'
        )
    uvicorn = installed("uvicorn")
    if uvicorn is not None:
        missing = [d for d in ("httptools", "uvloop") if installed(d) is None]
        if missing:
            found.append(
                f"uvicorn {uvicorn} without {' and '.join(missing)}: a stock MCPServer weather call "
                "took 911 µs with h11 and asyncio, 719 µs with both (mcp 2.3.0, 2025 era, "
                "docs/deploying-over-http.md); install uvicorn[standard] (or httptools uvloop)"
            )
    if installed("httpcore") is not None and installed("sniffio") is None:
        found.append(
            "httpcore without sniffio: httpcore tries to import sniffio on each request it sends, "
            "5.5% of an HTTP server's CPU in a profile (issue 35); install sniffio"
        )
    return found


def _doctor() -> int:
    from . import adapters

    report = adapters.check()
    print(report.describe())
    costs = per_request_costs()
    if costs:
        print("per-request costs a setting removes:")
        print("\n".join(f"  - {line}" for line in costs))
    if not report.versions:
        print("no MCP SDK installed (mcp, fastmcp): nothing to patch")
        return 1
    if not [g for g in report.groups if g.state == "waiting"]:
        print("nothing can be patched: every group stays stock")
        return 1
    print(report.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
