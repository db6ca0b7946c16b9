"""The ``linalg`` extension of Array API 2025.12.

Each function is the standard's signature, written out, handing its call to
the one dispatch (:mod:`unifiedarray._dispatch`), which runs it on the
device where its arrays live.

Example
-------
>>> import unifiedarray as xp
>>> float(xp.linalg.det(xp.eye(3)))
1.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

import numpy as np
from numpy.exceptions import AxisError

from . import _calls
from ._array import UnifiedArray
from ._data_types import DType, astype


class EighResult(NamedTuple):
    """What ``eigh`` returns."""

    eigenvalues: UnifiedArray
    eigenvectors: UnifiedArray


class EigResult(NamedTuple):
    """What ``eig`` returns."""

    eigenvalues: UnifiedArray
    eigenvectors: UnifiedArray


class QRResult(NamedTuple):
    """What ``qr`` returns."""

    Q: UnifiedArray
    R: UnifiedArray


class SlogdetResult(NamedTuple):
    """What ``slogdet`` returns."""

    sign: UnifiedArray
    logabsdet: UnifiedArray


class SVDResult(NamedTuple):
    """What ``svd`` returns."""

    U: UnifiedArray
    S: UnifiedArray
    Vh: UnifiedArray


__all__ = [
    "EigResult",
    "EighResult",
    "QRResult",
    "SVDResult",
    "SlogdetResult",
    "cholesky",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "trace",
    "vecdot",
    "vector_norm",
]


def cholesky(x: UnifiedArray, /, *, upper: bool = False) -> UnifiedArray:
    """``linalg.cholesky`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.cholesky.html
    """
    return _calls.call("linalg.cholesky", (x,), {"upper": upper})


def cross(x1: UnifiedArray, x2: UnifiedArray, /, *, axis: int = -1) -> UnifiedArray:
    """``linalg.cross`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.cross.html
    """
    _calls.require_arrays("linalg.cross", x1, x2)
    for a in (x1, x2):
        if not -a.ndim <= axis < a.ndim:
            raise AxisError(f"linalg.cross: axis {axis} is out of bounds for an array of {a.ndim} dimensions")
        if a.shape[axis] != 3:
            raise ValueError(
                f"linalg.cross: the axis {axis} must have size 3 in both arrays (shapes {x1.shape}, {x2.shape})"
            )
    return _calls.call("linalg.cross", (x1, x2), {"axis": axis})


def det(x: UnifiedArray, /) -> UnifiedArray:
    """``linalg.det`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.det.html
    """
    return _calls.call("linalg.det", (x,))


def diagonal(x: UnifiedArray, /, *, offset: int = 0) -> UnifiedArray:
    """``linalg.diagonal`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.diagonal.html
    """
    return _calls.call("linalg.diagonal", (x,), {"offset": offset})


def eig(x: UnifiedArray, /) -> EigResult:
    """``linalg.eig`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.eig.html
    """
    values, vectors = _calls.call("linalg.eig", (x,))
    return EigResult(_complex(values), _complex(vectors))


def eigh(x: UnifiedArray, /) -> EighResult:
    """``linalg.eigh`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.eigh.html
    """
    return EighResult(*_calls.call("linalg.eigh", (x,)))


def eigvals(x: UnifiedArray, /) -> UnifiedArray:
    """``linalg.eigvals`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.eigvals.html
    """
    return _complex(_calls.call("linalg.eigvals", (x,)))


def _complex(x: UnifiedArray) -> UnifiedArray:
    # The standard's eig is complex whatever the eigenvalues; NumPy's, and a
    # device's function built on it, is real where they all are.
    if x.dtype.kind == "c":
        return x
    return astype(x, np.result_type(x.dtype, np.complex64))


def eigvalsh(x: UnifiedArray, /) -> UnifiedArray:
    """``linalg.eigvalsh`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.eigvalsh.html
    """
    return _calls.call("linalg.eigvalsh", (x,))


def inv(x: UnifiedArray, /) -> UnifiedArray:
    """``linalg.inv`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.inv.html
    """
    return _calls.call("linalg.inv", (x,))


def matmul(x1: UnifiedArray, x2: UnifiedArray, /) -> UnifiedArray:
    """``linalg.matmul`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.matmul.html
    """
    _calls.require_arrays("linalg.matmul", x1, x2)
    return _calls.call("linalg.matmul", (x1, x2))


def matrix_norm(
    x: UnifiedArray, /, *, keepdims: bool = False, ord: float | Literal["fro", "nuc"] | None = "fro"
) -> UnifiedArray:
    """``linalg.matrix_norm`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.matrix_norm.html
    """
    return _calls.call("linalg.matrix_norm", (x,), {"keepdims": keepdims, "ord": ord})


def matrix_power(x: UnifiedArray, n: int, /) -> UnifiedArray:
    """``linalg.matrix_power`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.matrix_power.html
    """
    return _calls.call("linalg.matrix_power", (x, n))


def matrix_rank(x: UnifiedArray, /, *, rtol: float | UnifiedArray | None = None) -> UnifiedArray:
    """``linalg.matrix_rank`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.matrix_rank.html
    """
    return _calls.call("linalg.matrix_rank", (x,), {"rtol": rtol})


def matrix_transpose(x: UnifiedArray, /) -> UnifiedArray:
    """``linalg.matrix_transpose`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.matrix_transpose.html
    """
    return _calls.call("linalg.matrix_transpose", (x,))


def outer(x1: UnifiedArray, x2: UnifiedArray, /) -> UnifiedArray:
    """``linalg.outer`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.outer.html
    """
    _calls.require_arrays("linalg.outer", x1, x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"linalg.outer: needs two 1-D arrays, not {x1.ndim}-D and {x2.ndim}-D")
    return _calls.call("linalg.outer", (x1, x2))


def pinv(x: UnifiedArray, /, *, rtol: float | UnifiedArray | None = None) -> UnifiedArray:
    """``linalg.pinv`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.pinv.html
    """
    return _calls.call("linalg.pinv", (x,), {"rtol": rtol})


def qr(x: UnifiedArray, /, *, mode: Literal["reduced", "complete"] = "reduced") -> QRResult:
    """``linalg.qr`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.qr.html
    """
    if mode not in ("reduced", "complete"):
        raise ValueError(f"linalg.qr: mode must be 'reduced' or 'complete', not {mode!r}")
    return QRResult(*_calls.call("linalg.qr", (x,), {"mode": mode}))


def slogdet(x: UnifiedArray, /) -> SlogdetResult:
    """``linalg.slogdet`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.slogdet.html
    """
    return SlogdetResult(*_calls.call("linalg.slogdet", (x,)))


def solve(x1: UnifiedArray, x2: UnifiedArray, /) -> UnifiedArray:
    """``linalg.solve`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.solve.html
    """
    return _calls.call("linalg.solve", (x1, x2))


def svd(x: UnifiedArray, /, *, full_matrices: bool = True) -> SVDResult:
    """``linalg.svd`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.svd.html
    """
    return SVDResult(*_calls.call("linalg.svd", (x,), {"full_matrices": full_matrices}))


def svdvals(x: UnifiedArray, /) -> UnifiedArray:
    """``linalg.svdvals`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.svdvals.html
    """
    return _calls.call("linalg.svdvals", (x,))


def tensordot(
    x1: UnifiedArray,
    x2: UnifiedArray,
    /,
    *,
    axes: int | tuple[Sequence[int], Sequence[int]] = 2,
) -> UnifiedArray:
    """``linalg.tensordot`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.tensordot.html
    """
    return _calls.call("linalg.tensordot", (x1, x2), {"axes": axes})


def trace(x: UnifiedArray, /, *, offset: int = 0, dtype: DType | None = None) -> UnifiedArray:
    """``linalg.trace`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.trace.html
    """
    return _calls.call("linalg.trace", (x,), {"offset": offset, "dtype": dtype})


def vecdot(x1: UnifiedArray, x2: UnifiedArray, /, *, axis: int = -1) -> UnifiedArray:
    """``linalg.vecdot`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.vecdot.html
    """
    return _calls.call("linalg.vecdot", (x1, x2), {"axis": axis})


def vector_norm(
    x: UnifiedArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False, ord: float = 2
) -> UnifiedArray:
    """``linalg.vector_norm`` (linalg extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.vector_norm.html
    """
    return _calls.call("linalg.vector_norm", (x,), {"axis": axis, "keepdims": keepdims, "ord": ord})
