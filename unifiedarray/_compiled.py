"""The compiled hot path: which modules are compiled, and the switch back
to pure Python.

Where a C compiler is at hand, installing the package compiles the modules
named in :data:`MODULES` with Cython (``setup.py``), from the very ``.py``
files here: the ``.pxd`` file beside each declares its classes as extension
types (the array's and the buffer's fields become C struct members, so a
small call's result costs a fraction of what it costs in Python).  Nothing
else changes: the ``.py`` files are the one source, and the pure-Python
package behaves the same (CI runs the tests on both).  Where no compiler is
at hand, or ``UNIFIEDARRAY_PURE_PYTHON=1`` is set when installing, nothing
is compiled.

``UNIFIEDARRAY_PURE_PYTHON=1`` set when the package is *imported* runs the
``.py`` files even where compiled modules are installed: how the tests run
the fallback, and how to rule the compiled code out when chasing a bug.
This module is imported before any other of the package's, and is never
compiled itself.

Example
-------
>>> import unifiedarray._compiled as compiled
>>> "_buffer" in compiled.MODULES
True
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any, TypeAlias

__all__ = [
    "ENV",
    "MODULES",
    "BoolArg",
    "DictArg",
    "IntArg",
    "IntPairArg",
    "StrArg",
    "TupleArg",
    "built_modules",
    "compiled_modules",
    "is_stale",
    "partial_build",
    "pure_python_requested",
    "stale_modules",
    "stray_modules",
    "use_pure_python",
    "use_sources",
]

#: The annotations of the compiled modules' public parameters of Python's
#: own types.  Cython checks (and converts) a parameter annotated ``str``,
#: ``int``, ``bool``, ``tuple`` or ``dict`` (``api_version=1`` is its
#: ``TypeError``, where the pure-Python build raises the standard's
#: ``ValueError``); these names are the same types to mypy and to a reader
#: and unknown to Cython, so both builds take the same arguments and raise
#: alike.  ``tests/test_compiled.py`` refuses a public parameter of a
#: compiled module annotated with Python's own type.
StrArg: TypeAlias = str
IntArg: TypeAlias = int
BoolArg: TypeAlias = bool
TupleArg: TypeAlias = tuple[Any, ...]
IntPairArg: TypeAlias = tuple[int, int]
DictArg: TypeAlias = dict[Any, Any]

#: The modules compiled where a compiler is at hand (paths below the package,
#: with dots): the small calls' path from the operators and subscripts to the
#: buffer.
MODULES: tuple[str, ...] = (
    "_array",
    "_buffer",
    "_index",
    "_operators",
    "_reductions",
    "_results",
    "_subscripts",
    "backends.mlx_evaluation",
)

#: The environment variable that asks for the pure-Python modules: at import
#: (run the ``.py`` files) and at install (compile nothing).
ENV = "UNIFIEDARRAY_PURE_PYTHON"

_PACKAGE = __name__.rpartition(".")[0]
_ROOT = os.path.dirname(os.path.abspath(__file__))


def _source_stem(name: str, root: str = _ROOT) -> str:
    """The path of module ``name`` of :data:`MODULES` under ``root``, without
    its suffix (``.py`` for the source; an extension suffix where compiled)."""
    return os.path.join(root, *name.split("."))


def pure_python_requested() -> bool:
    """Whether :data:`ENV` asks for pure Python (set, and not ``0`` or empty)."""
    return os.environ.get(ENV, "") not in ("", "0")


class _SourceFinder:
    """Finds the ``.py`` file of each of its modules (names relative to the
    package), ahead of the import system's own finder (which prefers a
    compiled module)."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.partition(".")
        if package != _PACKAGE or name not in self.names:
            return None
        return importlib.util.spec_from_file_location(fullname, _source_stem(name) + ".py")


def use_sources(names: Sequence[str]) -> None:
    """Import the modules ``names`` (relative to the package) from their
    ``.py`` files from now on, whatever is compiled beside them; idempotent."""
    wanted = frozenset(names)
    if not any(isinstance(f, _SourceFinder) and wanted <= f.names for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFinder(wanted))


def use_pure_python() -> None:
    """Import the modules in :data:`MODULES` from their ``.py`` files from
    now on.  Called by the package's ``__init__`` (before it imports any of
    them) when :func:`pure_python_requested` or :func:`partial_build` (which
    it warns of); idempotent."""
    if not pure_python_requested() and partial_build():
        warnings.warn(
            f"unifiedarray: only {len(built_modules())} of {len(MODULES)} modules were compiled; running the "
            "pure-Python modules (build again: python -m pip install -e . --no-deps)",
            RuntimeWarning,
            stacklevel=3,
        )
    use_sources(MODULES)


def built_modules(root: str = _ROOT) -> list[str]:
    """The modules of :data:`MODULES` with a compiled module beside their
    source under ``root`` (the package's folder), imported or not.  Where
    some are and some are not (a build that failed part-way), the package
    runs the pure-Python modules: the two builds' modules are never mixed."""
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    return [name for name in MODULES if any(os.path.exists(_source_stem(name, root) + suffix) for suffix in suffixes)]


def stray_modules(root: str = _ROOT) -> list[str]:
    """The compiled modules under ``root`` (the package's folder) beside a
    source that :data:`MODULES` does not name: left by a build from before
    the module left the list (or built by hand), they would be imported
    instead of their source and run its old code unseen.  The package
    imports their sources instead, and warns (``__init__``)."""
    # Longest first: "_x.cpython-311-x86_64-linux-gnu.so" is "_x", not
    # "_x.cpython-311-x86_64-linux-gnu" (the bare ".so" matches it too).
    suffixes = sorted(importlib.machinery.EXTENSION_SUFFIXES, key=len, reverse=True)
    found = []
    for folder, _, files in os.walk(root):
        for file in files:
            suffix = next((x for x in suffixes if file.endswith(x)), None)
            if suffix is None:
                continue
            stem = file[: -len(suffix)]
            if "." in stem or stem == "__init__":
                continue  # another interpreter's build (never imported by this one), or a package's
            name = os.path.relpath(os.path.join(folder, stem), root).replace(os.sep, ".")
            if name not in MODULES and os.path.exists(os.path.join(folder, stem + ".py")):
                found.append(name)
    return sorted(found)


def partial_build() -> bool:
    """Whether some modules of :data:`MODULES` were compiled and some not."""
    return 0 < len(built_modules()) < len(MODULES)


def compiled_modules() -> list[str]:
    """The modules of :data:`MODULES` imported from compiled code (empty
    for the pure-Python package)."""
    found = []
    for name in MODULES:
        module = sys.modules.get(f"{_PACKAGE}.{name}")
        if module is not None and not (module.__file__ or "").endswith(".py"):
            found.append(name)
    return found


#: How much newer than its compiled module a source may be before the module
#: counts as stale: an install writes both within this, an edit comes later.
STALE_AFTER_SECONDS = 2.0


def is_stale(source: str, compiled: str) -> bool:
    """Whether the compiled module ``compiled`` is older than its source
    ``source`` (by more than :data:`STALE_AFTER_SECONDS`): the source was
    edited after the build, and the compiled module runs the old code."""
    try:
        return os.path.getmtime(source) > os.path.getmtime(compiled) + STALE_AFTER_SECONDS
    except OSError:
        return False


def stale_modules() -> list[str]:
    """The compiled modules imported whose source was edited after they were
    built (a checkout's ``pip install -e .`` not run again): the package
    warns of them at import, since they run the old code."""
    return [
        name
        for name in compiled_modules()
        if is_stale(_source_stem(name) + ".py", sys.modules[f"{_PACKAGE}.{name}"].__file__ or "")
    ]
