"""Data types, in one place: what a dtype argument means, and the default
dtypes of each device.

Dtypes are NumPy's ``dtype`` objects on every device (``xp.float64 ==
np.dtype("float64")``); each backend says which it can hold
(``Backend.supports_dtype``).  The default floating dtype is float64
everywhere; the default complex dtype is complex128, except on MLX, which
holds no complex128 (complex64 there, as
``__array_namespace_info__().default_dtypes(device="mlx")`` says).

Example
-------
>>> from unifiedarray._dtypes import as_dtype
>>> from unifiedarray._devices import CPU
>>> as_dtype(float, CPU)
dtype('float64')
"""

from __future__ import annotations

import builtins
import contextlib
from typing import Any, TypeAlias

import numpy as np

from ._devices import CPU, Device

__all__ = ["DType", "as_dtype", "default_complex", "default_float", "default_int", "scalar_dtype"]

#: The type of a dtype: NumPy's ``dtype`` objects.
DType: TypeAlias = np.dtype

_FLOAT64, _COMPLEX128 = np.dtype(np.float64), np.dtype(np.complex128)
_INT64, _BOOL = np.dtype(np.int64), np.dtype(np.bool_)
PYTHON_TYPES = (builtins.bool, builtins.int, builtins.float, builtins.complex)


def default_float(dev: Device) -> np.dtype:
    """The default real floating dtype on ``dev``: float64 everywhere."""
    return _FLOAT64


# kind -> its default complex dtype where it is not complex128 (set by the
# backends' registry from Backend.default_complex).
_DEFAULT_COMPLEX: dict[str, np.dtype] = {}


def set_default_complex(kind: str, dtype: np.dtype | None) -> None:
    """Make ``dtype`` the default complex dtype on devices of ``kind`` (None:
    complex128 again); the backends' registry calls this for each backend."""
    if dtype is None or np.dtype(dtype) == _COMPLEX128:
        _DEFAULT_COMPLEX.pop(kind, None)
    else:
        _DEFAULT_COMPLEX[kind] = np.dtype(dtype)


def default_complex(dev: Device) -> np.dtype:
    """The default complex dtype on ``dev``: complex128, except where its
    backend holds none (MLX: complex64; ``Backend.default_complex``)."""
    return _DEFAULT_COMPLEX.get(dev.kind, _COMPLEX128) if _DEFAULT_COMPLEX else _COMPLEX128


def default_int(dev: Device) -> np.dtype:
    """The default integer dtype on ``dev``: int64 everywhere."""
    return _INT64


# Dtype arguments seen before, and their dtypes.  np.dtype(), and even
# isinstance(x, np.dtype) (NumPy's dtype metaclass), cost several times a
# dict lookup, and this is asked on every creation and astype.
# Python types are never stored: what they mean depends on the device.
_DTYPE_OF: dict[Any, np.dtype] = {}


def as_dtype(dtype: Any, dev: Device = CPU) -> np.dtype:
    """A dtype argument as a NumPy dtype.

    Python's ``bool``, ``int``, ``float`` and ``complex`` are taken as NumPy's
    and CuPy's namespaces take them (and as scikit-learn passes them, e.g.
    ``xp.astype(y, int)``): the default dtype of that kind on ``dev``, the
    dtype a Python scalar of the type becomes there.
    """
    try:
        dt = _DTYPE_OF.get(dtype)
    except TypeError:  # unhashable: a structured dtype's field list, say
        dt = None
    if dt is not None:
        return dt
    if isinstance(dtype, np.dtype):
        dt = dtype  # checked first: np.dtype("bool") == bool is True
    elif dtype in PYTHON_TYPES:
        return scalar_dtype(dtype(), dev)
    else:
        try:
            dt = np.dtype(dtype)
        except TypeError:
            raise TypeError(f"{dtype!r} is not a dtype") from None
    if len(_DTYPE_OF) < 256:
        with contextlib.suppress(TypeError):
            _DTYPE_OF[dtype] = dt
    return dt


def scalar_dtype(value: Any, dev: Device) -> np.dtype:
    """The dtype a Python scalar becomes on ``dev``."""
    if isinstance(value, builtins.bool):
        return _BOOL
    if isinstance(value, builtins.int):
        return default_int(dev)
    if isinstance(value, builtins.float):
        return default_float(dev)
    if isinstance(value, builtins.complex):
        return default_complex(dev)
    raise TypeError(f"fill value must be a Python scalar, not {type(value).__name__}")
