"""Every ``pycon`` example in the documentation runs, and prints what it shows.

Each page below is one test.  Its ```` ```pycon ```` blocks are run in order
with :mod:`doctest`, in one namespace per page (so a page can build on its
earlier examples, as a reader does), with ``NORMALIZE_WHITESPACE`` and
``ELLIPSIS``.  A page fails on any example whose output differs from what the
page shows; the failure names the page and the line of the example.

The examples use MLX as the second memory space (its CPU build runs on
Linux), so every page is skipped, with the reason, where MLX is unavailable.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

import unifiedarray as xp
from unifiedarray.backends import registry

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = ["buffer.md", "getting-started.md", "devices.md", "interop.md", "memory.md", "rules.md"]

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
    blocks = pycon_blocks(path.read_text(encoding="utf-8"))
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    globs: dict = {"__name__": f"docs_{path.stem.replace('-', '_')}"}
    reports: list[str] = []
    try:
        for lineno, source in blocks:
            test = parser.get_doctest(source, globs, f"docs/{page}", str(path), lineno - 1)
            out: list[str] = []
            result = runner.run(test, out=out.append, clear_globs=False)
            globs = test.globs  # DocTest copies its globals: carry them on
            if result.failed:
                reports.append("".join(out))
    finally:
        # Pages may change process-wide settings; leave them as we found them.
        xp.set_default_device("cpu")
    assert not reports, f"docs/{page}: examples whose output differs from the page:\n" + "\n".join(reports)
