"""NumPy's questions about arrays that their shapes and dtypes answer
(``np.shape``, ``np.ndim``, ``np.result_type``, ``np.iscomplexobj``, ...):
answered from the arrays' metadata, moving nothing.

Example
-------
>>> import unifiedarray as xp
>>> ROUTES["shape"].target(xp.ones((2, 3)))
(2, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._access import host_native
from .._array import UnifiedArray
from ._route import Route, metadata

__all__ = ["ROUTES"]


def _stand_in(a: Any) -> Any:
    """What NumPy needs of a UnifiedArray to answer a question of dtypes:
    its dtype (NumPy 2 promotes a 0-d array as its dtype, NEP 50)."""
    return a.dtype if type(a) is UnifiedArray else a


def _empty_like_shape(a: Any) -> Any:
    """A data-free ndarray of a's shape and dtype (strides 0): for NumPy's
    questions that read shapes alone (``einsum_path``)."""
    if type(a) is not UnifiedArray:
        return a
    return np.lib.stride_tricks.as_strided(np.zeros((), dtype=a.dtype), shape=a.shape, strides=(0,) * a.ndim)


def _size(a: Any, axis: Any = None) -> int:
    return int(a.size if axis is None else a.shape[axis])


def _min_scalar_type(a: Any) -> Any:
    if a.ndim:
        return a.dtype
    return None  # a 0-d array's value decides it: the host


def _memory(a: Any) -> Any:
    """What of a UnifiedArray NumPy may ask about memory: its host copy as
    it is (current: nothing moves), or None (not current on the host)."""
    return host_native(a) if type(a) is UnifiedArray else a


def _shares(func: Any) -> Any:
    def answer(a: Any, b: Any, max_work: Any = None) -> Any:
        ma, mb = _memory(a), _memory(b)
        if ma is not None and mb is not None:
            return func(ma, mb) if max_work is None else func(ma, mb, max_work)
        if type(a) is UnifiedArray and type(b) is UnifiedArray and a.buffer is not b.buffer:
            return False  # two buffers never share memory
        return None  # asked of memory not on the host: read there (counted)

    return answer


ROUTES: dict[str, Route] = {
    "shape": metadata(lambda a: a.shape),
    "ndim": metadata(lambda a: a.ndim),
    "size": metadata(_size),
    "result_type": metadata(lambda *arrays_and_dtypes: np.result_type(*map(_stand_in, arrays_and_dtypes))),
    "can_cast": metadata(lambda from_, to, casting="safe": np.can_cast(_stand_in(from_), to, casting)),
    "common_type": metadata(
        lambda *arrays: np.common_type(*(np.empty(0, a.dtype) if type(a) is UnifiedArray else a for a in arrays))
    ),
    "iscomplexobj": metadata(lambda x: x.dtype.kind == "c"),
    "isrealobj": metadata(lambda x: x.dtype.kind != "c"),
    "min_scalar_type": metadata(_min_scalar_type),
    "einsum_path": metadata(lambda *operands, **kw: np.einsum_path(*map(_empty_like_shape, operands), **kw)),
    "may_share_memory": metadata(_shares(np.may_share_memory)),
    "shares_memory": metadata(_shares(np.shares_memory)),
}
