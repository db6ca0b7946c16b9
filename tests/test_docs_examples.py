"""Every ``pycon`` example in the documentation runs, and prints what it shows.

Each page below is one test.  Its ```` ```pycon ```` blocks are run in order
with :mod:`doctest`, in one namespace per page (so a page can build on its
earlier examples, as a reader does), with ``NORMALIZE_WHITESPACE`` and
``ELLIPSIS``.  A page fails on any example whose output differs from what the
page shows; the failure names the page and the line of the example.

The examples use MLX as the second memory space (its CPU build runs on
Linux), so every page is skipped, with the reason, where MLX is unavailable.
An example that imports another library (JAX, dask, xarray, ...) runs where
that library imports; where it does not, that example alone is not run, and
the page's test, its other examples passed, is skipped naming the library
and the example's line.
"""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

import unifiedarray as xp
from unifiedarray.backends import registry

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = ["buffer.md", "getting-started.md", "devices.md", "interop.md", "memory.md", "random.md", "rules.md"]

FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS

# A fenced block: ```pycon ... ``` (the fence may be indented, e.g. inside an
# admonition; the indentation is removed from every line of the block).
_FENCE = re.compile(r"^(?P<indent>[ \t]*)```pycon[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)


def pycon_blocks(text: str) -> list[tuple[int, str]]:
    """``(line number, source)`` of every ``pycon`` block of a Markdown page."""
    blocks = []
    for m in _FENCE.finditer(text):
        indent = m.group("indent")
        lines = m.group("body").splitlines(keepends=True)
        body = "".join(line[len(indent) :] if line.startswith(indent) else line for line in lines)
        blocks.append((text.count("\n", 0, m.start()) + 2, body))
    return blocks


_IMPORT = re.compile(r"^>>> (?:import (?P<modules>[\w., ]+)|from (?P<package>[\w.]+) import (?P<names>[\w, ]+))$", re.M)


def imported_libraries(source: str) -> dict[str, str]:
    """The names an example's imports bind, each with the top-level name of
    the library it comes from (``import jax.numpy as jnp``: ``jnp`` from jax)."""
    bound: dict[str, str] = {}
    for m in _IMPORT.finditer(source):
        if m.group("package"):
            library = m.group("package").split(".")[0]
            bound.update(dict.fromkeys((n.strip() for n in m.group("names").split(",")), library))
            continue
        for part in m.group("modules").split(","):
            module, _, alias = (w.strip() for w in part.partition(" as "))
            bound[alias or module.split(".")[0]] = module.split(".")[0]
    return bound


def _uses(source: str, name: str) -> bool:
    return re.search(rf"^(?:>>>|\.\.\.) .*\b{re.escape(name)}\b", source, re.M) is not None


def unavailable(library: str) -> str | None:
    """Why ``library`` cannot be imported here, or None."""
    try:
        importlib.import_module(library)
    except Exception as exc:  # missing, or its native library failed to load
        return f"{type(exc).__name__}: {exc}"
    return None


def run_examples(path: Path, text: str) -> tuple[list[str], list[str], int]:
    """Run a page's examples in order, in one namespace: the reports of
    those whose output differs, the examples not run (each with the
    libraries it needs that are unavailable), and how many ran."""
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    globs: dict = {"__name__": f"docs_{path.stem.replace('-', '_')}"}
    reports: list[str] = []
    not_run: list[str] = []
    ran = 0
    absent: dict[str, str] = {}  # names bound by the imports of examples not run, and their library
    for lineno, source in pycon_blocks(text):
        bound = imported_libraries(source)
        needs = set(bound.values()) | {lib for name, lib in absent.items() if _uses(source, name)}
        missing = {lib: why for lib in sorted(needs) if (why := unavailable(lib))}
        if missing:
            absent.update({name: lib for name, lib in bound.items() if lib in missing})
            not_run.append(f"line {lineno} needs " + ", ".join(f"{lib} ({why})" for lib, why in missing.items()))
            continue
        test = parser.get_doctest(source, globs, path.name, str(path), lineno - 1)
        out: list[str] = []
        result = runner.run(test, out=out.append, clear_globs=False)
        globs = test.globs  # DocTest copies its globals: carry them on
        ran += 1
        if result.failed:
            reports.append("".join(out))
    return reports, not_run, ran


def _mlx_reason() -> str | None:
    try:
        import mlx.core  # noqa: F401
    except Exception as exc:  # missing, or its native library failed to load
        return f"the examples use MLX, which is unavailable here: {type(exc).__name__}: {exc}"
    return registry()["mlx"].unavailable_reason


def test_every_page_has_examples() -> None:
    for page in PAGES:
        assert pycon_blocks((DOCS / page).read_text(encoding="utf-8")), f"docs/{page} has no pycon example"


def test_fence_parser() -> None:
    text = "x\n```pycon\n>>> 1 + 1\n2\n```\n\n    ```pycon\n    >>> 2\n    2\n    ```\n"
    assert pycon_blocks(text) == [(3, ">>> 1 + 1\n2\n"), (8, ">>> 2\n2\n")]


@pytest.mark.parametrize("page", PAGES)
def test_page_examples(page: str) -> None:
    reason = _mlx_reason()
    if reason is not None:
        pytest.skip(reason)
    path = DOCS / page
    try:
        reports, not_run, ran = run_examples(path, path.read_text(encoding="utf-8"))
    finally:
        # Pages may change process-wide settings; leave them as we found them.
        xp.set_default_device("cpu")
    assert not reports, f"docs/{page}: examples whose output differs from the page:\n" + "\n".join(reports)
    if not_run:
        pytest.skip(f"docs/{page}: {ran} examples passed; not run here: " + "; ".join(not_run))


def test_imported_libraries() -> None:
    source = (
        ">>> import jax.numpy as jnp\n>>> import dask, numpy as np\n>>> from xarray.core import utils, api\n>>> x = 1\n"
    )
    assert imported_libraries(source) == {
        "jnp": "jax",
        "dask": "dask",
        "np": "numpy",
        "utils": "xarray",
        "api": "xarray",
    }


def test_an_example_needing_an_absent_library_is_not_run_and_the_others_are(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    text = (
        "```pycon\n>>> x = 2\n```\n\n"
        "```pycon\n>>> import no_such_library_for_this_test\n>>> 1/0\n```\n\n"
        "```pycon\n>>> no_such_library_for_this_test.f()\n```\n\n"
        "```pycon\n>>> x + 1\n4\n```\n"
    )
    reports, not_run, ran = run_examples(page, text)
    assert ran == 2
    why = "no_such_library_for_this_test (ModuleNotFoundError: No module named 'no_such_library_for_this_test')"
    assert not_run == [f"line 6 needs {why}", f"line 11 needs {why}"]  # the second uses the first's import
    assert len(reports) == 1 and "Expected:\n    4\nGot:\n    3" in reports[0]  # the last one ran, and failed
