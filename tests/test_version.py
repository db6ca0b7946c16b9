"""The version, written once (``unifiedarray/_version.py``): the package
and its metadata give the same, a PEP 440 release."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import unifiedarray as xp
from unifiedarray import _version

if sys.version_info >= (3, 11):
    import tomllib


def test_the_package_gives_the_one_version():
    assert xp.__version__ == _version.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.dev\d+)?", xp.__version__)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib: Python 3.11+")
def test_pyproject_reads_the_version_from_the_module():
    config = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" in config["project"]["dynamic"]
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "unifiedarray._version.__version__"}
