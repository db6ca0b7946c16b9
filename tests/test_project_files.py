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
    assert found["test"] == "python -m pytest -q"


def test_readme_shows_the_light_installs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for line in ('pip install "unifiedarray[mlx]"', 'pip install "unifiedarray[cuda]"'):
        assert line in readme
