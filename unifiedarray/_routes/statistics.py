"""NumPy's reductions and statistics: the standard's where it has them,
else compositions (NaN-skipping reductions, percentiles, averages,
covariances, histograms) written once against the namespace.

A composition that must know a value to shape its answer (a histogram's
autodetected range is finite, ``bincount``'s length) reads that one scalar,
a counted move of a few bytes ("a scalar read"), never the data.

Example
-------
>>> import unifiedarray as xp
>>> float(ROUTES["ptp"].target(xp, xp.asarray([1.0, 4.0, 2.0])))
3.0
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._common import UNSET, all_arrays, is_array, numpy_axis
from ._route import Route, compose, host, standard

__all__ = ["ROUTES", "convolve", "read_scalar"]


def read_scalar(x: Any) -> Any:
    """One scalar of a device result, read (a counted move of its bytes)."""
    return x.item() if hasattr(x, "item") else x


def _float_of(xp: Any, a: Any) -> Any:
    """NumPy's statistics of integers and bools compute in float64."""
    return a if xp.isdtype(a.dtype, ("real floating", "complex floating")) else xp.astype(a, np.dtype(np.float64))


def _flat_by_default(reduce: str) -> Any:
    """NumPy's cumsum, cumprod, take, sort and argsort: ``axis=None`` takes
    the flattened array (the standard's function wants an axis)."""

    def recipe(xp: Any, a: Any, *args: Any, axis: Any = None, **kwargs: Any) -> Any:
        if not is_array(a):
            return None
        if axis is None:
            a, axis = xp.reshape(a, (-1,)), 0
        return getattr(xp, reduce)(a, *args, axis=axis, **kwargs)

    return recipe


def _cumulative(reduce: str, fill: float | None = None) -> Any:
    flat = _flat_by_default(reduce)

    def recipe(xp: Any, a: Any, axis: Any = None, dtype: Any = None) -> Any:
        if not is_array(a):
            return None
        if fill is not None and xp.isdtype(a.dtype, ("real floating", "complex floating")):
            a = xp.where(xp.isnan(a), fill, a)
        return flat(xp, a, axis=axis, **({} if dtype is None else {"dtype": np.dtype(dtype)}))

    return recipe


def _nan_reduction(reduce: str, fill: float) -> Any:
    def recipe(xp: Any, a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **rest: Any) -> Any:
        if rest or not is_array(a):
            return None
        filled = xp.where(xp.isnan(a), fill, a) if a.dtype.kind in "fc" else a
        kwargs: dict[str, Any] = {"axis": axis, "keepdims": keepdims}
        if dtype is not None:
            kwargs["dtype"] = np.dtype(dtype)
        return getattr(xp, reduce)(filled, **kwargs)

    return recipe


def _nan_extremum(reduce: str, fill: float) -> Any:
    def recipe(xp: Any, a: Any, axis: Any = None, keepdims: bool = False, **rest: Any) -> Any:
        if rest or not is_array(a):
            return None
        if a.dtype.kind not in "f":
            return getattr(xp, reduce)(a, axis=axis, keepdims=keepdims)
        nan = xp.isnan(a)
        out = getattr(xp, reduce)(xp.where(nan, fill, a), axis=axis, keepdims=keepdims)
        return xp.where(xp.all(nan, axis=axis, keepdims=keepdims), xp.nan, out)  # NumPy: nan for all-NaN

    return recipe


def _nan_arg(reduce: str, fill: float) -> Any:
    def recipe(xp: Any, a: Any, axis: Any = None, keepdims: bool = False, **rest: Any) -> Any:
        if rest or not is_array(a):
            return None
        if a.dtype.kind != "f":
            return getattr(xp, reduce)(a, axis=axis, keepdims=keepdims)
        nan = xp.isnan(a)
        if read_scalar(xp.any(xp.all(nan, axis=axis))):
            raise ValueError("All-NaN slice encountered")
        return getattr(xp, reduce)(xp.where(nan, fill, a), axis=axis, keepdims=keepdims)

    return recipe


def _inexact_dtype(a: Any, dtype: Any) -> None:
    """NumPy's nanmean, nanvar and nanstd: an inexact array keeps an inexact dtype."""
    if dtype is not None and a.dtype.kind in "fc" and np.dtype(dtype).kind not in "fc":
        raise TypeError("If a is inexact, then dtype must be inexact")


def _nanmean(xp: Any, a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **rest: Any) -> Any:
    if is_array(a):
        _inexact_dtype(a, dtype)
    if rest or dtype is not None or not is_array(a) or a.dtype.kind not in "fc":
        return None
    nan = xp.isnan(a)
    total = xp.sum(xp.where(nan, 0.0, a), axis=axis, keepdims=keepdims)
    count = xp.sum(xp.astype(~nan, a.dtype if a.dtype.kind == "f" else xp.float32), axis=axis, keepdims=keepdims)
    return total / count


def _nanvar(
    xp: Any, a: Any, axis: Any = None, dtype: Any = None, ddof: float = 0, keepdims: bool = False, **rest: Any
) -> Any:
    if is_array(a):
        _inexact_dtype(a, dtype)
    if rest or dtype is not None or not is_array(a) or a.dtype.kind != "f":
        return None
    nan = xp.isnan(a)
    count = xp.sum(xp.astype(~nan, a.dtype), axis=axis, keepdims=True)
    mean = xp.sum(xp.where(nan, 0.0, a), axis=axis, keepdims=True) / count
    dev = xp.where(nan, 0.0, a - mean)
    dof = count - ddof
    var = xp.where(dof > 0, xp.sum(dev * dev, axis=axis, keepdims=True) / dof, xp.nan)  # NumPy: nan, not a sign flip
    if not keepdims:
        var = xp.squeeze(var, axis=tuple(range(a.ndim)) if axis is None else axis)
    return var


def _nanstd(xp: Any, a: Any, **kwargs: Any) -> Any:
    var = _nanvar(xp, a, **kwargs)
    return None if var is None else xp.sqrt(var)


def _quantiles(
    xp: Any, a: Any, q: Any, axis: Any, keepdims: bool, skip_nan: bool, median: bool = False, weak: bool = True
) -> Any:
    """NumPy's quantile (method ``linear``) of each slice over ``axis``:
    sorted (NaNs last), interpolated between the two ranks around
    ``q * (n - 1)`` as NumPy's ``_lerp`` does; a slice with a NaN gives NaN
    unless ``skip_nan``, whose ranks count only the values that are not.
    With ``median`` (q = 0.5), NumPy's median: the mean of the two middle
    values, ``(lo + hi) / 2``, which the lerp can miss by a rounding."""
    exact = np.asarray(q).dtype.kind in "iu"  # an integer q (0 or 1): NumPy takes the element, dtype kept
    qs = np.asarray(q, dtype=np.float64)
    if qs.ndim > 1 or np.any((qs < 0) | (qs > 1)) or np.any(np.isnan(qs)):
        return None  # NumPy's error, or q's of more dimensions: the host
    axes = (
        tuple(range(a.ndim))
        if axis is None
        else tuple(numpy_axis(ax, a.ndim) for ax in ((axis,) if isinstance(axis, int | np.integer) else axis))
    )
    rest = [i for i in range(a.ndim) if i not in axes]
    # NumPy's lerp of integers subtracts in their dtype (exact, and wrapping
    # as NumPy's does), converting to float after; its median converts first.
    integer_lerp = not exact and not median and xp.isdtype(a.dtype, "integral")
    x = a if exact or integer_lerp else _float_of(xp, a)
    moved = xp.permute_dims(x, (*rest, *axes)) if x.ndim else x
    span = int(np.prod([a.shape[i] for i in axes]))
    if span == 0 or a.size == 0:
        return None  # an empty slice: NumPy's NaN and warning, on the host
    flat = xp.reshape(moved, (*[a.shape[i] for i in rest], span))
    s = xp.sort(flat, axis=-1)  # NaNs sort last
    nan = xp.isnan(flat) if xp.isdtype(flat.dtype, "real floating") else None
    if skip_nan and nan is not None:
        n = xp.sum(xp.astype(~nan, xp.int64), axis=-1, keepdims=True)
    else:
        n = xp.full((*s.shape[:-1], 1), s.shape[-1], dtype=xp.int64, device=a.device)
    # NumPy's gamma is a Python float (``weak``: the caller's q was a Python
    # scalar, and the lerp runs in the data's dtype), else float64 (the lerp,
    # and the result, are float64 for float32 data too).
    weak = weak and qs.ndim == 0
    varying = skip_nan and nan is not None  # each slice its own count
    outs = []
    for qv in qs.reshape(-1):
        qf = float(qv)
        if varying:
            virtual = xp.astype(n - 1, xp.float64) * qf  # NumPy's virtual index, (n - 1) * q
            lo = xp.floor(virtual)
            t: Any = virtual - lo
            lo_i = xp.astype(xp.clip(lo, 0, None), xp.int64)
            hi_i = xp.minimum(lo_i + 1, xp.clip(n - 1, 0, None))
            vlo = xp.take_along_axis(s, lo_i, axis=-1)
            vhi = xp.take_along_axis(s, hi_i, axis=-1)
        else:
            virtual_f = (span - 1) * qf  # NumPy's virtual index, the same for every slice
            lo_f = math.floor(virtual_f)
            t = virtual_f - lo_f
            lo_k = min(max(lo_f, 0), span - 1)
            hi_k = min(lo_k + 1, span - 1)
            vlo, vhi = s[..., lo_k : lo_k + 1], s[..., hi_k : hi_k + 1]
            if not weak and not exact and not integer_lerp:
                t = xp.asarray(t, dtype=xp.float64, device=a.device)
        scalar_t = type(t) is float  # the same gamma for every slice: the branch is taken here
        if exact:
            v = vlo
        elif median:
            v = ((vlo + vhi) / 2 if t > 0 else vlo) if scalar_t else xp.where(t > 0, (vlo + vhi) / 2, vlo)
        else:
            diff = vhi - vlo
            if scalar_t:
                v = vhi - diff * (1 - t) if t >= 0.5 else vlo + diff * t
            elif weak and not integer_lerp:
                # Each slice's gamma a Python float in NumPy: 1 - t in float64,
                # then each weight in the data's dtype.
                t_lo, t_hi = xp.astype(t, x.dtype), xp.astype(1 - t, x.dtype)
                v = xp.where(t >= 0.5, vhi - diff * t_hi, vlo + diff * t_lo)
            else:
                v = xp.where(t >= 0.5, vhi - diff * (1 - t), vlo + diff * t)
        if nan is not None and skip_nan:
            v = xp.where(n > 0, v, xp.nan)
        elif nan is not None:
            v = xp.where(xp.any(nan, axis=-1, keepdims=True), xp.nan, v)
        v = v[..., 0]
        if keepdims:
            v = xp.reshape(v, tuple(1 if i in axes else d for i, d in enumerate(a.shape)))
        outs.append(v)
    return xp.stack(outs) if qs.ndim else outs[0]


def _quantile_route(skip_nan: bool, scale: float = 1.0) -> Any:
    def recipe(xp: Any, a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
               method: str = "linear", keepdims: bool = False, *, weights: Any = None,
               interpolation: Any = None) -> Any:  # fmt: skip
        if is_array(q) and str(q.device) == "cpu":
            q = np.asarray(q)  # NumPy's q, taken in as host data (xarray passes an ndarray): nothing moves
        if out is not None or weights is not None or interpolation is not None or not is_array(a) or is_array(q):
            return None
        if a.dtype == np.bool_:
            return None  # NumPy's subtract refuses bools: the host raises its TypeError
        if method != "linear" or xp.isdtype(a.dtype, "complex floating"):
            return None  # NumPy's other methods: the host, counted
        weak = type(q) in (int, float)  # NumPy's weak_q, of the q it was given
        scaled = q if scale == 1.0 else np.true_divide(q, scale)
        return _quantiles(xp, a, scaled, axis, keepdims, skip_nan, weak=weak)

    return recipe


def _median_route(skip_nan: bool) -> Any:
    def recipe(xp: Any, a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
               keepdims: bool = False) -> Any:  # fmt: skip
        if out is not None or not is_array(a) or xp.isdtype(a.dtype, "complex floating") or a.dtype == np.bool_:
            return None
        return _quantiles(xp, a, 0.5, axis, keepdims, skip_nan, median=True)

    return recipe


def _gradient(xp: Any, f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """NumPy's gradient for uniform spacings (scalars): second-order
    central differences inside, first- or second-order at the edges."""
    if not is_array(f) or any(is_array(v) or not np.isscalar(v) for v in varargs) or edge_order not in (1, 2):
        return None
    if f.dtype == np.bool_:
        return None  # NumPy's subtract refuses bools: the host raises its TypeError
    axes = (
        tuple(range(f.ndim))
        if axis is None
        else tuple(numpy_axis(ax, f.ndim) for ax in ((axis,) if isinstance(axis, int | np.integer) else axis))
    )
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1:
        spacing = [float(varargs[0])] * len(axes)
    elif len(varargs) == len(axes):
        spacing = [float(v) for v in varargs]
    else:
        raise TypeError("invalid number of arguments")
    x = _float_of(xp, f)
    outs = []
    for ax, h in zip(axes, spacing, strict=True):
        n = f.shape[ax]
        if n < edge_order + 1:
            raise ValueError(
                "Shape of array too small to calculate a numerical gradient, "
                "at least (edge_order + 1) elements are required."
            )

        def part(lo: int, hi: int | None, ax: int = ax) -> Any:
            key = [slice(None)] * f.ndim
            key[ax] = slice(lo, hi)
            return x[tuple(key)]

        inner = (part(2, None) - part(0, -2)) / (2.0 * h)
        if edge_order == 1:
            first = (part(1, 2) - part(0, 1)) / h
            last = (part(n - 1, n) - part(n - 2, n - 1)) / h
        else:
            first = (-1.5 * part(0, 1) + 2.0 * part(1, 2) - 0.5 * part(2, 3)) / h
            last = (0.5 * part(n - 3, n - 2) - 2.0 * part(n - 2, n - 1) + 1.5 * part(n - 1, n)) / h
        outs.append(xp.concat([first, inner, last], axis=ax))
    return outs[0] if len(outs) == 1 else tuple(outs)


def _average(xp: Any, a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *,
             keepdims: bool = False) -> Any:  # fmt: skip
    if not is_array(a) or (weights is not None and not is_array(weights)):
        return None
    x = _float_of(xp, a)
    if weights is None:
        avg = xp.mean(x, axis=axis, keepdims=keepdims)
        if not returned:
            return avg
        return avg, xp.full(avg.shape, x.size / max(avg.size, 1), dtype=avg.dtype, device=a.device)
    w = weights
    if w.shape != a.shape:
        if axis is None or w.ndim != 1:
            return None  # NumPy's error for mismatched weights: the host says it
        ax = numpy_axis(axis, a.ndim)
        w = xp.reshape(w, tuple(w.shape[0] if i == ax else 1 for i in range(a.ndim)))
    dt = np.result_type(x.dtype, w.dtype)
    wsum = xp.sum(xp.broadcast_to(xp.astype(w, dt), a.shape), axis=axis, keepdims=keepdims)
    avg = xp.sum(xp.astype(x, dt) * xp.astype(w, dt), axis=axis, keepdims=keepdims) / wsum
    return (avg, wsum) if returned else avg


def _cov(xp: Any, m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
         fweights: Any = None, aweights: Any = None, *, dtype: Any = None) -> Any:  # fmt: skip
    if not is_array(m) or fweights is not None or aweights is not None or (y is not None and not is_array(y)):
        return None
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    dt = np.dtype(dtype) if dtype is not None else np.result_type(m.dtype, np.float64)
    x = xp.astype(xp.reshape(m, (1, -1)) if m.ndim < 2 else m, dt)
    if not rowvar and x.shape[0] != 1:
        x = x.mT
    if y is not None:
        yy = xp.astype(xp.reshape(y, (1, -1)) if y.ndim < 2 else y, dt)
        if not rowvar and yy.shape[0] != 1:
            yy = yy.mT
        x = xp.concat([x, yy], axis=0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    n = x.shape[1]
    xc = x - xp.mean(x, axis=1, keepdims=True)
    c = xp.matmul(xc, xp.conj(xc).mT) / (n - ddof)
    return xp.squeeze(c, axis=tuple(i for i, d in enumerate(c.shape) if d == 1))


def _corrcoef(xp: Any, x: Any, y: Any = None, rowvar: bool = True, *, dtype: Any = None) -> Any:
    c = _cov(xp, x, y, rowvar, dtype=dtype)
    if c is None or c.ndim == 0:
        return None if c is None else c / c
    d = xp.linalg.diagonal(c)
    s = xp.sqrt(xp.real(d)) if xp.isdtype(d.dtype, "complex floating") else xp.sqrt(d)
    c = c / s[:, None] / s[None, :]
    return xp.clip(c, -1.0, 1.0) if xp.isdtype(c.dtype, "real floating") else c


def _ptp(xp: Any, a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    if out is not None or not is_array(a):
        return None
    return xp.max(a, axis=axis, keepdims=keepdims) - xp.min(a, axis=axis, keepdims=keepdims)


def _edges(xp: Any, a: Any, bins: Any, range_: Any) -> Any:
    """NumPy's equal-width bin edges over ``range_`` or the data's range
    (finite, read once as one flag), as ``np.linspace`` spaces them."""
    flat = _float_of(xp, xp.reshape(a, (-1,)))
    if range_ is not None:
        lo, hi = (float(v) for v in range_)
        if lo > hi:
            raise ValueError("max must be larger than min in range parameter.")
        lo_a, hi_a = (
            xp.asarray(lo, dtype=flat.dtype, device=a.device),
            xp.asarray(hi, dtype=flat.dtype, device=a.device),
        )
    elif flat.size == 0:
        lo_a, hi_a = (
            xp.asarray(0.0, dtype=flat.dtype, device=a.device),
            xp.asarray(1.0, dtype=flat.dtype, device=a.device),
        )
    else:
        lo_a, hi_a = xp.min(flat), xp.max(flat)
        if not read_scalar(xp.isfinite(lo_a) & xp.isfinite(hi_a)):
            raise ValueError("autodetected range of [nan, nan] is not finite")
    same = lo_a == hi_a
    lo_a, hi_a = xp.where(same, lo_a - 0.5, lo_a), xp.where(same, hi_a + 0.5, hi_a)
    step = (hi_a - lo_a) / bins
    edges = xp.astype(xp.arange(bins + 1, device=a.device), flat.dtype) * step + lo_a
    edges = xp.concat([edges[:-1], xp.reshape(hi_a, (1,))])
    return flat, edges


def _histogram_bin_edges(xp: Any, a: Any, bins: Any = 10, range: Any = None, weights: Any = None) -> Any:
    if not is_array(a) or not isinstance(bins, int) or weights is not None:
        return None
    return _edges(xp, a, bins, range)[1]


def _counts(xp: Any, flat: Any, edges: Any, weights: Any = None) -> Any:
    """How many of ``flat`` (or their weight) fall in each bin; the last bin
    holds its right edge, values outside every bin are dropped."""
    order = xp.argsort(flat)
    s = xp.take(flat, order)
    starts = xp.searchsorted(s, edges[:-1], side="left")
    end = xp.searchsorted(s, edges[-1:], side="right")
    bounds = xp.concat([starts, end])
    if weights is None:
        return xp.diff(bounds)
    w = xp.take(xp.reshape(weights, (-1,)), order)
    cum = xp.cumulative_sum(w, include_initial=True)
    return xp.diff(xp.take(cum, bounds))


def _histogram(xp: Any, a: Any, bins: Any = 10, range: Any = None, density: Any = None, weights: Any = None) -> Any:
    if not is_array(a) or (weights is not None and not is_array(weights)):
        return None
    if is_array(bins):
        flat, edges = _float_of(xp, xp.reshape(a, (-1,))), bins
    elif isinstance(bins, int):
        flat, edges = _edges(xp, a, bins, range)
    else:
        return None  # a bin estimator's name ('auto', ...): the host
    counts = _counts(xp, flat, edges, weights)
    if density:
        widths = xp.diff(edges)
        counts = _float_of(xp, counts)
        return counts / widths / xp.sum(counts), edges
    return counts, edges


def _histogram2d(xp: Any, x: Any, y: Any, bins: Any = 10, range: Any = None, density: Any = None,
                 weights: Any = None) -> Any:  # fmt: skip
    """NumPy's histogram2d of equal-width bins: each point's bin along each
    axis from the edges (NumPy's rule: the last bin holds its right edge),
    then a count per joint bin by one sort and a search."""
    if not all_arrays(x, y) or weights is not None or density or not isinstance(bins, int):
        return None
    if x.ndim != 1 or y.shape != x.shape:
        return None
    rx, ry = (None, None) if range is None else range
    fx, ex = _edges(xp, x, bins, rx)
    fy, ey = _edges(xp, y, bins, ry)

    def which(v: Any, edges: Any) -> Any:
        i = xp.searchsorted(edges, v, side="right") - 1
        i = xp.where(v == edges[-1], bins - 1, i)
        return i, (v >= edges[0]) & (v <= edges[-1])

    ix, okx = which(fx, ex)
    iy, oky = which(fy, ey)
    joint = xp.where(okx & oky, ix * bins + iy, bins * bins)  # outside: a bin past the last
    s = xp.sort(joint)
    bounds = xp.searchsorted(s, xp.arange(bins * bins + 1, dtype=joint.dtype, device=x.device), side="left")
    counts = xp.astype(xp.diff(bounds), xp.float64)
    return xp.reshape(counts, (bins, bins)), ex, ey


def _bincount(xp: Any, x: Any, weights: Any = None, minlength: int = 0) -> Any:
    if not is_array(x) or (weights is not None and not is_array(weights)):
        return None
    if x.ndim != 1 or not xp.isdtype(x.dtype, "integral"):
        return None  # NumPy's errors
    if x.size and read_scalar(xp.min(x)) < 0:
        raise ValueError("'list' argument must have no negative elements")
    length = max(int(read_scalar(xp.max(x))) + 1 if x.size else 0, int(minlength))
    s_order = xp.argsort(x)
    s = xp.take(x, s_order)
    bounds = xp.searchsorted(s, xp.arange(length + 1, dtype=x.dtype, device=x.device), side="left")
    if weights is None:
        return xp.diff(bounds)
    w = xp.take(_float_of(xp, weights), s_order)
    cum = xp.cumulative_sum(w, include_initial=True)
    return xp.diff(xp.take(cum, bounds))


def _digitize(xp: Any, x: Any, bins: Any, right: bool = False) -> Any:
    if not all_arrays(x, bins) or bins.ndim != 1:
        return None
    if bins.size > 1:
        rising = read_scalar(xp.all(bins[1:] >= bins[:-1]))
        falling = read_scalar(xp.all(bins[1:] <= bins[:-1]))
        if not (rising or falling):
            raise ValueError("bins must be monotonically increasing or decreasing")
    else:
        rising = True
    side = "left" if right else "right"
    if rising:
        return xp.searchsorted(bins, x, side=side)
    return bins.shape[0] - xp.searchsorted(xp.flip(bins), x, side="right" if right else "left")


def _trapezoid(xp: Any, y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> Any:
    if not is_array(y) or (x is not None and not is_array(x)):
        return None
    ax = numpy_axis(axis, y.ndim)
    yf = _float_of(xp, y)
    if x is None:
        d: Any = dx
    else:
        d = xp.diff(_float_of(xp, x), axis=-1 if x.ndim == 1 else ax)
        if x.ndim == 1:
            d = xp.reshape(d, tuple(-1 if i == ax else 1 for i in range(y.ndim)))
    n = y.shape[ax]
    src = y if y.dtype == np.bool_ else yf  # NumPy adds bools as bools (an or), then divides
    head = xp.take(src, xp.arange(1, n, device=y.device), axis=ax)
    tail = xp.take(src, xp.arange(0, n - 1, device=y.device), axis=ax)
    pair = _float_of(xp, head | tail) if y.dtype == np.bool_ else head + tail
    return xp.sum(d * pair / 2.0, axis=ax)


def _ediff1d(xp: Any, ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    if not is_array(ary) or to_end is not None or to_begin is not None or ary.dtype == np.bool_:
        return None  # bools: NumPy's subtract refuses them (the host raises its TypeError)
    return xp.diff(xp.reshape(ary, (-1,)))


def _diff(xp: Any, a: Any, n: int = 1, axis: int = -1, prepend: Any = UNSET, append: Any = UNSET) -> Any:
    if not is_array(a):
        return None
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    kw: dict[str, Any] = {}
    for key, v in (("prepend", prepend), ("append", append)):
        if v is UNSET:
            continue
        if not is_array(v):
            return None
        kw[key] = v
    if n == 0:
        return a
    return xp.diff(a, axis=axis, n=n, **kw)


def convolve(xp: Any, a: Any, v: Any, mode: str = "full") -> Any:
    if not all_arrays(a, v) or a.ndim != 1 or v.ndim != 1 or mode not in ("full", "same", "valid"):
        return None
    if a.shape[0] < v.shape[0]:
        a, v = v, a
    n, m = a.shape[0], v.shape[0]
    if m == 0:
        raise ValueError("v cannot be empty")
    # Each output is a dot product of a window of a with v reversed: a
    # (len, m) gather of a's padded copy, then one matmul.
    dt = np.result_type(a.dtype, v.dtype)
    if dt == np.bool_:
        out = convolve(xp, xp.astype(a, xp.int64), xp.astype(v, xp.int64), mode)
        return None if out is None else out != 0  # NumPy's bool convolution: an or of ands
    pad = xp.zeros((m - 1,), dtype=dt, device=a.device)
    ap = xp.concat([pad, xp.astype(a, dt), pad])
    full = n + m - 1
    idx = xp.arange(full, device=a.device)[:, None] + xp.arange(m, device=a.device)[None, :]
    windows = xp.take(ap, xp.reshape(idx, (-1,)))
    out = xp.reshape(windows, (full, m)) @ xp.flip(xp.astype(v, dt))
    if mode == "full":
        return out
    if mode == "same":
        start = (m - 1) // 2
        return out[start : start + n]
    return out[m - 1 : n]


def _correlate(xp: Any, a: Any, v: Any, mode: str = "valid") -> Any:
    if not all_arrays(a, v) or a.ndim != 1 or v.ndim != 1:
        return None
    if a.shape[0] < v.shape[0]:
        return None  # NumPy swaps and reverses: the host
    return convolve(xp, a, xp.flip(xp.conj(v) if xp.isdtype(v.dtype, "complex floating") else v), mode)


ROUTES: dict[str, Route] = {
    **{
        n: standard(n)
        for n in [
            "sum",
            "prod",
            "mean",
            "std",
            "var",
            "max",
            "min",
            "argmax",
            "argmin",
            "all",
            "any",
            "count_nonzero",
            "cumulative_sum",
            "cumulative_prod",
        ]
    },
    "amax": standard("max"),
    "amin": standard("min"),
    "cumsum": compose(_cumulative("cumulative_sum")),
    "cumprod": compose(_cumulative("cumulative_prod")),
    "nancumsum": compose(_cumulative("cumulative_sum", 0.0)),
    "nancumprod": compose(_cumulative("cumulative_prod", 1.0)),
    "nansum": compose(_nan_reduction("sum", 0.0)),
    "nanprod": compose(_nan_reduction("prod", 1.0)),
    "nanmax": compose(_nan_extremum("max", -np.inf)),
    "nanmin": compose(_nan_extremum("min", np.inf)),
    "nanargmax": compose(_nan_arg("argmax", -np.inf)),
    "nanargmin": compose(_nan_arg("argmin", np.inf)),
    "nanmean": compose(_nanmean),
    "nanvar": compose(_nanvar),
    "nanstd": compose(_nanstd),
    "median": compose(_median_route(False)),
    "nanmedian": compose(_median_route(True)),
    "quantile": compose(_quantile_route(False)),
    "nanquantile": compose(_quantile_route(True)),
    "percentile": compose(_quantile_route(False, 100.0)),
    "nanpercentile": compose(_quantile_route(True, 100.0)),
    "average": compose(_average),
    "cov": compose(_cov),
    "corrcoef": compose(_corrcoef),
    "ptp": compose(_ptp),
    "histogram": compose(_histogram),
    "histogram_bin_edges": compose(_histogram_bin_edges),
    "histogram2d": compose(_histogram2d),
    "histogramdd": host("n-dimensional bins: not yet composed"),
    "bincount": compose(_bincount),
    "digitize": compose(_digitize),
    "trapezoid": compose(_trapezoid),
    "gradient": compose(_gradient),
    "diff": compose(_diff),
    "ediff1d": compose(_ediff1d),
    "convolve": compose(convolve),
    "correlate": compose(_correlate),
}
