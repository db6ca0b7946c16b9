"""The Array API namespaces that compute on each backend's native arrays.

Each backend supplies its namespace (:meth:`Backend.namespace
<unifiedarray.backends.Backend.namespace>`): the host's is
``array_api_compat.numpy``, CUDA's ``array_api_compat.cupy`` (indexing
checked), MLX's :mod:`unifiedarray.backends.mlx_namespace` (written here:
none exists), a plug-in's its own.  :func:`namespace_for` gives it with the
few corrections below, the same for every namespace.

We do not re-implement what array-api-compat already does.  What it gets
wrong for the standard lives in :func:`_corrections`, once, written against
``xp`` and bound per backend, the way array-api-compat's own
``common/_aliases.py`` works.

Besides the standard's functions, each namespace here offers ``getitem`` and
``setitem`` so that the array layer can index every backend the same way,
and ``view_getitem`` and ``view_permute``: a view chain's basic index or
permutation, already checked when the view was taken, applied without
checking it again.
"""

from __future__ import annotations

import operator
import threading
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from ._devices import CPU, Device, DeviceLike
from .backends import backend_for, on_change

__all__ = ["host_namespace", "namespace_for"]


def _derive(name: str, base: Any) -> types.ModuleType:
    """A module that is ``base`` plus our corrections."""
    mod = types.ModuleType(name, f"{base.__name__} with unifiedarray's corrections")
    for attr in dir(base):
        if not attr.startswith("__") or attr in ("__array_api_version__", "__array_namespace_info__"):
            setattr(mod, attr, getattr(base, attr))
    if not hasattr(base, "getitem"):  # NumPy and CuPy index with Python's operators
        mod.getitem = operator.getitem  # type: ignore[attr-defined]
        mod.setitem = operator.setitem  # type: ignore[attr-defined]
    if not hasattr(base, "view_getitem"):
        mod.view_getitem = mod.getitem  # type: ignore[attr-defined]
    if not hasattr(base, "view_permute"):
        mod.view_permute = base.permute_dims  # type: ignore[attr-defined]
    if not hasattr(base, "sliding_window_view"):  # NumPy's and CuPy's live in lib.stride_tricks
        window_view = getattr(getattr(getattr(base, "lib", None), "stride_tricks", None), "sliding_window_view", None)
        if window_view is not None:
            mod.sliding_window_view = window_view  # type: ignore[attr-defined]
    for fname, fn in _corrections(base).items():
        setattr(mod, fname, fn)
    return mod


def _corrections(xp: Any) -> dict[str, Callable[..., Any]]:
    """Fixes to array-api-compat's namespaces where they do not conform.

    Written once against ``xp`` (NumPy or CuPy) and bound per backend.
    """
    floor_divide, expm1, sign, tanh = xp.floor_divide, xp.expm1, xp.sign, xp.tanh
    kinds: dict[Any, tuple[bool, bool]] = {}  # dtype -> (real floating, complex floating)

    def kind_of(dtype: Any) -> tuple[bool, bool]:
        # xp.isdtype, asked once per dtype: on MLX it costs more than the call it guards.
        kind = kinds.get(dtype)
        if kind is None:
            kind = kinds[dtype] = (xp.isdtype(dtype, "real floating"), xp.isdtype(dtype, "complex floating"))
        return kind

    def as_array(value: Any, like: Any) -> Any:
        return value if hasattr(value, "dtype") else xp.asarray(value, dtype=like.dtype)

    def fixed_floor_divide(x1: Any, x2: Any, /) -> Any:
        # NumPy computes floor division through fmod, which gives NaN for
        # inf // finite and -1 for a finite over an infinity of the other
        # sign; the standard wants +-inf and -0 there.
        out = floor_divide(x1, x2)
        a = as_array(x1, out)  # a Python scalar in the result's dtype (a float with an int array: float64)
        b = as_array(x2, out)
        if not kind_of(out.dtype)[0]:
            return out
        # No branch on the data: on a lazy device (MLX) or a GPU asking
        # whether any element is special waits for the data (a sync per call).
        inf_over_finite = xp.isinf(a) & xp.isfinite(b) & (b != 0)
        finite_over_inf = xp.isfinite(a) & (a != 0) & xp.isinf(b) & (xp.signbit(a) != xp.signbit(b))
        # inf / finite is the standard's answer there; elsewhere the divisor
        # is 1, so dividing raises no floating-point warning NumPy would not.
        ratio = a / xp.where(inf_over_finite, b, xp.asarray(1, dtype=out.dtype))
        out = xp.where(inf_over_finite, ratio, out)
        return xp.where(finite_over_inf, xp.asarray(-0.0, dtype=out.dtype), out)

    def complex_only(base: Callable[[Any], Any]) -> Callable[..., Callable[[Any], Any]]:
        """A correction of ``base`` for complex input: it gets ``x``,
        ``base(x)`` and x's real and imaginary parts; other input gets
        ``base(x)`` untouched."""

        def decorate(fix: Callable[..., Any]) -> Callable[[Any], Any]:
            def fixed(x: Any, /) -> Any:
                out = base(x)
                if not kind_of(x.dtype)[1]:
                    return out
                return fix(x, out, xp.real(x), xp.imag(x))

            return fixed

        return decorate

    @complex_only(expm1)
    def fixed_expm1(x: Any, out: Any, re: Any, im: Any) -> Any:
        # NumPy's complex expm1 misses the standard's special cases at
        # infinities and NaN; exp(x) - 1 gets them right there.
        zero = (re == 0) & (im == 0) & ~xp.signbit(im)  # expm1(+-0 + 0j) is +0 + 0j
        if xp.any(zero):
            out = xp.where(zero, xp.asarray(0j, dtype=x.dtype), out)
        special = ~(xp.isfinite(re) & xp.isfinite(im))
        if xp.any(special):
            alt = xp.exp(x) - 1
            neg_inf = xp.isinf(re) & (re < 0)
            alt = xp.where(neg_inf, xp.asarray(-1 + 0j, dtype=x.dtype), alt)
            zero_im = (im == 0) & ~xp.isinf(re)
            alt = xp.where(zero_im, re + 0j * im, alt)
            pos_inf_zero = xp.isinf(re) & (re > 0) & (im == 0)
            alt = xp.where(pos_inf_zero, x, alt)
            out = xp.where(special, alt, out)
        return out

    @complex_only(sign)
    def fixed_sign(x: Any, out: Any, re: Any, im: Any) -> Any:
        # x / |x| goes wrong where |x| leaves the normal range: for subnormal
        # |x| NumPy overflows to NaN (sign(1e-45j) is nan+infj) and MLX
        # flushes (-1+1j for -1e-45+1e-45j); near the largest finite value
        # |x| overflows and both give 0.  There, divide both parts by the
        # larger one first (exact), then normalise: the same value, in range.
        info = xp.finfo(re.dtype)
        big = xp.maximum(xp.abs(re), xp.abs(im))
        outside = (big > 0) & ((big < info.smallest_normal) | ((big > info.max / 2) & (big <= info.max)))
        if xp.any(outside):
            scale = xp.where(outside, big, xp.ones_like(big))
            u, v = re / scale, im / scale
            r = xp.sqrt(u * u + v * v)
            unit = xp.astype(u / r, x.dtype) + xp.astype(v / r, x.dtype) * xp.asarray(1j, dtype=x.dtype)
            out = xp.where(outside, unit, out)
        return out

    @complex_only(tanh)
    def fixed_tanh(x: Any, out: Any, re: Any, im: Any) -> Any:
        # tanh(+inf + iy) is 1 + 0j for finite y > 0 (the standard; C99 has
        # 1 + i0*sin(2y), so NumPy answers 1 - 0j where sin(2y) < 0).  By
        # symmetry the imaginary zero takes the sign of y, and -inf gives -1.
        inf_re = xp.isinf(re) & xp.isfinite(im)
        if xp.any(inf_re):
            unit = xp.where(
                re > 0, xp.asarray(complex(1.0, 0.0), dtype=x.dtype), xp.asarray(complex(-1.0, 0.0), dtype=x.dtype)
            )
            unit = xp.where(xp.signbit(im), xp.conj(unit), unit)
            out = xp.where(inf_re, unit, out)
        return out

    return {"floor_divide": fixed_floor_divide, "expm1": fixed_expm1, "sign": fixed_sign, "tanh": fixed_tanh}


#: The reductions that are one NumPy ufunc's ``reduce``: name -> (ufunc,
#: whether it takes ``dtype=``).  Used here and by the namespace's fast path.
HOST_REDUCTIONS: dict[str, tuple[Any, bool]] = {
    "sum": (np.add, True),
    "prod": (np.multiply, True),
    "max": (np.maximum, False),
    "min": (np.minimum, False),
}


def _direct_reductions(base: Any) -> dict[str, Callable[..., Any]]:
    """NumPy's ``sum``/``prod``/``max``/``min`` without their Python wrapper.

    Not a correction but a speed-up: ``np.sum`` spends most of its time on a
    small array in ``_wrapreduction``, which handles
    ``out=``, ``where=``, ``initial=`` and foreign array types that never reach
    here (the inputs are ndarrays, the signature is the standard's).  The
    ufunc's ``reduce`` is what ``np.sum`` ends in, with the same dtype rules
    (small integers accumulate in the default integer) and the same errors.
    """

    def direct(name: str, ufunc: Any, wrapped: Callable[..., Any]) -> Callable[..., Any]:
        reduce = ufunc.reduce

        def reduction(x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
            if dtype is None:
                return reduce(x, axis=axis, keepdims=keepdims)
            return wrapped(x, axis=axis, dtype=dtype, keepdims=keepdims)

        reduction.__name__ = reduction.__qualname__ = name
        return reduction

    def direct_extremum(name: str, ufunc: Any) -> Callable[..., Any]:
        reduce = ufunc.reduce

        def extremum(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> Any:
            return reduce(x, axis=axis, keepdims=keepdims)

        extremum.__name__ = extremum.__qualname__ = name
        return extremum

    return {
        name: direct(name, ufunc, getattr(base, name)) if takes_dtype else direct_extremum(name, ufunc)
        for name, (ufunc, takes_dtype) in HOST_REDUCTIONS.items()
    }


_host_base = backend_for(CPU).namespace(CPU)
host_namespace = _derive("unifiedarray.compute.host", _host_base)
for _name, _fn in _direct_reductions(_host_base).items():
    setattr(host_namespace, _name, _fn)
# array-api-compat's matmul only forwards to NumPy's ufunc; the ufunc itself
# spares ``A.T @ b`` two Python frames between BLAS calls, where they cost most.
host_namespace.matmul = np.matmul  # type: ignore[attr-defined]


def _scalar_bound_clip(base_clip: Callable[..., Any]) -> Callable[..., Any]:
    """``clip`` for the host: NumPy's own where both bounds are scalars or
    absent, array-api-compat's otherwise.

    Not a correction but a speed-up: array-api-compat's ``clip`` broadcasts
    each bound to x's shape and writes through masks (about 8 µs on 8
    elements), because NumPy's promotes x to an array bound's dtype.  A
    scalar bound is what the dispatch hands the host once the rules have
    judged it (of x's dtype, or a Python scalar NumPy takes weakly, and in
    range), and there NumPy's ``clip`` gives the same answer in one pass:
    x's dtype, NaN from x or a bound, ``max`` winning over ``min``."""
    scalar_types = (bool, int, float, np.generic)

    def clip(x: Any, /, min: Any = None, max: Any = None) -> Any:
        lo_scalar = min is None or isinstance(min, scalar_types)
        hi_scalar = max is None or isinstance(max, scalar_types)
        if lo_scalar and hi_scalar and not (min is None and max is None) and isinstance(x, np.ndarray):
            return np.clip(x, min, max)
        return base_clip(x, min, max)

    clip.__name__ = clip.__qualname__ = "clip"
    return clip


host_namespace.clip = _scalar_bound_clip(_host_base.clip)  # type: ignore[attr-defined]


#: id(a backend's namespace) -> (that namespace, it with the corrections):
#: each namespace is derived once, however many devices share it, and
#: forgotten where a backend is registered or unregistered (the namespaces
#: of the backends registered now are derived anew; none of a removed
#: backend's is kept alive).
_DERIVED: dict[int, tuple[Any, types.ModuleType]] = {}
_DERIVE_LOCK = threading.Lock()


def _forget_derived() -> None:
    """Forget every derived namespace: the registry changed."""
    with _DERIVE_LOCK:
        _DERIVED.clear()


on_change(_forget_derived)


def namespace_for(device: DeviceLike) -> Any:
    """The compute namespace of ``device``: the namespace its backend
    supplies (:meth:`~unifiedarray.backends.Backend.namespace`) with the
    corrections above, made on first use (importing CuPy or MLX is slow and
    must not happen on machines that never touch them).

    >>> from unifiedarray.compute import namespace_for, host_namespace
    >>> namespace_for("cpu") is host_namespace
    True
    """
    dev = Device.parse(device)
    if dev is CPU:
        return host_namespace
    base = backend_for(dev).namespace(dev)
    kept = _DERIVED.get(id(base))
    if kept is None or kept[0] is not base:
        with _DERIVE_LOCK:
            kept = _DERIVED.get(id(base))
            if kept is None or kept[0] is not base:
                kept = _DERIVED[id(base)] = (base, _derive(f"unifiedarray.compute.{dev.kind}", base))
    return kept[1]
