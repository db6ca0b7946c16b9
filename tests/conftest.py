"""Shared fixtures: which devices this machine has, for parametrising."""

from __future__ import annotations

import os

# SciPy and scikit-learn read this when first imported: set it before anything imports them.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import pytest

from unifiedarray.backends import _registry


def _has(kind: str) -> bool:
    return _registry()[kind].available


HAS_MLX = _has("mlx")
HAS_CUDA = _has("cuda")

needs_mlx = pytest.mark.skipif(not HAS_MLX, reason=f"MLX unavailable: {_registry()['mlx'].unavailable_reason}")

#: every device present here, host first
DEVICES = ["cpu"] + (["mlx"] if HAS_MLX else []) + (["cuda:0"] if HAS_CUDA else [])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if HAS_CUDA:
        return
    skip = pytest.mark.skip(reason=f"no usable CUDA GPU: {_registry()['cuda'].unavailable_reason}")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip)
