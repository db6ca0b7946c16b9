"""The standard's recommended discovery ("Purpose and scope"): an entry point in the
group ``array_api``, named ``unifiedarray``, that loads the namespace module."""

from __future__ import annotations

import importlib
import importlib.metadata
import json
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

import unifiedarray

ROOT = Path(__file__).resolve().parent.parent


def test_pyproject_declares_the_array_api_entry_point() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    value = project["entry-points"]["array_api"]["unifiedarray"]
    # The value names the namespace module itself (no ":attribute"), as NumPy's does.
    assert importlib.import_module(value) is unifiedarray
    assert unifiedarray.__array_api_version__ == "2025.12"


def _installed_from_this_tree(dist: importlib.metadata.Distribution) -> bool | None:
    """Whether ``dist`` was installed from this checkout (None if it does not say)."""
    text = dist.read_text("direct_url.json")
    if not text:
        return None
    url = json.loads(text).get("url", "")
    if not url.startswith("file://"):
        return False
    return Path(unquote(urlparse(url).path)).resolve() == ROOT


def test_entry_point_finds_and_loads_the_namespace() -> None:
    try:
        dist = importlib.metadata.distribution("unifiedarray")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("unifiedarray's package metadata is not installed (run from a source tree without pip install)")
    if _installed_from_this_tree(dist) is False:
        pytest.skip(
            "the installed unifiedarray metadata comes from another checkout "
            f"({dist.read_text('direct_url.json')}); its entry points are that tree's, not this one's"
        )
    found = [ep for ep in importlib.metadata.entry_points(group="array_api") if ep.name == "unifiedarray"]
    assert len(found) == 1, f"entry points in group array_api: {importlib.metadata.entry_points(group='array_api')}"
    namespace = found[0].load()
    assert namespace is unifiedarray
    x = namespace.asarray([1.0, 2.0])
    assert x.__array_namespace__() is namespace
