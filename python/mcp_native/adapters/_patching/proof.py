"""Fingerprints of SDK source: what proves that an installed SDK holds the code a patch group was
tested with.

A name (``"package.module:Class.attr"``) is fingerprinted from the source file of its module,
read without importing it: the ``ast`` dump of its definition (a function, a class, an import, an
assignment), docstrings left out, hashed. Comments, blank lines and docstrings may change; the
code may not. ``fingerprints.json`` (written by ``scripts/fingerprints.py`` from the sdists of
the tested releases) holds, per tested release, the fingerprint of every name a group relies
on and the hash of each whole file, so that an installed file byte-identical to a tested one
is recognised without parsing it.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.util
import json
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("fingerprints.json")
# The fingerprint of a name that its module does not define (or a module that does not exist).
MISSING = "missing"


def module_path(module: str, root: Path) -> Path:
    """The source file of ``module`` under ``root``, the folder that holds its top-level package
    (``root/mcp/server/stdio.py``, or ``.../__init__.py`` for a package)."""
    base = root.joinpath(*module.split("."))
    package = base / "__init__.py"
    return package if package.is_file() else base.with_suffix(".py")


def installed_root(top: str) -> Path | None:
    """The folder that holds the installed top-level package ``top``, found without importing it."""
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).parent


def _strip_docstrings(node: ast.AST) -> None:
    for child in ast.walk(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            body = child.body
            first = body[0] if body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                child.body = body[1:] or [ast.Pass()]


def _bound(statement: ast.stmt) -> list[str]:
    """The names a module- or class-level statement defines."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    if isinstance(statement, ast.Assign):
        return [t.id for t in statement.targets if isinstance(t, ast.Name)]
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return [statement.target.id]
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return [alias.asname or alias.name.split(".")[0] for alias in statement.names]
    return []


def _find(body: Iterable[ast.stmt], name: str) -> ast.stmt | None:
    """The last definition of ``name`` in a body, looking into ``if``/``try`` blocks (platform and
    import fallbacks), as the code that runs last is the one that counts."""
    found = None
    for statement in body:
        if name in _bound(statement):
            found = statement
        elif isinstance(statement, (ast.If, ast.Try)):
            blocks = [statement.body, statement.orelse]
            if isinstance(statement, ast.Try):
                blocks += [h.body for h in statement.handlers] + [statement.finalbody]
            for block in blocks:
                inner = _find(block, name)
                if inner is not None:
                    found = inner
    return found


def _dump(node: object) -> str:
    """What ``ast.dump`` shows of a tree, in one layout on every Python: a field that is empty
    or None is left out (3.12 added ``type_params=[]`` to definitions, 3.13's ``ast.dump`` omits
    such fields), so that one source has one fingerprint whichever Python reads it."""
    if isinstance(node, ast.AST):
        fields = ", ".join(f"{k}={_dump(v)}" for k, v in ast.iter_fields(node) if v is not None and v != [])
        return f"{type(node).__name__}({fields})"
    if isinstance(node, list):
        return f"[{', '.join(_dump(item) for item in node)}]"
    return repr(node)


def fingerprints(source: bytes, qualnames: Iterable[str]) -> dict[str, str]:
    """The fingerprint of each qualified name (``"f"``, ``"Class.method"``) defined in ``source``."""
    tree = ast.parse(source)
    out = {}
    for qualname in qualnames:
        node: ast.stmt | None = None
        body: list[ast.stmt] = tree.body
        for part in qualname.split("."):
            node = _find(body, part)
            if node is None:
                break
            body = node.body if isinstance(node, ast.ClassDef) else []
        if node is None:
            out[qualname] = MISSING
            continue
        _strip_docstrings(node)
        out[qualname] = hashlib.sha256(_dump(node).encode()).hexdigest()[:16]
    return out


def file_hash(source: bytes) -> str:
    return hashlib.sha256(source).hexdigest()[:16]


def by_module(names: Iterable[str]) -> dict[str, list[str]]:
    """``{"module": ["qualname", ...]}`` of ``"module:qualname"`` names."""
    grouped: dict[str, list[str]] = {}
    for name in names:
        module, _, qualname = name.partition(":")
        grouped.setdefault(module, []).append(qualname)
    return grouped


@cache
def tested() -> Mapping[str, Any]:
    """``{dist: {release: {"files": {module: hash}, "names": {name: fingerprint}}}}``."""
    with DATA.open() as f:
        data: dict[str, Any] = json.load(f)
    return data


class Installed:
    """The installed source of the modules groups rely on, read once per :func:`install`; or,
    with ``root``, the source of a release unpacked there (its top-level packages side by side)."""

    def __init__(self, root: Path | None = None) -> None:
        self._root = root
        self._sources: dict[str, bytes | None] = {}
        self._prints: dict[str, str] = {}

    def _source(self, module: str) -> bytes | None:
        if module not in self._sources:
            root = self._root or installed_root(module.split(".")[0])
            source = None
            if root is not None:
                with contextlib.suppress(OSError):
                    source = module_path(module, root).read_bytes()
            self._sources[module] = source
        return self._sources[module]

    def _fingerprint(self, module: str, qualname: str) -> str:
        name = f"{module}:{qualname}"
        if name not in self._prints:
            source = self._source(module)
            self._prints[name] = MISSING if source is None else fingerprints(source, [qualname])[qualname]
        return self._prints[name]

    def record(self, names: Iterable[str]) -> dict[str, Any]:
        """The entry of ``fingerprints.json`` for this source: file hashes and fingerprints."""
        grouped = by_module(names)
        files = {}
        for module in grouped:
            source = self._source(module)
            files[module] = None if source is None else file_hash(source)
        prints = {f"{m}:{q}": self._fingerprint(m, q) for m, qualnames in grouped.items() for q in qualnames}
        return {"files": files, "names": prints}

    def differences(self, names: Iterable[str], release: Mapping[str, Any]) -> list[str]:
        """The names whose installed source differs from ``release``'s (a file byte-identical to
        the release's is not parsed)."""
        changed = []
        for module, qualnames in by_module(names).items():
            source = self._source(module)
            expected = release["files"].get(module, "absent")
            if expected != "absent" and (None if source is None else file_hash(source)) == expected:
                continue
            for qualname in qualnames:
                want = release["names"].get(f"{module}:{qualname}")
                if want is None or self._fingerprint(module, qualname) != want:
                    changed.append(f"{module}:{qualname}")
        return changed


def prove(
    installed: Installed, names: Iterable[str], releases: Mapping[str, Any], prefer: str | None = None
) -> tuple[str | None, list[str]]:
    """(the first release of ``releases`` whose source of every name ``installed`` matches,
    ``prefer`` tried first; or None and the names that differ from the nearest release)."""
    names = tuple(names)
    nearest: list[str] | None = None
    for release in sorted(releases, key=lambda r: r != prefer):
        changed = installed.differences(names, releases[release])
        if not changed:
            return release, []
        if nearest is None or len(changed) < len(nearest):
            nearest = changed
    return None, nearest or []
