"""NumPy's linear algebra and FFTs: the namespace's ``linalg`` and ``fft``
functions, NumPy's forms (``np.linalg.norm``'s orders, ``lstsq``,
``multi_dot``, ``kron``, ``fft2``) composed from them.

Example
-------
>>> import unifiedarray as xp
>>> ROUTES["kron"].target(xp, xp.eye(2), xp.ones((2, 2))).shape
(4, 4)
"""

from __future__ import annotations

import inspect
import math
from typing import Any

import numpy as np

from ._common import UNSET, all_arrays, is_array, numpy_axis
from ._route import Route, compose, host, namesake, standard

__all__ = ["ROUTES"]


def _norm(xp: Any, x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """``np.linalg.norm``: a vector norm over one axis, a matrix norm over
    two (a 2-D array's ``ord`` without ``axis`` names a matrix norm), the
    Frobenius norm of all elements with neither."""
    if not is_array(x):
        return None
    if x.dtype.kind not in "fc":
        x = xp.astype(x, xp.float64)  # NumPy: anything but floats is taken as float64
    nd = x.ndim
    if axis is None:
        if ord is None or (nd == 2 and isinstance(ord, str) and ord in ("f", "fro")) or (nd == 1 and ord == 2):
            out = xp.linalg.vector_norm(x)  # every element
            return xp.reshape(out, (1,) * nd) if keepdims else out
        axes: tuple[int, ...] = tuple(range(nd))
    elif isinstance(axis, tuple):
        axes = axis
    else:
        try:
            axes = (int(axis),)
        except TypeError:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from None
    if len(axes) == 1:
        if isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        return xp.linalg.vector_norm(x, axis=numpy_axis(axes[0], nd), keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    row, col = numpy_axis(axes[0], nd), numpy_axis(axes[1], nd)
    if row == col:
        raise ValueError("Duplicate axes given.")
    if ord is None or (isinstance(ord, str) and ord == "f"):
        ord = "fro"
    if not (ord in ("fro", "nuc") if isinstance(ord, str) else ord in (1, -1, 2, -2, np.inf, -np.inf)):
        raise ValueError("Invalid norm order for matrices.")
    rest = [i for i in range(nd) if i not in (row, col)]
    out = xp.linalg.matrix_norm(xp.permute_dims(x, (*rest, row, col)), ord=ord)
    if keepdims:
        out = xp.reshape(out, tuple(1 if i in (row, col) else n for i, n in enumerate(x.shape)))
    return out


def _qr(xp: Any, a: Any, mode: str = "reduced") -> Any:
    if not is_array(a) or mode not in ("reduced", "complete", "r"):
        return None  # "raw" (LAPACK's own layout), or NumPy's error for another mode
    return xp.linalg.qr(a).R if mode == "r" else xp.linalg.qr(a, mode=mode)


def _svd(xp: Any, a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False) -> Any:
    if not is_array(a) or hermitian:
        return None
    if not compute_uv:
        return xp.linalg.svdvals(a)
    return xp.linalg.svd(a, full_matrices=full_matrices)


def _half_via_single(fn: Any) -> Any:
    """NumPy's norms of float16 compute in float32 and give float16; some
    devices' linear algebra takes no float16."""

    def recipe(xp: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        if is_array(x) and x.dtype == np.float16:
            out = fn(xp, xp.astype(x, xp.float32), *args, **kwargs)
            return None if out is None else xp.astype(out, np.dtype(np.float16))
        return fn(xp, x, *args, **kwargs)

    return recipe


def _vector_norm(xp: Any, x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:
    return xp.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord) if is_array(x) else None


def _matrix_norm(xp: Any, x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:
    return xp.linalg.matrix_norm(x, keepdims=keepdims, ord=ord) if is_array(x) else None


def _matrix_rank(xp: Any, A: Any, tol: Any = None, hermitian: bool = False, *, rtol: Any = None) -> Any:
    if not is_array(A) or tol is not None or hermitian:
        return None
    if A.ndim < 2:
        return int(bool(xp.any(A != 0)))  # NumPy: a vector's rank is 0 or 1, a Python int
    return xp.linalg.matrix_rank(A, rtol=rtol) if rtol is not None else xp.linalg.matrix_rank(A)


def _pinv(xp: Any, a: Any, rcond: Any = None, hermitian: bool = False, *, rtol: Any = UNSET) -> Any:
    if not is_array(a) or hermitian or (rcond is not None and rtol is not UNSET):
        return None
    if not xp.isdtype(a.dtype, ("real floating", "complex floating")):
        a = xp.astype(a, xp.float64)  # NumPy takes integers and bools as float64
    cut = rcond if rcond is not None else None if rtol is UNSET else rtol
    return xp.linalg.pinv(a) if cut is None else xp.linalg.pinv(a, rtol=cut)


def _cond(xp: Any, x: Any, p: Any = None) -> Any:
    if not is_array(x):
        return None
    if p is None or p in (2, -2):
        s = xp.linalg.svdvals(x)
        hi, lo = xp.max(s, axis=-1), xp.min(s, axis=-1)
        return lo / hi if p == -2 else hi / lo
    return _norm(xp, x, p, axis=(-2, -1)) * _norm(xp, xp.linalg.inv(x), p, axis=(-2, -1))


def _lstsq(xp: Any, a: Any, b: Any, rcond: Any = None) -> Any:
    if not all_arrays(a, b) or a.ndim != 2 or b.ndim not in (1, 2):
        return None
    m, n = a.shape
    dt = np.result_type(a.dtype, b.dtype, np.float64) if a.dtype.kind not in "fc" else np.result_type(a.dtype, b.dtype)
    a, b = xp.astype(a, dt), xp.astype(b, dt)
    tol = (np.finfo(dt).eps * max(m, n)) if rcond is None else rcond
    s = xp.linalg.svdvals(a)
    x = xp.matmul(xp.linalg.pinv(a, rtol=tol), b)
    rank = int(xp.sum(xp.astype(s > tol * xp.max(s), xp.int64))) if s.shape[0] else 0
    if rank == n and m > n:
        r = b - xp.matmul(a, x)
        resid = xp.sum(xp.abs(r) ** 2, axis=0)
        resid = xp.reshape(resid, (1,)) if b.ndim == 1 else resid
    else:
        resid = xp.zeros((0,), dtype=s.dtype, device=a.device)
    return x, resid, np.int32(rank), s


def _multi_dot(xp: Any, arrays: Any, *, out: Any = None) -> Any:
    if out is not None or not isinstance(arrays, list | tuple) or len(arrays) < 2 or not all_arrays(*arrays):
        return None
    if any(a.ndim == 0 for a in arrays):
        return None  # NumPy's forms of 0-d operands: the host
    first, last = arrays[0], arrays[-1]
    items = list(arrays)
    if first.ndim == 1:
        items[0] = xp.reshape(first, (1, -1))
    if last.ndim == 1:
        items[-1] = xp.reshape(last, (-1, 1))
    out = items[0]
    for m in items[1:]:
        out = xp.matmul(out, m)
    if first.ndim == 1 and last.ndim == 1:
        return out[0, 0]
    if first.ndim == 1:
        return out[0]
    if last.ndim == 1:
        return out[:, 0]
    return out


def _tensorinv(xp: Any, a: Any, ind: int = 2) -> Any:
    if not is_array(a) or ind <= 0 or a.ndim < ind:
        return None
    head, tail = a.shape[:ind], a.shape[ind:]
    inv = xp.linalg.inv(xp.reshape(a, (math.prod(head), -1)))
    return xp.reshape(inv, (*tail, *head))


def _tensorsolve(xp: Any, a: Any, b: Any, axes: Any = None) -> Any:
    if not all_arrays(a, b) or axes is not None:
        return None
    rest = a.shape[b.ndim :]
    x = xp.linalg.solve(xp.reshape(a, (b.size, -1)), xp.reshape(b, (-1, 1)))
    return xp.reshape(x, rest)


def _dot(xp: Any, a: Any, b: Any, out: Any = None) -> Any:
    if out is not None or not all_arrays(a, b):
        return None
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    # NumPy's dot sums over a's last axis and b's second-to-last (its only
    # axis for a vector): a tensordot.
    return xp.tensordot(a, b, axes=([a.ndim - 1], [max(b.ndim - 2, 0)]))


def _vdot(xp: Any, a: Any, b: Any) -> Any:
    if not all_arrays(a, b):
        return None
    prod = xp.conj(xp.reshape(a, (-1,))) * xp.reshape(b, (-1,))
    dt = np.result_type(a.dtype, b.dtype)
    if dt == np.bool_:
        return xp.any(prod)  # NumPy's dot of bools: an or of ands
    return xp.sum(prod, dtype=dt)  # NumPy's dot keeps the operands' dtype


def _inner(xp: Any, a: Any, b: Any) -> Any:
    if not all_arrays(a, b):
        return None
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return xp.tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1]))


def _outer(xp: Any, a: Any, b: Any, out: Any = None) -> Any:
    if out is not None or not all_arrays(a, b):
        return None
    return xp.reshape(a, (-1, 1)) * xp.reshape(b, (1, -1))


def _kron(xp: Any, a: Any, b: Any) -> Any:
    if not all_arrays(a, b):
        return None
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + tuple(a.shape)
    sb = (1,) * (nd - b.ndim) + tuple(b.shape)
    a2 = xp.reshape(a, tuple(x for d in sa for x in (d, 1)))
    b2 = xp.reshape(b, tuple(x for d in sb for x in (1, d)))
    return xp.reshape(a2 * b2, tuple(i * j for i, j in zip(sa, sb, strict=True)))


def _tensordot(xp: Any, a: Any, b: Any, axes: Any = 2) -> Any:
    if not all_arrays(a, b):
        return None
    if isinstance(axes, list | tuple) and len(axes) == 2:
        axes = tuple([int(x)] if isinstance(x, int | np.integer) else [int(i) for i in x] for x in axes)
    return xp.tensordot(a, b, axes=axes)


def _cross(xp: Any, a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: Any = None) -> Any:
    if not all_arrays(a, b):
        return None
    if axis is not None:
        axisa = axisb = axisc = axis
    if a.shape[axisa] != 3 or b.shape[axisb] != 3:
        return None  # NumPy's 2-vector forms: the host
    out = xp.linalg.cross(xp.moveaxis(a, axisa, -1), xp.moveaxis(b, axisb, -1), axis=-1)
    return xp.moveaxis(out, -1, axisc)


def _fft2(name: str) -> Any:
    def recipe(xp: Any, a: Any, s: Any = None, axes: Any = (-2, -1), norm: Any = None, out: Any = None) -> Any:
        if out is not None or not is_array(a) or a.ndim == 0:
            return None
        if a.dtype == np.float16:
            a = xp.astype(a, xp.float32)
        kw: dict[str, Any] = {"axes": tuple(axes) if axes is not None else None}
        if s is not None:
            kw["s"] = tuple(s)
        if norm is not None:
            kw["norm"] = norm
        return getattr(xp.fft, name)(a, **kw)

    return recipe


def _fft(name: str) -> Any:
    """NumPy's transforms: float16 computes in float32 (NumPy's pocketfft
    has no half precision); 0-d input is NumPy's error, from the host."""

    def recipe(xp: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
        if not is_array(a) or a.ndim == 0:
            return None
        if a.dtype != np.float16:
            return _standard_fft(xp, name, a, *args, **kwargs)
        # NumPy's dtype of a float16 transform (float16 or float32: it differs
        # by transform), read from a transform of zeros of one element per axis.
        want = getattr(np.fft, name)(np.zeros((2,) * a.ndim, dtype=np.float16)).dtype
        out = _standard_fft(xp, name, xp.astype(a, xp.float32), *args, **kwargs)
        return out if out is None or out.dtype == want else xp.astype(out, want)

    return recipe


def _standard_fft(xp: Any, name: str, a: Any, *args: Any, **kwargs: Any) -> Any:
    fn = getattr(xp.fft, name)
    given = {k: v for k, v in kwargs.items() if v is not None}
    try:
        inspect.signature(fn).bind(a, *args, **given)
    except TypeError:
        return None  # a NumPy form the namespace's transform does not take: the host
    return fn(a, *args, **given)


def _shift(name: str) -> Any:
    def recipe(xp: Any, x: Any, axes: Any = None) -> Any:
        if not is_array(x) or x.ndim == 0:
            return None  # 0-d: NumPy's error, from the host
        return getattr(xp.fft, name)(x, axes=axes)

    return recipe


_SAME = ["solve", "inv", "det", "cholesky", "eigh", "eigvalsh", "slogdet", "matrix_power", "svdvals", "trace"]
_SAME += ["diagonal", "outer", "vecdot", "matmul"]

ROUTES: dict[str, Route] = {
    **{f"linalg.{n}": standard(f"linalg.{n}") for n in _SAME},
    "linalg.norm": compose(_half_via_single(_norm)),
    "linalg.vector_norm": compose(_half_via_single(_vector_norm)),
    "linalg.matrix_norm": compose(_half_via_single(_matrix_norm)),
    "linalg.matrix_rank": compose(_matrix_rank),
    "linalg.pinv": compose(_pinv),
    "linalg.qr": compose(_qr),
    "linalg.svd": compose(_svd),
    "linalg.cond": compose(_cond),
    "linalg.lstsq": compose(_lstsq),
    "linalg.multi_dot": compose(_multi_dot),
    "linalg.tensorinv": compose(_tensorinv),
    "linalg.tensorsolve": compose(_tensorsolve),
    "linalg.tensordot": compose(_tensordot),
    "linalg.cross": compose(_cross),
    "linalg.eig": standard("linalg.eig"),
    "linalg.eigvals": standard("linalg.eigvals"),
    "dot": compose(_dot),
    "vdot": compose(_vdot),
    "inner": compose(_inner),
    "outer": compose(_outer),
    "kron": compose(_kron),
    "tensordot": compose(_tensordot),
    "cross": compose(_cross),
    "einsum": namesake(),
    **{
        f"fft.{n}": compose(_fft(n))
        for n in ["fft", "ifft", "rfft", "irfft", "fftn", "ifftn", "rfftn", "irfftn", "hfft", "ihfft"]
    },
    "fft.fft2": compose(_fft2("fftn")),
    "fft.ifft2": compose(_fft2("ifftn")),
    "fft.rfft2": compose(_fft2("rfftn")),
    "fft.irfft2": compose(_fft2("irfftn")),
    "fft.fftshift": compose(_shift("fftshift")),
    "fft.ifftshift": compose(_shift("ifftshift")),
    "roots": host("complex results: the companion matrix's eigenvalues"),
}
