"""A source build (the sdist) on a machine without a dependency stops at the configure step and
names the Debian package to install."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
@pytest.mark.parametrize(
    ("hide", "apt_package"),
    [
        ("-DCMAKE_DISABLE_FIND_PACKAGE_simdjson=ON", "libsimdjson-dev"),
        ("-DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON", "libfmt-dev"),
        ("-DCMAKE_DISABLE_FIND_PACKAGE_uriparser=ON", "liburiparser-dev"),
        ("-DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON", "pkg-config"),
        ("PKG_CONFIG_LIBDIR", "libpcre2-dev"),  # pkg-config that finds no .pc file
    ],
)
def test_missing_dependency_names_apt_package(
    tmp_path: Path, hide: str, apt_package: str, tool_env: dict[str, str]
) -> None:
    env = dict(tool_env)
    args = ["cmake", "-S", str(ROOT), "-B", str(tmp_path / "build"), "-DMCP_NATIVE_BUILD_PYTHON=OFF"]
    if hide == "PKG_CONFIG_LIBDIR":
        env.pop("PKG_CONFIG_PATH", None)
        env["PKG_CONFIG_LIBDIR"] = str(tmp_path)
    else:
        args.append(hide)
    proc = subprocess.run(args, capture_output=True, text=True, env=env)
    assert proc.returncode != 0
    assert f"apt-get install {apt_package}" in proc.stderr, proc.stderr
