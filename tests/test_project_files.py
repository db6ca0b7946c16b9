"""The project's own files agree with each other: extras, license, README's set-up commands."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
tomllib = pytest.importorskip("tomllib")  # Python 3.11+; the checks below need no other version


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _extras_table(page: str) -> list[str]:
    """The first column of the Markdown table whose header starts with ``| extra |``."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    table = re.search(r"^\| extra \|.*?\n\|[- |]+\n((?:\|.*\n)+)", text, re.M)
    assert table, f"docs/{page} has no extras table"
    return [re.sub(r"[`\s]", "", row.split("|")[1]) for row in table.group(1).splitlines()]


def test_extras_table_lists_every_extra() -> None:
    extras = list(_pyproject()["project"]["optional-dependencies"])
    assert sorted(_extras_table("getting-started.md")) == sorted(extras)


def test_license_file_matches_pyproject() -> None:
    project = _pyproject()["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")


def test_readme_keeps_its_setup_commands() -> None:
    # .ci/run reads these two commands from README.md with this awk program: they must stay findable.
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    program = re.search(r"awk -v m=\"<!-- setup:\$1 -->\" '([^']*)'", ci)
    assert program, ".ci/run no longer reads README.md as this test expects"
    found = {}
    for name in ("install", "test"):
        proc = subprocess.run(
            ["awk", "-v", f"m=<!-- setup:{name} -->", program.group(1), str(ROOT / "README.md")],
            capture_output=True,
            text=True,
            check=True,
        )
        found[name] = proc.stdout.strip()
    assert found["install"].startswith("python -m pip install -e ")
    assert found["install"].endswith("&& python -m unifiedarray")
    # The suite on the installed build (compiled where a compiler was at
    # hand), then on the pure-Python modules with the coverage floor
    # ([tool.coverage]: coverage cannot see compiled lines).
    installed, pure = found["test"].split(" && ")
    assert installed.startswith("python -m pytest -q") and "UNIFIEDARRAY_PURE_PYTHON" not in installed
    assert pure.startswith("UNIFIEDARRAY_PURE_PYTHON=1 python -m pytest -q") and pure.endswith(" --cov")
    # Each spread over the cores (pytest-xdist, in the test extra): .ci/run's 15 minutes.
    assert " -n auto" in installed and " -n auto" in pure


def test_readme_shows_the_light_installs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for line in ('pip install "unifiedarray[mlx]"', 'pip install "unifiedarray[cuda]"'):
        assert line in readme


#: Modules whose tests live in a file named by behaviour, not yet in a
#: ``tests/test_<module>.py`` of their own (the ratchet: an entry goes once its
#: file exists, and a new module gets its file, not an entry).  Where their
#: tests are today: the dispatch's modules in test_fast_paths.py,
#: test_temporaries.py, test_array_stateful.py, test_transfers.py and
#: test_signatures.py; NumPy's recipes and views in test_numpy_translations.py
#: and test_interop.py; devices, dtypes, policy and placement in
#: test_transfers.py, test_rules.py and test_backends.py; the backends and the
#: registry in test_backends.py, test_buffer*.py, test_cuda*.py and
#: test_mlx_failures.py; compute in test_corrections.py; lib in
#: test_extensions.py; pickling and dask in test_interop.py and
#: test_distributed.py.
NOT_YET_MIRRORED = {
    "_calls", "_dask", "_devices", "_dtypes", "_operators", "_pickling",
    "_placement", "_policy", "_resolve", "_results", "_subscripts", "_view_ops", "_writes", "_base",
    "_registry", "mlx_backend", "mlx_evaluation", "numpy_backend", "compute", "lib",
}  # fmt: skip


def package_modules() -> list[str]:
    """The package's modules as tests mirror them: the last part of each
    module's name; a subpackage (``mlx_namespace``, ``lib``) counts as one."""
    names = set()
    for path in (ROOT / "unifiedarray").rglob("*.py"):
        parts = path.relative_to(ROOT / "unifiedarray").parts
        if len(parts) > 1 and parts[0] != "backends":
            names.add(parts[0])  # lib/
        elif len(parts) > 2:
            names.add(parts[1])  # backends/mlx_namespace/
        elif path.name != "__init__.py":
            names.add(path.stem)
    return sorted(names)


def mirror_of(module: str) -> Path:
    return ROOT / "tests" / ("test_main.py" if module == "__main__" else f"test_{module.lstrip('_')}.py")


def test_every_module_has_its_test_file() -> None:
    missing = [m for m in package_modules() if not mirror_of(m).exists() and m not in NOT_YET_MIRRORED]
    assert missing == [], "modules without tests/test_<module>.py: give each one"
    stale = sorted(m for m in NOT_YET_MIRRORED if mirror_of(m).exists() or m not in package_modules())
    assert stale == [], "NOT_YET_MIRRORED entries that have their file now (or are gone): remove them"


def test_a_test_that_allocates_past_the_memory_cap_fails_alone():
    """conftest.py bounds each test process's address space
    (``UA_TEST_MEMORY_CAP``): an allocation past it is a ``MemoryError``
    in the test that made it, and the process goes on, where without the
    cap it grows until the kernel kills the whole run."""
    import resource

    import numpy as np

    from .conftest import MEMORY_CAP_GIB

    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if MEMORY_CAP_GIB <= 0:
        pytest.skip("UA_TEST_MEMORY_CAP=0: no cap")
    assert soft <= MEMORY_CAP_GIB * 2**30
    with pytest.raises(MemoryError):
        np.ones(soft // 8 + 1)
    assert np.ones(4).sum() == 4.0  # the process goes on
