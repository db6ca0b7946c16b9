"""The ``linalg`` extension over MLX arrays (Array API 2025.12, 25 functions).

MLX's linear algebra runs on its CPU stream only, for float32 and float64;
every function here builds its graph there.  Integer input computes in
float64, as NumPy does.  float16 is refused, as NumPy refuses it.

complex64: MLX has ``eigh``, ``eigvalsh``, ``eig``, ``eigvals`` and ``svd``
for it, and everything built on ``svd`` (``pinv``, ``svdvals``,
``matrix_rank``, ``matrix_norm``) follows.  ``cholesky``, ``det``, ``inv``,
``qr``, ``slogdet`` and ``solve`` have no complex kernel in MLX: for
complex64 they run on the host with NumPy (which keeps complex64), their
moves counted.

``eig`` and ``eigvals`` of real float64 input would give complex128, which
MLX cannot hold: a ``TypeError``.

Failures are NumPy's ``LinAlgError``, at the call, as on the host; the one
table that says how is ``mlx_evaluation.FAILURES``.  MLX's ``svd``, ``inv``,
``solve``, ``eigh`` and ``eig`` fail only when the result is evaluated (a
``RuntimeError`` at a later read, then unwritten memory), so the guards of
``svd``, ``svdvals``, ``inv``, ``solve``, ``eigh``, ``eigvalsh``, ``eig``
and ``eigvals`` evaluate their result at the call, and what is built on
them (``pinv``, ``matrix_rank``, ``matrix_norm`` with 'nuc', 2 or -2,
``matrix_power`` with a negative power) inherits that.  MLX's ``cholesky``
of a matrix that is not positive definite returns garbage without a word:
``cholesky`` reads whether any diagonal entry of the factor is not positive
(LAPACK's ``potrf`` leaves the failing pivot, ``<= 0``, there).  ``eig`` and
``eigvals`` refuse non-finite input first, as NumPy does (MLX would return
garbage, or LAPACK end the process).  The cost is in docs/design.md
("Errors: the same class on every device").
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Callable
from typing import Any, NamedTuple

import array_api_compat.numpy as compat_np
import mlx.core as mx
import numpy as np
from numpy.exceptions import AxisError
from numpy.linalg import LinAlgError

from ..mlx_evaluation import guard
from ._core import (
    COMPLEX64,
    FLOAT32,
    FLOAT64,
    Array,
    c_long,
    cast,
    check_holdable,
    common_dtype,
    dtype_of,
    empty_safe,
    from_host,
    in_dtype,
    normalize_axes,
    normalize_axis,
    on_cpu,
    refuse,
    require_array,
    result_dtype,
    to_host,
)
from ._linear import matmul as _matmul
from ._linear import tensordot as _tensordot
from ._linear import vecdot as _vecdot
from ._manipulation import matrix_transpose as _matrix_transpose

__all__ = [
    "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matmul",
    "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr",
    "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
]  # fmt: skip


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class EigResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


matmul = on_cpu(_matmul)
tensordot = on_cpu(_tensordot)
vecdot = on_cpu(_vecdot)
matrix_transpose = on_cpu(_matrix_transpose)

_REAL_OF = {FLOAT32: FLOAT32, FLOAT64: FLOAT64, COMPLEX64: FLOAT32}


# -- helpers ----------------------------------------------------------------------------------


def _inexact(x: Array, op: str) -> Array:
    """``x`` in the dtype its ``op`` computes in: integers and bool as
    float64 (NumPy's rule), float16 refused (NumPy refuses it too)."""
    require_array(x, op)
    dt = dtype_of(x)
    if dt.kind in "biu":
        return x.astype(mx.float64)
    if dt not in _REAL_OF:
        raise refuse(f"linalg.{op}", dt, "linalg needs float32, float64 or complex64")
    return x


def _square(x: Array, op: str) -> None:
    # LinAlgError, as NumPy raises for these shapes (it subclasses ValueError).
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise LinAlgError(f"mlx linalg.{op}: expected a (stack of) square matrices, got shape {tuple(x.shape)}")


def _matrices(x: Array, op: str, error: type[Exception] = LinAlgError) -> None:
    # ``error`` is the class NumPy raises for this function (it varies).
    if x.ndim < 2:
        raise error(f"mlx linalg.{op}: expected a (stack of) matrices, got shape {tuple(x.shape)}")


def _on_host(op: str, fn: Callable[..., Any], *arrays: Array, **kw: Any) -> Any:
    """Run ``fn`` (NumPy) on the host; every move counted."""
    reason = f"mlx fallback: linalg.{op} (complex64)"
    hosts = [to_host(a, reason) for a in arrays]
    res = fn(*hosts, **kw)
    if isinstance(res, tuple):
        return tuple(from_host(np.asarray(r), reason) for r in res)
    return from_host(np.asarray(res), reason)


def _conj_t(x: Array) -> Array:
    t = mx.swapaxes(x, -1, -2)
    return mx.conj(t) if x.dtype == mx.complex64 else t


def _refuse_singular(a: Array, op: str) -> None:
    """``LinAlgError`` for a matrix with an exact zero pivot (NumPy's
    "Singular matrix", which LAPACK reports the same way), found before MLX
    sees it: MLX 0.32's inv and solve report LAPACK's failure by raising from
    an evaluation, and that sometimes never returns (a hung process).  Its
    LU factorisation does not fail on a singular matrix: its zero pivot is
    read instead (one evaluation)."""
    if a.size == 0:
        return
    lu, _ = mx.linalg.lu_factor(a)
    if mx.any(mx.diagonal(lu, axis1=-2, axis2=-1) == 0).item():
        raise LinAlgError(f"mlx linalg.{op}: Singular matrix")


def _eps(dtype: np.dtype) -> float:
    return float(np.finfo(_REAL_OF[dtype]).eps)  # type: ignore[call-overload]


# -- decompositions ---------------------------------------------------------------------------


@on_cpu
def cholesky(x: Array, /, *, upper: bool = False) -> Array:
    """Array API ``linalg.cholesky`` (reads the lower triangle, as NumPy)."""
    x = _inexact(x, "cholesky")
    _square(x, "cholesky")
    if x.dtype == mx.complex64:
        low = _on_host("cholesky", np.linalg.cholesky, x)
    else:
        low = mx.linalg.cholesky(x)
        # MLX ignores potrf's failure flag; the failing pivot (<= 0) is left
        # on the diagonal.  NaN is not a failure: NumPy returns NaN there too.
        if builtins.bool(mx.any(mx.diagonal(low, axis1=-2, axis2=-1) <= 0).item()):
            raise LinAlgError("mlx linalg.cholesky: Matrix is not positive definite")
    return _conj_t(low) if upper else low


@on_cpu
def det(x: Array, /) -> Array:
    """Array API ``linalg.det``."""
    x = _inexact(x, "det")
    _square(x, "det")
    if x.dtype == mx.complex64:
        return _on_host("det", np.linalg.det, x)
    n = x.shape[-1]
    if n == 0:
        return mx.ones(tuple(x.shape[:-2]), dtype=x.dtype)
    # MLX's det is exp(logabsdet) through its float32 exp: float64 results
    # off in the 7th digit.  The product of the LU diagonal (NumPy's way) is not.
    lu, pivots = mx.linalg.lu_factor(x)
    swaps = mx.sum((pivots != mx.arange(n, dtype=pivots.dtype)).astype(mx.int32), axis=-1)
    sign = 1 - 2 * (swaps % 2).astype(x.dtype)
    return sign * mx.prod(mx.diagonal(lu, axis1=-2, axis2=-1), axis=-1)


@on_cpu
def slogdet(x: Array, /) -> SlogdetResult:
    """Array API ``linalg.slogdet``."""
    x = _inexact(x, "slogdet")
    _square(x, "slogdet")
    if x.dtype == mx.complex64:
        return SlogdetResult(*_on_host("slogdet", lambda a: tuple(np.linalg.slogdet(a)), x))
    sign, logabs = mx.linalg.slogdet(x)
    return SlogdetResult(sign, logabs)


@on_cpu
def inv(x: Array, /) -> Array:
    """Array API ``linalg.inv``."""
    x = _inexact(x, "inv")
    _square(x, "inv")
    if x.dtype == mx.complex64:
        return _on_host("inv", np.linalg.inv, x)
    _refuse_singular(x, "inv")
    return mx.linalg.inv(x)  # evaluated at the call by its guard (mlx_evaluation.FAILURES)


@on_cpu
def eigh(x: Array, /) -> EighResult:
    """Array API ``linalg.eigh`` (eigenvalues ascending, real)."""
    x = _inexact(x, "eigh")
    _square(x, "eigh")
    w, v = mx.linalg.eigh(x)
    return EighResult(w, v)


@on_cpu
def eigvalsh(x: Array, /) -> Array:
    """Array API ``linalg.eigvalsh``."""
    x = _inexact(x, "eigvalsh")
    _square(x, "eigvalsh")
    return mx.linalg.eigvalsh(x)


def _eig_input(x: Array, op: str) -> Array:
    x = _inexact(x, op)
    _square(x, op)
    if x.dtype == mx.float64:
        raise refuse(
            f"linalg.{op}",
            FLOAT64,
            "the result would be complex128, which mlx cannot hold; "
            "use float32 input (complex64 result) or another device",
        )
    # NumPy refuses non-finite input to eig; MLX returns garbage for it, or
    # LAPACK's xerbla ends the process (a matrix of NaN).  One evaluation.
    if x.size and not mx.all(mx.isfinite(x)).item():
        raise LinAlgError(f"mlx linalg.{op}: Array must not contain infs or NaNs")
    return x


@on_cpu
def eig(x: Array, /) -> EigResult:
    """Array API ``linalg.eig`` (complex64 results; float64 input refused)."""
    w, v = mx.linalg.eig(_eig_input(x, "eig"))
    return EigResult(w, v)


@on_cpu
def eigvals(x: Array, /) -> Array:
    """Array API ``linalg.eigvals`` (complex64; float64 input refused)."""
    return mx.linalg.eigvals(_eig_input(x, "eigvals"))


@on_cpu
def qr(x: Array, /, *, mode: str = "reduced") -> QRResult:
    """Array API ``linalg.qr`` (``mode`` "reduced" or "complete")."""
    if mode not in ("reduced", "complete"):
        raise ValueError("mlx linalg.qr: mode must be 'reduced' or 'complete'")
    x = _inexact(x, "qr")
    _matrices(x, "qr")
    if x.dtype == mx.complex64:
        return QRResult(*_on_host("qr", lambda a: tuple(np.linalg.qr(a, mode=mode)), x))  # type: ignore[call-overload]
    m, n = x.shape[-2:]
    if mode == "reduced" or m <= n:
        q, r = mx.linalg.qr(x)
        return QRResult(q, r)
    # MLX gives the reduced factors only.  The QR of [x | I] has an m-by-m Q,
    # and its first n columns of R are x's complete R: x = Q R[:, :n].
    eye = mx.broadcast_to(mx.eye(m, dtype=x.dtype), (*tuple(x.shape[:-2]), m, m))
    q, r = mx.linalg.qr(mx.concatenate([x, eye], axis=-1))
    return QRResult(q, r[..., :, :n])


@on_cpu
def svd(x: Array, /, *, full_matrices: bool = True) -> SVDResult:
    """Array API ``linalg.svd``."""
    x = _inexact(x, "svd")
    _matrices(x, "svd")
    u, s, vh = mx.linalg.svd(x)
    if not full_matrices:
        k = builtins.min(x.shape[-2:])
        u = u[..., :, :k]
        vh = vh[..., :k, :]
    return SVDResult(u, s, vh)


@on_cpu
def svdvals(x: Array, /) -> Array:
    """Array API ``linalg.svdvals`` (descending)."""
    x = _inexact(x, "svdvals")
    _matrices(x, "svdvals")
    return mx.linalg.svd(x, compute_uv=False)  # type: ignore[return-value]


# -- built from the above ---------------------------------------------------------------------


@on_cpu
def solve(x1: Array, x2: Array, /) -> Array:
    """Array API ``linalg.solve``; a 1-D ``x2`` is one vector, anything
    else a stack of matrices (batch dimensions broadcast)."""
    require_array(x1, "solve")
    require_array(x2, "solve")
    dt = common_dtype(x1, x2)
    if dt.kind in "biu":
        dt = FLOAT64
    if dt not in _REAL_OF:
        raise refuse("linalg.solve", dt, "linalg needs float32, float64 or complex64")
    a, b = cast(x1, dt, "solve"), cast(x2, dt, "solve")
    _square(a, "solve")
    vector = b.ndim == 1
    if vector:
        b = b[:, None]
    if b.shape[-2] != a.shape[-1]:
        raise ValueError(f"mlx linalg.solve: shapes {tuple(x1.shape)} and {tuple(x2.shape)} do not match")
    batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    a = mx.broadcast_to(a, batch + tuple(a.shape[-2:]))
    b = mx.broadcast_to(b, batch + tuple(b.shape[-2:]))
    if dt == COMPLEX64:
        out = _on_host("solve", np.linalg.solve, a, b)
    else:
        _refuse_singular(a, "solve")
        out = mx.linalg.solve(a, b)  # evaluated at the call by its guard (mlx_evaluation.FAILURES)
    return out[..., 0] if vector else out


@on_cpu
def pinv(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """Array API ``linalg.pinv``: singular values at most ``rtol`` times the
    largest are dropped (default ``max(M, N) * eps``)."""
    x = _inexact(x, "pinv")
    _matrices(x, "pinv", ValueError if x.ndim == 0 else LinAlgError)
    m, n = x.shape[-2:]
    if m == 0 or n == 0:
        return mx.zeros((*tuple(x.shape[:-2]), n, m), dtype=x.dtype)
    u, s, vh = svd(x, full_matrices=False)
    cutoff = _relative_cutoff(s, rtol, builtins.max(m, n), dtype_of(x))
    s_inv = mx.where(s > cutoff, 1.0 / s, mx.zeros_like(s))
    scaled = _conj_t(vh) * s_inv[..., None, :].astype(vh.dtype)
    return mx.matmul(scaled, _conj_t(u))


def _relative_cutoff(s: Array, rtol: Any, size: int, dt: np.dtype) -> Array:
    biggest = mx.max(s, axis=-1, keepdims=True)
    if rtol is None:
        return biggest * (size * _eps(dt))
    if isinstance(rtol, mx.array):
        return biggest * rtol.astype(s.dtype)[..., None]
    return biggest * float(rtol)


@on_cpu
def matrix_rank(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """Array API ``linalg.matrix_rank`` (int64)."""
    x = _inexact(x, "matrix_rank")
    _matrices(x, "matrix_rank")
    m, n = x.shape[-2:]
    if m == 0 or n == 0:
        return mx.zeros(tuple(x.shape[:-2]), dtype=mx.int64)
    s = svdvals(x)
    cutoff = _relative_cutoff(s, rtol, builtins.max(m, n), dtype_of(x))
    return mx.sum((s > cutoff).astype(mx.int64), axis=-1)


@on_cpu
def matrix_power(x: Array, n: int, /) -> Array:
    """Array API ``linalg.matrix_power`` by repeated squaring (integer
    matrices stay integer for ``n >= 0``)."""
    require_array(x, "matrix_power")
    _square(x, "matrix_power")
    n = operator.index(n)
    if n < 0:
        x = inv(x)
        n = -n
    if n == 0:
        eye = mx.eye(x.shape[-1], dtype=x.dtype)
        return mx.broadcast_to(eye, tuple(x.shape))
    result = None
    base = x
    while n:
        if n & 1:
            result = base if result is None else _matmul(result, base)
        n >>= 1
        if n:
            base = _matmul(base, base)
    assert result is not None
    return mx.array(result) if result is x else result


@on_cpu
def matrix_norm(x: Array, /, *, keepdims: bool = False, ord: int | float | str | None = "fro") -> Array:
    """Array API ``linalg.matrix_norm`` ('fro', 'nuc', 1, -1, 2, -2, inf, -inf)."""
    x = _inexact(x, "matrix_norm")
    _matrices(x, "matrix_norm", AxisError)
    a = mx.abs(x)
    if ord == "fro" or ord is None:
        out = mx.sqrt(mx.sum(a * a, axis=(-2, -1)))
    elif ord == "nuc":
        out = mx.sum(svdvals(x), axis=-1)
    elif ord in (2, -2):
        s = svdvals(x)
        out = mx.max(s, axis=-1) if ord == 2 else mx.min(s, axis=-1)
    elif ord in (1, -1):
        cols = mx.sum(a, axis=-2)
        out = mx.max(cols, axis=-1) if ord == 1 else mx.min(cols, axis=-1)
    elif ord in (math.inf, -math.inf):
        rows = mx.sum(a, axis=-1)
        out = mx.max(rows, axis=-1) if ord > 0 else mx.min(rows, axis=-1)
    else:
        raise ValueError(f"mlx linalg.matrix_norm: invalid ord {ord!r}")
    if keepdims:
        out = out[..., None, None]
    return out


@on_cpu
def vector_norm(
    x: Array,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    ord: int | float = 2,
) -> Array:
    """Array API ``linalg.vector_norm`` (any real ``ord``, inf and -inf)."""
    x = _inexact(x, "vector_norm")
    axes = normalize_axes(axis, x.ndim, "vector_norm")
    a = mx.abs(x)
    red = list(axes)
    if not red:
        out = a
    elif ord == 2:
        out = mx.sqrt(mx.sum(a * a, axis=red, keepdims=keepdims))
    elif ord == 1:
        out = mx.sum(a, axis=red, keepdims=keepdims)
    elif ord in (math.inf, -math.inf) and builtins.any(x.shape[ax] == 0 for ax in red):
        # NumPy (and array-api-strict): max(|x|) over nothing is 0, |x| being
        # at least 0; min has no identity.  MLX refuses both (AxisError here).
        if ord < 0:
            raise ValueError(
                "mlx linalg.vector_norm: zero-size array to reduction operation minimum which has no identity"
            )
        out = mx.zeros_like(mx.sum(a, axis=red, keepdims=keepdims))
    elif ord == math.inf:
        out = mx.max(a, axis=red, keepdims=keepdims)
    elif ord == -math.inf:
        out = mx.min(a, axis=red, keepdims=keepdims)
    elif ord == 0:
        out = mx.sum((a != 0).astype(a.dtype), axis=red, keepdims=keepdims)
    else:
        p = float(ord)
        out = mx.power(mx.sum(mx.power(a, p), axis=red, keepdims=keepdims), 1.0 / p)
    if not red:
        return out
    if axis is None and keepdims:
        out = out.reshape((1,) * x.ndim)
    return out


@on_cpu
def cross(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Array API ``linalg.cross`` of 3-vectors (exact for integers)."""
    require_array(x1, "cross")
    require_array(x2, "cross")
    dt = common_dtype(x1, x2)
    check_holdable("linalg.cross", dt)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("mlx linalg.cross: operands must have at least one dimension")
    shape = tuple(np.broadcast_shapes(x1.shape, x2.shape))
    ax = normalize_axis(axis, len(shape), "cross")
    a = mx.broadcast_to(cast(x1, dt, "cross"), shape)
    b = mx.broadcast_to(cast(x2, dt, "cross"), shape)
    if shape[ax] != 3:
        raise ValueError("mlx linalg.cross: the cross product axis must have size 3")
    # Basic indexing rather than mx.take: take refuses arrays with zero elements.
    lead = (slice(None),) * ax
    keys = [(*lead, i) for i in range(3)]
    a0, a1, a2 = (a[k] for k in keys)
    b0, b1, b2 = (b[k] for k in keys)
    return mx.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=ax)


@on_cpu
def diagonal(x: Array, /, *, offset: int = 0) -> Array:
    """Array API ``linalg.diagonal`` (of the last two axes)."""
    require_array(x, "diagonal")
    _matrices(x, "diagonal", ValueError)
    return mx.diagonal(x, offset=c_long(offset, "linalg.diagonal"), axis1=-2, axis2=-1)


@on_cpu
def outer(x1: Array, x2: Array, /) -> Array:
    """Array API ``linalg.outer`` of two vectors."""
    require_array(x1, "outer")
    require_array(x2, "outer")
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError("mlx linalg.outer: both operands must be 1-D")
    dt = common_dtype(x1, x2)
    check_holdable("linalg.outer", dt)
    return cast(x1, dt, "outer")[:, None] * cast(x2, dt, "outer")[None, :]


@on_cpu
def trace(x: Array, /, *, offset: int = 0, dtype: Any = None) -> Array:
    """Array API ``linalg.trace`` (the dtype rules of ``sum``)."""
    require_array(x, "trace")
    _matrices(x, "trace", ValueError)
    out = result_dtype("sum", x, dtype=dtype)
    check_holdable("linalg.trace", out)
    d = mx.diagonal(x, offset=c_long(offset, "linalg.diagonal"), axis1=-2, axis2=-1)
    if d.size == 0:
        # MLX (0.32) spins forever summing an empty diagonal of a stack of
        # matrices: the trace of an empty diagonal is 0, written directly.
        return mx.zeros(tuple(d.shape[:-1]), dtype=check_holdable("linalg.trace", out))
    return in_dtype(mx.sum(cast(d, out, "trace"), axis=-1), check_holdable("linalg.trace", out))


# MLX's factorisations crash the process (SIGFPE) on empty matrices, so an
# empty input to one of them is computed on the host, counted (it moves no
# bytes, but the move is still recorded).
_FACTORISATIONS = [
    "cholesky",
    "det",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
]


def _host_if_empty(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    host_fn = getattr(compat_np.linalg, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if any(isinstance(a, mx.array) and a.size == 0 for a in args):
            if name in ("eig", "eigvals"):
                _eig_input(args[0], name)  # the same refusal of float64 as for non-empty input
            reason = f"mlx fallback: linalg.{name} (empty input)"
            hosts = [to_host(a, reason) if isinstance(a, mx.array) else a for a in args]
            res = host_fn(*hosts, **kwargs)
            if isinstance(res, tuple):
                return type(res)(*(from_host(np.asarray(r), reason) for r in res))
            return from_host(np.asarray(res), reason)
        return fn(*args, **kwargs)

    wrapper.__name__ = name
    wrapper.__doc__ = fn.__doc__
    return wrapper


# Empty inputs reach every function as MLX-allocated arrays (see _core.empty_safe);
# every function applies its row of the failure table (see mlx_evaluation.guard):
# calls between them (pinv's svd) go through the guarded functions too.
for _name in __all__:
    globals()[_name] = empty_safe(globals()[_name])
    if _name in _FACTORISATIONS:
        globals()[_name] = _host_if_empty(_name, globals()[_name])
    globals()[_name] = guard(f"linalg.{_name}", globals()[_name])
del _name
