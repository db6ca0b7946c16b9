"""The package's layers go one way: its import graph (every import, inside
functions too, as grimp reads them) has no cycle, and the layer contract
(``[tool.importlinter]`` in pyproject.toml, checked by ``lint-imports``)
gives every module a layer of its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

grimp = pytest.importorskip("grimp")  # installed with import-linter (the dev extra)
tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[1]
BACKENDS = "unifiedarray.backends"


def import_cycles(package: str = "unifiedarray") -> list[list[str]]:
    """The strongly connected components of more than one module in
    ``package``'s import graph, each sorted: every cycle lies in one."""
    graph = grimp.build_graph(package, include_external_packages=False)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(root: str) -> None:
        # Tarjan's algorithm, iterative: (module, the next of its edges to follow)
        work = [(root, 0)]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, i = work.pop()
            if i < len(edges[v]):
                work.append((v, i + 1))
                w = edges[v][i]
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    components.append(sorted(component))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    return sorted(components)


def _in_backends(module: str) -> bool:
    return module == BACKENDS or module.startswith(BACKENDS + ".")


def test_cycle_finder_finds_a_cycle(tmp_path, monkeypatch):
    """The check below can fail: a package whose two modules import each
    other (one inside a function) is reported."""
    pkg = tmp_path / "cyclic_example"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from . import a\n")
    (pkg / "c.py").write_text("from . import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("cyclic_example") == [["cyclic_example.a", "cyclic_example.b"]]


def test_no_import_cycle_outside_the_backends_package():
    cycles = [c for c in import_cycles() if not all(_in_backends(m) for m in c)]
    assert cycles == []


def test_no_import_cycle_in_the_package():
    assert import_cycles() == []


def test_every_module_has_a_layer_of_its_own():
    """No layer of the contract is a group of siblings: each module's place
    is above or below every other's."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (layers,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["id"] == "layers"]
    grouped = [layer for layer in layers["layers"] if ":" in layer or "|" in layer]
    assert grouped == []


def test_the_layer_diagram_is_the_contract():
    """docs/design.md's picture of the layers chains the contract's modules
    in the contract's order."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (layers,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["id"] == "layers"]
    design = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    chains = [line.strip() for line in design.splitlines() if line.strip().startswith("m_") and " --> " in line]
    assert len(chains) == 1
    assert [re.fullmatch(r"m_(\S+)", node).group(1) for node in chains[0].split(" --> ")] == layers["layers"]
