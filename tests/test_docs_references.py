"""Every backticked reference to the package's names in the documentation
(docs/*.md, CONTRIBUTING.md) resolves: a page that names a module, a
function, a class or a method names one that exists today.

What counts as a reference (inline code only; fenced blocks are examples,
run by tests/test_docs_examples.py):

* a dotted name whose first part is the package (``unifiedarray``, ``xp``),
  one of its modules (``_buffer``, ``backends``, ``mlx_evaluation``), or a
  class or function defined in it (``UnifiedBuffer``, ``Backend``):
  ``_access.native_on``, ``UnifiedBuffer.fill``, ``xp.linalg.inv``; each part
  is looked up with ``getattr`` (importing submodules as needed);
* an attribute of an array or a buffer written ``.name`` (``.host``);
* a private name (``_acquire``, ``_move_to(...)``): it exists in some module
  or class of the package;
* a path in the project (``_buffer.py``, ``backends/``, ``bench_pool.py``,
  ``tests/test_index.py``, optionally with ``::test_name``): the file exists
  (and holds the test); a path into another project's tree
  (``scipy/integrate/tests/...``) is not a reference.

A trailing call (``Backend.download(native, out)``) is cut off before the
name is looked up.  ``NOT_REFERENCES`` lists, with the reason, the spans that
look like references and are not.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import unifiedarray

ROOT = Path(__file__).resolve().parents[1]
PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "CONTRIBUTING.md"]

#: Spans that look like references to the package and are not, each with why.
NOT_REFERENCES: dict[str, str] = {
    "unifiedarray.transfers": "the transfer log's logger name (logging.getLogger), not a module",
    "unifiedarray.device": "a dask config key (dask.config.get), not an attribute",
    "add.reduce": "NumPy's ufunc method (np.add.reduce), not the namespace's add",
    "foo_backend.py": "the example file name of CONTRIBUTING's guide to adding a backend",
    "unifiedarray/backends/foo_backend.py": "the example file name of CONTRIBUTING's guide to adding a backend",
    "conformance/xfails-foo.txt": "the example backend's xfail list in CONTRIBUTING's guide",
    "test_data_type_functions.py::test_can_cast": "a test of the official Array API suite (array-api-tests)",
    "test_at.py::test_incompatible_dtype": "a test of array-api-extra's suite",
    "test_rolling.py": "a test file of xarray's suite",
    "test_dataset.py": "a test file of xarray's suite",
    "test_duck_array_wrapping.py": "a test file of xarray's suite",
    "_chi2_kernel_fast(X, Y, result)": "scikit-learn's private function",
}

#: The project's folders: a path that starts with one (or a bare file name) is a reference to the project's files.
PROJECT_FOLDERS = ("unifiedarray", "backends", "tests", "conformance", "benchmarks", "docs", ".ci")

_FENCE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[ \t]*$", re.M | re.S)
_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_DOTTED = re.compile(rf"{_NAME}(?:\.{_NAME})+")
_ATTRIBUTE = re.compile(rf"\.{_NAME}")
_PRIVATE = re.compile(r"_[A-Za-z0-9][A-Za-z0-9_]*")  # one leading underscore: not a dunder
_CALL = re.compile(rf"(?P<name>{_NAME}(?:\.{_NAME})*)\(.*\)")
_PATH = re.compile(r"(?P<path>[\w./-]+(?:\.py|\.toml|\.md|\.txt|/))(?:::(?P<test>\w+))?")


def inline_spans(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, content)`` of every inline code span outside fenced blocks."""
    fenced = [(m.start(), m.end()) for m in _FENCE.finditer(text)]
    for m in _SPAN.finditer(text):
        if any(start <= m.start() < end for start, end in fenced):
            continue
        yield text.count("\n", 0, m.start()) + 1, m.group(1).strip()


@cache
def package_modules() -> dict[str, ModuleType]:
    """Every module of the package that imports here, by its full name."""
    modules = {"unifiedarray": unifiedarray}
    for info in pkgutil.walk_packages(unifiedarray.__path__, "unifiedarray."):
        try:
            modules[info.name] = importlib.import_module(info.name)
        except ImportError:  # an optional library's module (MLX's namespace without MLX): not checkable here
            continue
    return modules


@cache
def roots() -> dict[str, list[Any]]:
    """Each name a reference may start with, and what it may mean: the
    package, its modules by their last part, and what its modules define."""
    found: dict[str, list[Any]] = {"unifiedarray": [unifiedarray], "xp": [unifiedarray]}
    for full, module in package_modules().items():
        found.setdefault(full.rsplit(".", 1)[-1], []).append(module)
        for name, value in vars(module).items():
            if str(getattr(value, "__module__", "")).startswith("unifiedarray") and (
                inspect.isclass(value) or inspect.isfunction(value)
            ):
                found.setdefault(name, []).append(value)
    return found


@cache
def defined_names() -> frozenset[str]:
    """Every name defined anywhere in the package: module globals and class attributes."""
    names: set[str] = set()
    for module in package_modules().values():
        names.update(vars(module))
        for value in vars(module).values():
            if inspect.isclass(value):
                for klass in value.__mro__:
                    if str(klass.__module__).startswith("unifiedarray"):
                        names.update(vars(klass))
    return frozenset(names)


def _lookup(obj: Any, parts: list[str]) -> bool:
    for part in parts:
        try:
            obj = getattr(obj, part)
            continue
        except AttributeError:
            pass
        if not isinstance(obj, ModuleType):
            return False
        try:
            obj = importlib.import_module(f"{obj.__name__}.{part}")
        except ImportError:
            return False
    return True


def _array_attribute(name: str) -> bool:
    return any(hasattr(cls, name) for cls in (unifiedarray.UnifiedArray, unifiedarray.UnifiedBuffer))


def check(span: str) -> str | None:
    """Why ``span`` does not resolve, or None (it resolves, or it is not a reference)."""
    if span in NOT_REFERENCES:
        return None
    path = _PATH.fullmatch(span)
    if path:
        return _check_path(path.group("path"), path.group("test"))
    call = _CALL.fullmatch(span)
    name = call.group("name") if call else span
    if _DOTTED.fullmatch(name):
        first, *rest = name.split(".")
        if first not in roots():
            return None  # another library's name (np.mean, mx.eval, jax.transfer_guard) or a user's variable
        if any(_lookup(candidate, rest) for candidate in roots()[first]):
            return None
        return f"{name} does not resolve"
    if _ATTRIBUTE.fullmatch(name):
        return None if _array_attribute(name[1:]) else f"{name}: no such attribute of an array or a buffer"
    if _PRIVATE.fullmatch(name):
        return None if name in defined_names() or name in roots() else f"{name} is defined nowhere in the package"
    return None


def _check_path(path: str, test: str | None) -> str | None:
    if "/" in path.rstrip("/") and path.split("/", 1)[0] not in PROJECT_FOLDERS:
        return None  # a file of another project (SciPy's, scikit-learn's tests)
    where = [ROOT, ROOT / "unifiedarray", ROOT / "unifiedarray" / "backends", ROOT / "benchmarks", ROOT / "tests"]
    found = [base / path for base in where if (base / path).exists()]
    if not found:
        return f"{path}: no such file or folder"
    if test and not any(re.search(rf"^\s*(async )?def {test}\b", f.read_text(encoding="utf-8"), re.M) for f in found):
        return f"{path} has no {test}"
    return None


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_reference_resolves(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    broken = [
        f"{page.relative_to(ROOT)}:{line}: `{span}`: {why}" for line, span in inline_spans(text) if (why := check(span))
    ]
    assert not broken, "references that do not resolve:\n" + "\n".join(broken)


@pytest.mark.parametrize(
    ("span", "resolves"),
    [
        ("_buffer.UnifiedBuffer.fill", True),
        ("UnifiedBuffer.fill", True),
        ("xp.linalg.inv", True),
        ("unifiedarray.backends.register", True),
        ("mlx_evaluation.FAILURES", True),
        ("Backend.download(native, out)", True),
        ("_array.placement_of", False),  # the names design.md once cited
        ("_interop._run_numpy_call", False),
        ("UnifiedBuffer.no_such_method", False),
        (".host", True),
        (".no_such_handle", False),
        ("_acquire", True),
        ("_no_such_private_name", False),
        ("_move_to(dev)", True),
        ("_no_such_function(x)", False),
        ("tests/test_layers.py::test_the_layer_diagram_is_the_contract", True),
        ("tests/test_layers.py::test_no_such_test", False),
        ("_no_such_module.py", False),
        ("bench_pool.py", True),
        ("scipy/integrate/tests/test_tanhsinh.py", True),  # SciPy's: not a reference to this project
        ("np.mean(A, 0)", True),  # NumPy's: not a reference to the package
        ("any(x2 < 0)", True),  # a builtin
        ("float64", True),  # a word
    ],
)
def test_the_checker_finds_what_does_not_resolve(span: str, resolves: bool) -> None:
    """The check above can fail: names that are gone are reported, others pass."""
    assert (check(span) is None) is resolves


def test_inline_spans_skip_fenced_blocks() -> None:
    text = "a `_x.y`\n```python\n`_in.fence`\n```\nb `z`, ``double``\n"
    assert list(inline_spans(text)) == [(1, "_x.y"), (5, "z")]
