# Sourced by scripts/wheel and scripts/check-wheel: the CPython versions a release has wheels
# for, and where each interpreter is. pyproject.toml's classifiers name the same versions
# (scripts/check-wheel holds the wheels to them).
CPYTHONS="3.10 3.11 3.12 3.13"

# cpython X.Y: the path of a CPython X.Y interpreter, pyenv's newest patch release first, then
# pythonX.Y on PATH; a clear message and status 1 when there is none. Each candidate is run,
# since a pyenv shim for a version that is not selected exists but fails.
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
  echo "$(basename "$0"): CPython $v not found (looked for pyenv's $v.* and python$v on PATH): install it, e.g. \`pyenv install $v\`" >&2
  return 1
}
