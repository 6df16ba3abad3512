# Sourced by scripts/wheel, check-wheel, test-wheel-on and demo: the CPython versions a release
# has wheels for, and where each interpreter is. pyproject.toml's classifiers name the same
# versions (scripts/check-wheel holds the wheels to them).
CPYTHONS="3.10 3.11 3.12 3.13 3.14"
# The versions pyenv has no build of here: when the machine has no such interpreter either,
# scripts/debian-cpython makes one from Debian sid's packages (once, cached in ~/.cache/mcp-native).
DEBIAN_CPYTHONS="3.14"

# cpython X.Y: the path of a CPython X.Y interpreter, pyenv's newest patch release first, then
# pythonX.Y on PATH, then (for DEBIAN_CPYTHONS) Debian's; a clear message and status 1 when there
# is none. Each candidate is run, since a pyenv shim for a version that is not selected exists
# but fails.
cpython() {
  local v=$1 p
  local candidates=()
  if command -v pyenv >/dev/null; then
    mapfile -t candidates < <(ls -d "$(pyenv root)"/versions/"$v".*/bin/python"$v" 2>/dev/null | sort -V -r)
  fi
  mapfile -t -O ${#candidates[@]} candidates < <(type -a -P "python$v" 2>/dev/null)
  for p in "${candidates[@]}"; do
    if "$p" -c "import sys; sys.exit(sys.implementation.name != 'cpython' or '%d.%d' % sys.version_info[:2] != '$v')" 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  if [[ " $DEBIAN_CPYTHONS " == *" $v "* ]]; then
    "$(dirname "${BASH_SOURCE[0]}")/debian-cpython" "$v" && return 0
    echo "$(basename "$0"): CPython $v not found, and scripts/debian-cpython could not make it from Debian's packages (above)" >&2
    return 1
  fi
  echo "$(basename "$0"): CPython $v not found (looked for pyenv's $v.* and python$v on PATH): install it, e.g. \`pyenv install $v\`" >&2
  return 1
}

# wheel_venv X.Y EXTRAS VENV (scripts/test-wheel-on, scripts/demo --python): VENV as a user of
# CPython X.Y has it, with dist/'s wheel for X.Y and the extras EXTRAS (comma-separated, from the
# package index); made once (again when the interpreter or the extras' requirements change), the
# wheel reinstalled every time.
wheel_venv() {
  local v=$1 extras=$2 venv=$3 py stamp out
  local wheels=(dist/mcp_native-*-cp"${v/./}"-*.whl)
  [ -f "${wheels[0]}" ] || { echo "$(basename "$0"): no wheel for CPython $v in dist/: run scripts/wheel $v" >&2; return 1; }
  py=$(cpython "$v") || return 1
  stamp="$py $(python3 -c 'import sys, tomllib; extras = tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]; print(*[r for e in sys.argv[1].split(",") for r in extras[e]])' "$extras")"
  if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.stamp" 2>/dev/null)" != "$stamp" ]; then
    echo "$(basename "$0"): preparing $venv (the $extras extra from the package index)"
    rm -rf "$venv"
    "$py" -m venv "$venv"
    # pip's output (warnings about the configured indexes) shows only if it fails.
    out=$("$venv/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip "${wheels[0]}[$extras]" 2>&1) || { echo "$out"; return 1; }
    echo "$stamp" > "$venv/.stamp"
  fi
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps --force-reinstall "${wheels[0]}"
}
