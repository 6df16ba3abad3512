"""mcp_native.build_info() and ``python -m mcp_native --version``: what this build was made with."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mcp_native

# The kernels simdjson has for each architecture; "fallback" is its scalar code.
KERNELS = {"x86_64": {"icelake", "haswell", "westmere", "fallback"}, "aarch64": {"arm64", "fallback"}}


def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    line = next((line for line in text.splitlines() if line.startswith("flags")), "")
    return set(line.partition(":")[2].split())


def test_fields_are_plausible() -> None:
    info = mcp_native.build_info()
    assert list(info) == ["version", "compiler", "simdjson_version", "simdjson_kernel", "pcre2_version", "pcre2_jit"]
    assert info["version"] == mcp_native.__version__ == importlib.metadata.version("mcp-native")
    assert re.fullmatch(r"(GCC|clang) \d+\.\d+.*", str(info["compiler"])), info
    assert re.fullmatch(r"\d+\.\d+\.\d+", str(info["simdjson_version"])), info
    assert re.fullmatch(r"10\.\d+ \d{4}-\d\d-\d\d", str(info["pcre2_version"])), info
    assert isinstance(info["pcre2_jit"], bool)
    assert info["simdjson_kernel"] in KERNELS.get(platform.machine(), {info["simdjson_kernel"]}), info


@pytest.mark.skipif(
    platform.machine() != "x86_64" or "SIMDJSON_FORCE_IMPLEMENTATION" in os.environ, reason="x86-64 CPU flags"
)
def test_simd_kernel_is_chosen_at_run_time() -> None:
    # The build targets baseline x86-64 (no -march): a CPU with AVX2 gets an AVX2 or AVX-512
    # kernel only if simdjson picks it at run time.
    if not {"avx2", "bmi1", "bmi2", "pclmulqdq"} <= cpu_flags():
        pytest.skip("this CPU has no AVX2 kernel")
    assert mcp_native.build_info()["simdjson_kernel"] in {"haswell", "icelake"}


def test_build_info_is_a_fresh_dict() -> None:
    info = mcp_native.build_info()
    info["version"] = "changed"
    assert mcp_native.build_info()["version"] == mcp_native.__version__


def test_cli_version() -> None:
    proc = subprocess.run([sys.executable, "-m", "mcp_native", "--version"], capture_output=True, text=True, check=True)
    info = mcp_native.build_info()
    lines = proc.stdout.splitlines()
    assert lines[0] == f"mcp-native {info['version']}"
    assert lines[1:] == [f"{key}: {value}" for key, value in info.items() if key != "version"]


def test_cli_without_arguments_prints_help() -> None:
    proc = subprocess.run([sys.executable, "-m", "mcp_native"], capture_output=True, text=True, check=True)
    assert "--version" in proc.stdout
