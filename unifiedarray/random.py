"""``unifiedarray.random``: NumPy's ``Generator`` API, drawing on the device.

:func:`default_rng` gives a :class:`Generator` with NumPy's methods; each
takes ``device=`` (default: the generator's device, else the default
device) and returns a :class:`~unifiedarray.UnifiedArray` drawn there.
Nothing moves, except for the methods a device cannot draw, which are drawn
on the host and moved (counted, reason ``"random.<method>"``, refused by
``transfer_guard("disallow")``).

Two modes:

* **native** (the default): each device draws with its own generator: the
  host with NumPy's ``Generator(PCG64)`` (so the host gives
  ``numpy.random.default_rng(seed)``'s numbers for the same seed), MLX with
  ``mx.random``'s keys, CUDA with CuPy's ``Generator`` on cuRAND's Philox.
  What a device's generator does not draw (MLX's float64, its integers) is
  composed on the device from Philox4x32-10 bits keyed by its stream.  The
  same seed gives the same values on the same device, and other values on
  another device.
* **portable** (``default_rng(seed, portable=True)``): every draw is
  computed from Philox4x32-10 with the namespace's own integer operations,
  so the same seed gives bit-identical integers, uniforms, permutations,
  shuffles and choices on every device, and normals, exponentials and the
  other transforms equal to the accuracy of each device's ``log``, ``cos``
  and ``exp``.

Example
-------
>>> import unifiedarray as xp
>>> rng = xp.random.default_rng(42)
>>> x = rng.standard_normal((2, 3))
>>> x.shape, x.dtype, str(x.device)
((2, 3), dtype('float64'), 'cpu')
>>> bool(xp.all(x == xp.asarray(__import__("numpy").random.default_rng(42).standard_normal((2, 3)))))
True
>>> p = xp.random.default_rng(7, portable=True).integers(0, 10, 5)
>>> p.tolist() == xp.random.default_rng(7, portable=True).integers(0, 10, 5).tolist()
True
"""

from __future__ import annotations

import math
import threading
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _dask, linalg
from ._access import native_on
from ._array import UnifiedArray
from ._creation import arange, asarray, zeros
from ._data_types import astype, broadcast_shapes
from ._devices import CPU, Device, DeviceLike
from ._dtypes import as_dtype, default_float
from ._elementwise import ceil, cos, exp, expm1, floor, log, log1p, maximum, sin, sqrt
from ._indexing import take, take_along_axis
from ._manipulation import reshape, stack
from ._policy import get_default_device
from ._results import adopt, send_back, wrap_result
from ._searching import searchsorted, where
from ._sorting import argsort
from ._statistical import sum as xp_sum
from .backends import KeyedSource, RandomSource, backend_for, on_change
from .compute import namespace_for

__all__ = ["BitGenerator", "Generator", "default_rng", "philox4x32"]

_MASK32 = 0xFFFFFFFF
_FLOAT32, _FLOAT64 = np.dtype(np.float32), np.dtype(np.float64)
_UINT32, _UINT64, _INT64 = np.dtype(np.uint32), np.dtype(np.uint64), np.dtype(np.int64)

# -- Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
# 3", SC 2011), over the namespace: the portable mode's bits, and the bits of
# what a device's own generator does not draw ---------------------------------

_PHILOX_M = (0xD2511F53, 0xCD9E8D57)
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)


def philox4x32(counter: Sequence[Any], key: tuple[int, int], xp: Any = None) -> list[Any]:
    """Philox4x32-10 of the counters ``counter`` (four uint32 arrays of one
    shape) under ``key`` (two 32-bit words): four uint32 arrays, computed
    with the integer operations of ``xp`` (the counters' namespace by
    default: this library's, or a device's own on its native arrays), so
    every device gives the same words.

    >>> import unifiedarray as xp
    >>> c = [xp.zeros(1, dtype=xp.uint32)] * 4
    >>> " ".join(hex(int(w[0])) for w in philox4x32(c, (0, 0)))
    '0x6627e8d5 0xe169c58d 0xbc57ac4c 0x9b00dbd8'
    """
    if xp is None:
        xp = counter[0].__array_namespace__()
    u32, u64 = xp.uint32, xp.uint64

    def mulhilo(a: Any, m: int) -> tuple[Any, Any]:
        # the low word is uint32's own (wrapping) product; the high needs 64 bits
        return xp.astype((xp.astype(a, u64) * m) >> 32, u32), a * m

    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(10):
        hi0, lo0 = mulhilo(c0, _PHILOX_M[0])
        hi1, lo1 = mulhilo(c2, _PHILOX_M[1])
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
        k0, k1 = (k0 + _PHILOX_W[0]) & _MASK32, (k1 + _PHILOX_W[1]) & _MASK32
    return [c0, c1, c2, c3]


def _philox_blocks(xp: Any, blocks: Any, k0: Any, k1: Any) -> Any:
    """Philox of the 64-bit block numbers ``blocks`` (counters ``(lo, hi,
    0, 0)``) under the key words ``k0``, ``k1`` (uint32 arrays of one
    element, so that a compiled kernel serves every key): ``(len(blocks), 4)`` words."""
    lo, hi = xp.astype(blocks & _MASK32, xp.uint32), xp.astype(blocks >> 32, xp.uint32)
    zero = lo ^ lo
    c0, c1, c2, c3 = lo, hi, zero, zero
    for _ in range(10):
        p0, p1 = xp.astype(c0, xp.uint64) * _PHILOX_M[0], xp.astype(c2, xp.uint64) * _PHILOX_M[1]
        hi0, lo0 = xp.astype(p0 >> 32, xp.uint32), c0 * _PHILOX_M[0]
        hi1, lo1 = xp.astype(p1 >> 32, xp.uint32), c2 * _PHILOX_M[1]
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
        k0, k1 = k0 + _PHILOX_W[0], k1 + _PHILOX_W[1]  # uint32: wraps as the bump does
    return xp.stack([c0, c1, c2, c3], axis=1)


#: per device: _philox_blocks bound to its namespace, compiled by its
#: backend where it compiles (MLX: one kernel for the 160 operations);
#: forgotten when a backend is registered or unregistered
_KERNELS: dict[Device, Any] = {}
on_change(_KERNELS.clear)


def _words(key: int, n: int, dev: Device) -> UnifiedArray:
    """``n`` uint32 words of the stream ``key``: the blocks 0, 1, ... of
    Philox4x32-10 under ``key``, four words a block, in order.  Computed on
    the device's native arrays by its own namespace in one call of the
    backend (its operands are the library's own fresh arrays: nothing to
    check, nothing stale), compiled where the backend compiles."""
    blocks = native_on(arange(max(-(-n // 4), 1), dtype=_UINT64, device=dev), dev, "random")
    backend = backend_for(dev)
    kernel = _KERNELS.get(dev)
    if kernel is None:
        ns = namespace_for(dev)

        def philox(b: Any, k0: Any, k1: Any) -> Any:
            return _philox_blocks(ns, b, k0, k1)

        kernel = _KERNELS[dev] = backend.compile(philox) or philox

    def words() -> Any:
        ns = namespace_for(dev)
        # one-element arrays, not 0-d: NumPy's 0-d arithmetic is a scalar's,
        # which warns where uint32 wraps
        k0 = ns.full((1,), key & _MASK32, dtype=ns.uint32)
        k1 = ns.full((1,), key >> 32, dtype=ns.uint32)
        return ns.reshape(kernel(blocks, k0, k1), (-1,))[:n]

    return adopt(backend.run(dev, words), dev, _UINT32)


def _uniform_bits(key: int, n: int, dtype: np.dtype, dev: Device) -> UnifiedArray:
    """``n`` floats in [0, 1): float32 from 24 bits of a word, float64 from
    53 bits of two, each exact (no rounding)."""
    if dtype == _FLOAT32:
        return astype(_words(key, n, dev) >> 8, _FLOAT32) * 2.0**-24
    w = _words(key, 2 * n, dev)
    hi, lo = astype(w[0::2] >> 5, _FLOAT64), astype(w[1::2] >> 6, _FLOAT64)
    return (hi * 67108864.0 + lo) * 2.0**-53


def _integer_bits(key: int, n: int, low: int, high: int, dtype: np.dtype, dev: Device) -> UnifiedArray:
    """``n`` integers in [low, high): 64 bits of two words reduced modulo
    the range (a bias below range / 2**64)."""
    w = _words(key, 2 * n, dev)
    v = (astype(w[0::2], _UINT64) << 32) | astype(w[1::2], _UINT64)
    span = high - low
    if span < 2**64:
        v = v % span
    out = astype(v, dtype)  # an integer dtype wraps (two's complement) ...
    return out + low if low else out  # ... and so does this, into [low, high)


# -- the generator -------------------------------------------------------------


#: taken to make a generator's stream of a device (rarely: once per device)
_SOURCES_LOCK = threading.Lock()


def _child(seed: np.random.SeedSequence, dev: Device) -> np.random.SeedSequence:
    # A device's own stream: a child of the seed no spawn() gives (spawn keys
    # there count from 0; these are above 2**32), the same for the same device.
    tag = 2**32 + zlib.crc32(str(dev).encode())
    return np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, tag), pool_size=seed.pool_size)


def _shape(size: Any, params: Sequence[Any] = ()) -> tuple[int, ...]:
    if size is None:
        return tuple(broadcast_shapes(*(np.shape(p) for p in params))) if params else ()
    if isinstance(size, (int, np.integer)):
        return (int(size),)
    return tuple(int(s) for s in size)


def _is_scalar(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


class Generator:
    """NumPy's ``Generator`` whose draws are UnifiedArrays on a device (see
    the module's doc for the modes); made by :func:`default_rng`.

    Each method has NumPy's parameters and ``device=``; the continuous
    distributions NumPy draws only in float64 also take ``dtype=`` (float32
    on a device without float64).  With ``size=None`` and scalar
    parameters the result is a 0-d array (NumPy gives a Python scalar).

    >>> import unifiedarray as xp
    >>> g = xp.random.default_rng(0)
    >>> g.integers(0, 10, size=3).dtype
    dtype('int64')
    """

    def __init__(
        self, seed: np.random.SeedSequence, *, device: DeviceLike | None = None, portable: bool = False
    ) -> None:
        self._seed = seed
        self._device = None if device is None else Device.parse(device)
        self.portable = bool(portable)
        self._sources: dict[Device, RandomSource] = {}
        self._keys = KeyedSource(seed) if self.portable else None

    def __repr__(self) -> str:
        mode = "portable" if self.portable else "native"
        return f"Generator({mode}, device={str(self._device) if self._device else None!r})"

    @property
    def bit_generator(self) -> BitGenerator:
        """The seed and mode, as dask's ``Generator`` takes them."""
        return BitGenerator.on(self._device or get_default_device(), self.portable)(self._seed)

    def spawn(self, n_children: int) -> list[Generator]:
        """``n_children`` independent generators (for threads, processes,
        dask chunks): NumPy's ``SeedSequence.spawn``, so the host's are
        ``numpy.random.default_rng(seed).spawn(n)``'s."""
        return [Generator(s, device=self._device, portable=self.portable) for s in self._seed.spawn(n_children)]

    # -- where a draw comes from ------------------------------------------------
    def _dev(self, device: DeviceLike | None) -> Device:
        if device is not None:
            dev = Device.parse(device)
            backend_for(dev)
            return dev
        return self._device or get_default_device()

    def _source(self, dev: Device) -> RandomSource:
        src = self._sources.get(dev)
        if src is None:
            with _SOURCES_LOCK:  # one source a device: two would draw the same keys
                src = self._sources.get(dev)
                if src is None:
                    # The host's stream is the seed's own: NumPy's numbers for the seed.
                    seed = self._seed if dev is CPU else _child(self._seed, dev)
                    src = self._sources[dev] = backend_for(dev).random_source(dev, seed)
        return src

    def _key(self, dev: Device) -> int:
        return self._keys.next_key() if self._keys is not None else self._source(dev).next_key()

    def _native(self, dev: Device, method: str, dtype: np.dtype | None) -> RandomSource | None:
        if self._keys is not None:
            return None
        src = self._source(dev)
        if method not in src.methods:
            return None
        dtypes = src.methods[method]
        return src if dtypes is None or dtype in dtypes else None

    def _draw(
        self,
        src: RandomSource,
        dev: Device,
        method: str,
        shape: tuple[int, ...] | None,
        dtype: Any,
        params: dict[str, Any],
    ) -> UnifiedArray:
        if dev is CPU:
            params = {k: np.asarray(v) if isinstance(v, UnifiedArray) else v for k, v in params.items()}
        out = wrap_result(src.draw(method, shape, dtype, params), dev)
        return out if isinstance(out, UnifiedArray) else asarray(out, device=dev)

    def _host(self, dev: Device, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``method`` drawn on the host by NumPy, seeded by the stream's next
        key (the same on every device in the portable mode), then moved."""
        rng = np.random.Generator(np.random.PCG64(self._key(dev)))
        args = tuple(np.asarray(a) if isinstance(a, UnifiedArray) else a for a in args)
        kwargs = {k: np.asarray(v) if isinstance(v, UnifiedArray) else v for k, v in kwargs.items()}
        # NumPy's draw is a new array of its own: adopted as it is, no copy
        res = np.asarray(getattr(rng, method)(*args, **kwargs))
        return send_back(wrap_result(res, CPU), dev, f"random.{method}")

    def _float(self, dtype: Any, dev: Device) -> np.dtype:
        dt = default_float(dev) if dtype is None else as_dtype(dtype, dev)
        if dt not in (_FLOAT32, _FLOAT64):
            raise TypeError(f"Unsupported dtype {dt!r} for a random float draw (float32 or float64)")
        return dt

    def _work_float(self, dev: Device) -> np.dtype:
        # What a transform computes in: float64 where the device holds it.
        return _FLOAT64 if backend_for(dev).supports_dtype(_FLOAT64, dev) else _FLOAT32

    def _param(self, v: Any, dev: Device) -> Any:
        return v if _is_scalar(v) else asarray(v, device=dev)

    def _out(self, out: UnifiedArray | None, size: Any, dtype: Any) -> tuple[Any, Any]:
        if out is None:
            return size, dtype
        if size is not None and _shape(size) != out.shape:
            raise ValueError(f"size {size} does not match out's shape {out.shape}")
        return out.shape, out.dtype

    def _into(self, res: UnifiedArray, out: UnifiedArray | None) -> UnifiedArray:
        if out is None:
            return res
        out[...] = res
        return out

    # -- the primitives: uniform floats, normals, integers ----------------------
    def _uniform01(self, shape: tuple[int, ...], dtype: np.dtype, dev: Device) -> UnifiedArray:
        src = self._native(dev, "random", dtype)
        if src is not None:
            return self._draw(src, dev, "random", shape, dtype, {})
        return reshape(_uniform_bits(self._key(dev), math.prod(shape), dtype, dev), shape)

    def _normal01(self, shape: tuple[int, ...], dtype: np.dtype, dev: Device) -> UnifiedArray:
        src = self._native(dev, "standard_normal", dtype)
        if src is not None:
            return self._draw(src, dev, "standard_normal", shape, dtype, {})
        # Box-Muller, in float64 where the device holds it: no rejection, so
        # every device draws the same bits for the same values.
        n = math.prod(shape)
        work = self._work_float(dev)
        u = self._uniform01((2 * max(-(-n // 2), 1),), work, dev)
        radius = sqrt(-2.0 * log1p(-u[0::2]))
        angle = (2.0 * math.pi) * u[1::2]
        z = reshape(stack([radius * cos(angle), radius * sin(angle)], axis=1), (-1,))[:n]
        return reshape(astype(z, dtype), shape)

    def _exponential01(self, shape: tuple[int, ...], dtype: np.dtype, dev: Device) -> UnifiedArray:
        return astype(-log1p(-self._uniform01(shape, self._work_float(dev), dev)), dtype)

    def _open01(self, shape: tuple[int, ...], dev: Device) -> UnifiedArray:
        # (0, 1): the middles of a grid one bit coarser than [0, 1)'s, whose
        # last (1 - half a step) the dtype still holds below 1
        work = self._work_float(dev)
        bits = 52 if work == _FLOAT64 else 23
        return (floor(self._uniform01(shape, work, dev) * 2.0**bits) + 0.5) * 2.0**-bits

    # -- NumPy's methods ---------------------------------------------------------
    def random(
        self,
        size: Any = None,
        dtype: Any = np.float64,
        out: UnifiedArray | None = None,
        *,
        device: DeviceLike | None = None,
    ) -> UnifiedArray:
        """Floats in [0, 1) (NumPy's ``Generator.random``), float32 or float64."""
        size, dtype = self._out(out, size, dtype)
        dev = self._dev(device if out is None else out.device)
        return self._into(self._uniform01(_shape(size), self._float(dtype, dev), dev), out)

    def standard_normal(
        self,
        size: Any = None,
        dtype: Any = np.float64,
        out: UnifiedArray | None = None,
        *,
        device: DeviceLike | None = None,
    ) -> UnifiedArray:
        """Standard normal floats (NumPy's ``Generator.standard_normal``)."""
        size, dtype = self._out(out, size, dtype)
        dev = self._dev(device if out is None else out.device)
        return self._into(self._normal01(_shape(size), self._float(dtype, dev), dev), out)

    def integers(
        self,
        low: Any,
        high: Any = None,
        size: Any = None,
        dtype: Any = np.int64,
        endpoint: bool = False,
        *,
        device: DeviceLike | None = None,
    ) -> UnifiedArray:
        """Integers in [low, high) (``endpoint=True``: [low, high]); ``high``
        None: [0, low).  NumPy's ``Generator.integers``."""
        dev = self._dev(device)
        dt = as_dtype(dtype, dev)
        if dt.kind not in "iub":
            raise TypeError(f"Unsupported dtype {dt!r} for integers")
        if high is None:
            low, high = 0, low
        if not (_is_scalar(low) and _is_scalar(high)):
            drawn: UnifiedArray = self._host(
                dev, "integers", (low, high), {"size": size, "dtype": dt, "endpoint": endpoint}
            )
            return drawn
        low, high = int(low), int(high) + (1 if endpoint else 0)
        info = (0, 1) if dt.kind == "b" else (int(np.iinfo(dt).min), int(np.iinfo(dt).max))
        if low >= high:
            raise ValueError("low >= high" if not endpoint else "low > high")
        if low < info[0] or high - 1 > info[1]:
            raise ValueError(f"low or high is out of bounds for {dt}")
        shape = _shape(size)
        src = self._native(dev, "integers", dt)
        if src is not None:
            return self._draw(src, dev, "integers", shape, dt, {"low": low, "high": high})
        return reshape(_integer_bits(self._key(dev), math.prod(shape), low, high, dt, dev), shape)

    def uniform(
        self, low: Any = 0.0, high: Any = 1.0, size: Any = None, *, dtype: Any = None, device: DeviceLike | None = None
    ) -> UnifiedArray:
        """Floats in [low, high) (NumPy's ``Generator.uniform``)."""
        return self._continuous("uniform", {"low": low, "high": high}, size, dtype, device,
                                lambda u, p: p["low"] + (p["high"] - p["low"]) * u, "uniform01")  # fmt: skip

    def normal(
        self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None, *, dtype: Any = None, device: DeviceLike | None = None
    ) -> UnifiedArray:
        """Normal floats of mean ``loc`` and deviation ``scale``."""
        return self._continuous("normal", {"loc": loc, "scale": scale}, size, dtype, device,
                                lambda z, p: p["loc"] + p["scale"] * z, "normal01")  # fmt: skip

    def exponential(
        self, scale: Any = 1.0, size: Any = None, *, dtype: Any = None, device: DeviceLike | None = None
    ) -> UnifiedArray:
        """Exponential floats of mean ``scale`` (``-log1p(-u)`` on a device)."""
        return self._continuous(
            "exponential", {"scale": scale}, size, dtype, device, lambda e, p: p["scale"] * e, "exponential01"
        )

    def standard_exponential(
        self,
        size: Any = None,
        dtype: Any = np.float64,
        method: str = "zig",
        out: UnifiedArray | None = None,
        *,
        device: DeviceLike | None = None,
    ) -> UnifiedArray:
        """Exponential floats of mean 1 (NumPy's ``method=`` applies on the host)."""
        size, dtype = self._out(out, size, dtype)
        dev = self._dev(device if out is None else out.device)
        dt = self._float(dtype, dev)
        src = self._native(dev, "standard_exponential", dt)
        if src is not None and dev is CPU:
            return self._into(self._draw(src, dev, "standard_exponential", _shape(size), dt, {"method": method}), out)
        return self._into(self._exponential01(_shape(size), dt, dev), out)

    def lognormal(
        self,
        mean: Any = 0.0,
        sigma: Any = 1.0,
        size: Any = None,
        *,
        dtype: Any = None,
        device: DeviceLike | None = None,
    ) -> UnifiedArray:
        """``exp`` of normal floats of mean ``mean`` and deviation ``sigma``."""
        return self._continuous("lognormal", {"mean": mean, "sigma": sigma}, size, dtype, device,
                                lambda z, p: exp(p["mean"] + p["sigma"] * z), "normal01")  # fmt: skip

    def logistic(
        self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None, *, dtype: Any = None, device: DeviceLike | None = None
    ) -> UnifiedArray:
        """Logistic floats: ``loc + scale * log(u / (1 - u))``, u in (0, 1)."""
        return self._continuous("logistic", {"loc": loc, "scale": scale}, size, dtype, device,
                                lambda u, p: p["loc"] + p["scale"] * (log(u) - log1p(-u)), "open01")  # fmt: skip

    def gumbel(
        self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None, *, dtype: Any = None, device: DeviceLike | None = None
    ) -> UnifiedArray:
        """Gumbel floats: ``loc - scale * log(e)``, e standard exponential."""
        return self._continuous("gumbel", {"loc": loc, "scale": scale}, size, dtype, device,
                                lambda e, p: p["loc"] - p["scale"] * log(e), "exponential01")  # fmt: skip

    def laplace(
        self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None, *, dtype: Any = None, device: DeviceLike | None = None
    ) -> UnifiedArray:
        """Laplace floats (NumPy's inversion of u in (0, 1))."""

        def laplace(u: UnifiedArray, p: dict[str, Any]) -> UnifiedArray:
            return where(u >= 0.5, p["loc"] - p["scale"] * log(2.0 - u - u), p["loc"] + p["scale"] * log(u + u))

        return self._continuous("laplace", {"loc": loc, "scale": scale}, size, dtype, device, laplace, "open01")

    def rayleigh(
        self, scale: Any = 1.0, size: Any = None, *, dtype: Any = None, device: DeviceLike | None = None
    ) -> UnifiedArray:
        """Rayleigh floats: ``scale * sqrt(2 e)``, e standard exponential."""
        return self._continuous(
            "rayleigh", {"scale": scale}, size, dtype, device, lambda e, p: p["scale"] * sqrt(2.0 * e), "exponential01"
        )

    def weibull(self, a: Any, size: Any = None, *, dtype: Any = None, device: DeviceLike | None = None) -> UnifiedArray:
        """Weibull floats: ``e ** (1 / a)``, e standard exponential (0 where a is 0)."""

        def weibull(e: UnifiedArray, p: dict[str, Any]) -> UnifiedArray:
            a = p["a"]
            if _is_scalar(a):
                return 0.0 * e if a == 0 else e ** (1.0 / a)
            return where(a == 0, 0.0, e ** (1.0 / where(a == 0, 1.0, a)))

        return self._continuous("weibull", {"a": a}, size, dtype, device, weibull, "exponential01")

    def pareto(self, a: Any, size: Any = None, *, dtype: Any = None, device: DeviceLike | None = None) -> UnifiedArray:
        """Pareto II (Lomax) floats: ``expm1(e / a)``, as NumPy defines them."""
        return self._continuous(
            "pareto", {"a": a}, size, dtype, device, lambda e, p: expm1(e / p["a"]), "exponential01"
        )

    def power(self, a: Any, size: Any = None, *, dtype: Any = None, device: DeviceLike | None = None) -> UnifiedArray:
        """Power-law floats in [0, 1]: ``(-expm1(-e)) ** (1 / a)``."""
        return self._continuous(
            "power", {"a": a}, size, dtype, device, lambda e, p: (-expm1(-e)) ** (1.0 / p["a"]), "exponential01"
        )

    def standard_cauchy(self, size: Any = None, *, dtype: Any = None, device: DeviceLike | None = None) -> UnifiedArray:
        """Cauchy floats: the ratio of two standard normals."""
        dev = self._dev(device)
        dt = self._float(dtype, dev)
        src = self._native(dev, "standard_cauchy", None)
        shape = _shape(size)
        if src is not None:
            return astype(self._draw(src, dev, "standard_cauchy", shape, None, {}), dt)
        work = self._work_float(dev)
        z = self._normal01((2, *shape), work, dev)
        return astype(z[0] / z[1], dt)

    def triangular(
        self, left: Any, mode: Any, right: Any, size: Any = None, *, dtype: Any = None, device: DeviceLike | None = None
    ) -> UnifiedArray:
        """Triangular floats on [left, right] peaking at ``mode`` (by inversion)."""

        if all(_is_scalar(v) for v in (left, mode, right)) and not (left <= mode <= right and left < right):
            raise ValueError("left <= mode <= right and left < right are required")

        def triangular(u: UnifiedArray, p: dict[str, Any]) -> UnifiedArray:
            lo, md, hi = p["left"], p["mode"], p["right"]
            base, left_part, right_part = hi - lo, md - lo, hi - md
            ratio = left_part / base
            return where(u <= ratio, lo + sqrt(u * base * left_part), hi - sqrt((1.0 - u) * base * right_part))

        return self._continuous(
            "triangular", {"left": left, "mode": mode, "right": right}, size, dtype, device, triangular, "uniform01"
        )

    def geometric(self, p: Any, size: Any = None, *, device: DeviceLike | None = None) -> UnifiedArray:
        """Trials to the first success, each of probability ``p`` (int64)."""
        dev = self._dev(device)
        src = self._native(dev, "geometric", None)
        shape = _shape(size, (p,))
        if src is not None:
            return self._draw(src, dev, "geometric", shape, None, {"p": p})
        e = self._exponential01(shape, self._work_float(dev), dev)
        if _is_scalar(p):
            if not 0 < p <= 1:
                raise ValueError("p must be in (0, 1]")
            denom: Any = -math.inf if p == 1 else math.log1p(-p)
        else:
            denom = log1p(-self._param(p, dev))
        return astype(maximum(ceil(-e / denom), 1.0), _INT64)

    def _continuous(
        self,
        method: str,
        params: dict[str, Any],
        size: Any,
        dtype: Any,
        device: DeviceLike | None,
        transform: Any,
        base: str,
    ) -> UnifiedArray:
        """A distribution NumPy draws in float64 without ``dtype=``: the
        device's own draw where it has one, else ``transform`` of a base
        draw (uniform in [0, 1) or (0, 1), normal, exponential) on the
        device, in float64 where the device holds it."""
        dev = self._dev(device)
        dt = self._float(dtype, dev)
        shape = _shape(size, tuple(params.values()))
        src = self._native(dev, method, None)
        if src is not None and (dev is CPU or all(_is_scalar(v) for v in params.values())):
            return astype(self._draw(src, dev, method, shape, None, params), dt, copy=False)
        work = self._work_float(dev)
        p = {k: self._param(v, dev) for k, v in params.items()}
        if base == "normal01":
            x = self._normal01(shape, work, dev)
        elif base == "exponential01":
            x = self._exponential01(shape, work, dev)
        elif base == "open01":
            x = self._open01(shape, dev)
        else:
            x = self._uniform01(shape, work, dev)
        return astype(transform(x, p), dt)

    # -- choices and permutations -------------------------------------------------
    def permutation(self, x: Any, axis: int = 0, *, device: DeviceLike | None = None) -> UnifiedArray:
        """A permutation of ``range(x)`` (an int), or of ``x``'s entries along
        ``axis`` (a copy; ``x`` is unchanged), on ``x``'s device."""
        if isinstance(x, (int, np.integer)):
            return self._index_permutation(int(x), self._dev(device))
        arr = x if isinstance(x, UnifiedArray) else asarray(x, device=self._dev(device))
        if arr.ndim == 0:
            raise np.exceptions.AxisError("x must be an integer or at least 1-dimensional")
        ax = axis + arr.ndim if axis < 0 else axis
        return take(arr, self._index_permutation(arr.shape[ax], arr.device), axis=ax)

    def shuffle(self, x: UnifiedArray, axis: int = 0) -> None:
        """Shuffle ``x`` in place along ``axis``, on its device (NumPy's own
        ``Generator.shuffle`` of a UnifiedArray is not safe: it swaps rows
        through views)."""
        if not isinstance(x, UnifiedArray):
            raise TypeError(f"shuffle takes a UnifiedArray, not {type(x).__name__} (use numpy.random for others)")
        if x.ndim == 0:
            raise TypeError("shuffle of a 0-d array")
        x[...] = self.permutation(x, axis=axis)

    def permuted(self, x: Any, *, axis: int | None = None, out: UnifiedArray | None = None) -> UnifiedArray:
        """``x`` with each slice along ``axis`` shuffled independently (None:
        the flattened array), as NumPy's ``Generator.permuted``."""
        arr = x if isinstance(x, UnifiedArray) else asarray(x, device=self._dev(None))
        dev = arr.device
        src = self._native(dev, "permuted", None)
        if src is not None and dev is CPU:
            res = self._draw(src, dev, "permuted", None, None, {"x": arr, "axis": axis})
        elif axis is None:
            flat = reshape(arr, (-1,))
            res = reshape(take(flat, self._index_permutation(flat.shape[0], dev), axis=0), arr.shape)
        else:
            ax = axis + arr.ndim if axis < 0 else axis
            keys = self.integers(0, 2**63 - 1, size=arr.shape, device=dev)
            res = take_along_axis(arr, argsort(keys, axis=ax, stable=True), axis=ax)
        return self._into(res, out)

    def _index_permutation(self, n: int, dev: Device) -> UnifiedArray:
        src = self._native(dev, "permutation", None)
        if src is not None and dev is CPU:
            return self._draw(src, dev, "permutation", None, None, {"x": n})
        # The order of n random 63-bit keys (ties, of chance n**2 / 2**64,
        # keep their first order): the same on every device for the same bits.
        keys = self.integers(0, 2**63 - 1, size=n, device=dev)
        return argsort(keys, stable=True)

    def choice(
        self,
        a: Any,
        size: Any = None,
        replace: bool = True,
        p: Any = None,
        axis: int = 0,
        shuffle: bool = True,
        *,
        device: DeviceLike | None = None,
    ) -> UnifiedArray:
        """Entries of ``a`` (or of ``range(a)``) drawn with or without
        replacement, with probabilities ``p`` (NumPy's ``Generator.choice``)."""
        if isinstance(a, (int, np.integer)):
            dev, n, arr = self._dev(device), int(a), None
            if n < 0:
                raise ValueError("a must be a positive integer unless no samples are taken")
        else:
            arr = a if isinstance(a, UnifiedArray) else asarray(a, device=self._dev(device))
            if arr.ndim == 0:
                raise ValueError("a must be a sequence or an integer, not a 0-d array")
            dev, n = arr.device, arr.shape[axis]
        shape = _shape(size)
        src = self._native(dev, "choice", None)
        if src is not None and dev is CPU:
            params = {"a": n, "replace": replace, "p": p, "shuffle": shuffle}
            idx = self._draw(src, dev, "choice", shape, None, params)
        else:
            idx = self._choice_index(n, shape, replace, p, dev)
        if arr is None:
            return idx
        ax = axis + arr.ndim if axis < 0 else axis
        picked = take(arr, reshape(idx, (-1,)), axis=ax)
        return reshape(picked, (*arr.shape[:ax], *shape, *arr.shape[ax + 1 :]))

    def _choice_index(self, n: int, shape: tuple[int, ...], replace: bool, p: Any, dev: Device) -> UnifiedArray:
        m = math.prod(shape)
        if p is not None:
            prob = np.asarray(p, dtype=np.float64)
            if prob.ndim != 1 or prob.shape[0] != n:
                raise ValueError("p must be 1-dimensional and of the length of a")
            if np.any(prob < 0) or not np.isclose(prob.sum(), 1.0, rtol=0, atol=math.sqrt(np.finfo(np.float64).eps)):
                raise ValueError("probabilities are not non-negative or do not sum to 1")
        if replace:
            if p is None:
                return self.integers(0, n, size=shape, device=dev) if n else zeros(shape, dtype=_INT64, device=dev)
            # Inversion of the CDF, summed on the host (p is the caller's
            # small host list): every device searches the same cut points.
            cdf = np.cumsum(prob)
            cdf /= cdf[-1]
            u = self._uniform01(shape, self._work_float(dev), dev)
            cuts = asarray(cdf[:-1].astype(self._work_float(dev)), device=dev)
            return reshape(astype(searchsorted(cuts, reshape(u, (-1,)), side="right"), _INT64), shape)
        if m > n:
            raise ValueError("Cannot take a larger sample than population when replace is False")
        if p is not None:
            if np.count_nonzero(prob) < m:
                raise ValueError("Fewer non-zero entries in p than size")
            # Gumbel-top-k: the m largest of log(p) + Gumbel noise are a draw
            # without replacement weighted by p.
            g = self.gumbel(size=n, device=dev)
            logp = asarray(np.log(np.where(prob > 0, prob, 1.0)) + np.where(prob > 0, 0.0, -np.inf), device=dev)
            order = argsort(-(logp + g), stable=True)
            return reshape(order[:m], shape)
        perm = self._index_permutation(n, dev)
        return reshape(perm[:m], shape)

    def multivariate_normal(
        self,
        mean: Any,
        cov: Any,
        size: Any = None,
        check_valid: str = "warn",
        tol: float = 1e-8,
        *,
        method: str = "svd",
        device: DeviceLike | None = None,
    ) -> UnifiedArray:
        """Multivariate normal vectors: ``mean + z @ A.T`` with ``A A.T = cov``
        (``A`` from ``cov``'s eigendecomposition on a device; NumPy's own
        draw, with its ``check_valid``, on the host)."""
        dev = self._dev(device)
        src = self._native(dev, "multivariate_normal", None)
        if src is not None and dev is CPU:
            params = {"mean": mean, "cov": cov, "check_valid": check_valid, "tol": tol, "method": method}
            return self._draw(src, dev, "multivariate_normal", size, None, params)
        m = asarray(mean, device=dev)
        c = asarray(cov, device=dev)
        if m.ndim != 1 or c.shape != (m.shape[0], m.shape[0]):
            raise ValueError("mean must be 1 dimensional and cov 2 dimensional and square, of mean's length")
        work = self._work_float(dev)
        w, v = linalg.eigh(astype(c, work))
        a = v * sqrt(maximum(w, 0.0))
        shape = (*_shape(size), m.shape[0])
        z = self._normal01(shape, work, dev)
        return m + z @ a.mT

    def bytes(self, length: int) -> bytes:
        """``length`` random bytes, drawn on the host."""
        if self.portable:
            return np.random.Generator(np.random.PCG64(self._key(CPU))).bytes(length)
        out: bytes = self._source(CPU).draw("bytes", None, None, {"length": length})
        return out

    def _distribution(
        self, method: str, args: tuple[Any, ...], size: Any, device: DeviceLike | None, kwargs: dict[str, Any]
    ) -> Any:
        """A distribution drawn by the device's generator where it has it,
        else composed on the device (:data:`_COMPOSED`), else on the host by
        NumPy (counted)."""
        dev = self._dev(device)
        names = _DISTRIBUTIONS[method]
        if len(args) > len(names) or set(kwargs) - set(names):
            return self._host(dev, method, args, {"size": size, **kwargs})  # NumPy's own error
        params = _DEFAULTS.get(method, {}) | dict(zip(names, args, strict=False)) | kwargs
        if set(params) != set(names):
            return self._host(dev, method, args, {"size": size, **kwargs})
        src = self._native(dev, method, None)
        if src is not None and dev is CPU:
            return self._draw(src, dev, method, None if size is None else _shape(size), None, params)
        if src is not None and all(_is_scalar(v) for v in params.values()):
            return self._draw(src, dev, method, _shape(size, tuple(params.values())), None, params)
        composed = _COMPOSED.get(method)
        if composed is not None:
            p = {k: self._param(v, dev) for k, v in params.items()}
            return composed(self, p, size, dev)
        return self._host(dev, method, args, {"size": size, **kwargs})

    # -- the gamma family, composed --------------------------------------------------
    def _standard_gamma(self, k: Any, shape: tuple[int, ...], dev: Device) -> UnifiedArray:
        """Marsaglia and Tsang's gamma (ACM TOMS 26, 2000), its rejection
        vectorised: ``_GAMMA_ROUNDS`` candidates per draw, the first accepted
        taken (a shape below 1 boosted by ``u ** (1 / k)``).  All are
        rejected with probability below 0.049**10 = 8e-14 (at shape 1, the
        worst; far less above), and that draw then takes its first
        positive candidate (every candidate is drawn either way)."""
        work = self._work_float(dev)
        if _is_scalar(k):
            if k < 0:
                raise ValueError("shape < 0")
            if k == 0:
                return zeros(shape, dtype=work, device=dev)
            a: Any = k + 1.0 if k < 1 else float(k)
            d: Any = a - 1.0 / 3.0
            c: Any = 1.0 / math.sqrt(9.0 * d)
        else:
            k = astype(k, work)
            a = where(k < 1, k + 1.0, k)
            d = a - 1.0 / 3.0
            c = 1.0 / sqrt(9.0 * d)
        # One round at a time (each draw's memory, not ten times it): a draw
        # keeps its first accepted candidate, else its first positive one.
        out = zeros(shape, dtype=work, device=dev)
        state = zeros(shape, dtype=_INT64, device=dev)  # 0 none yet, 1 positive, 2 accepted
        for _ in range(_GAMMA_ROUNDS):
            z = self._normal01(shape, work, dev)
            u = self._open01(shape, dev)
            t = 1.0 + c * z
            v = t * t * t
            positive = v > 0
            v = where(positive, v, 1.0)
            accepted = positive & (log(u) < 0.5 * z * z + d - d * v + d * log(v))
            grade = astype(accepted, _INT64) + astype(positive, _INT64)  # accepted ones are positive
            better = grade > state
            out = where(better, d * v, out)
            state = where(better, grade, state)
        if _is_scalar(k):
            return out * self._open01(shape, dev) ** (1.0 / k) if k < 1 else out
        boosted = (k > 0) & (k < 1)
        boost = self._open01(shape, dev) ** (1.0 / where(boosted, k, 1.0))
        return where(k == 0, 0.0, where(boosted, out * boost, out))

    def _chisquare(self, df: Any, shape: tuple[int, ...], dev: Device) -> UnifiedArray:
        return 2.0 * self._standard_gamma(df / 2.0, shape, dev)


def _positive(name: str, *values: Any) -> None:
    for v in values:
        if _is_scalar(v) and not v > 0:
            raise ValueError(f"{name} <= 0")


def _sized(size: Any, p: dict[str, Any]) -> tuple[int, ...]:
    return _shape(size, tuple(p.values()))


def _beta(g: Generator, p: dict[str, Any], size: Any, dev: Device) -> UnifiedArray:
    _positive("a", p["a"])
    _positive("b", p["b"])
    shape = _sized(size, p)
    x, y = g._standard_gamma(p["a"], shape, dev), g._standard_gamma(p["b"], shape, dev)  # noqa: SLF001
    return x / (x + y)


def _dirichlet(g: Generator, p: dict[str, Any], size: Any, dev: Device) -> UnifiedArray:
    alpha = p["alpha"]
    if alpha.ndim != 1:
        raise ValueError("alpha must be a one-dimensional sequence of floats")
    draws = g._standard_gamma(alpha, (*_shape(size), alpha.shape[0]), dev)  # noqa: SLF001
    return draws / xp_sum(draws, axis=-1, keepdims=True)


def _f(g: Generator, p: dict[str, Any], size: Any, dev: Device) -> UnifiedArray:
    _positive("dfnum", p["dfnum"])
    _positive("dfden", p["dfden"])
    shape = _sized(size, p)
    num, den = g._chisquare(p["dfnum"], shape, dev), g._chisquare(p["dfden"], shape, dev)  # noqa: SLF001
    ratio: UnifiedArray = (num / p["dfnum"]) / (den / p["dfden"])
    return ratio


def _standard_t(g: Generator, p: dict[str, Any], size: Any, dev: Device) -> UnifiedArray:
    _positive("df", p["df"])
    shape = _sized(size, p)
    z = g._normal01(shape, g._work_float(dev), dev)  # noqa: SLF001
    return z / sqrt(g._chisquare(p["df"], shape, dev) / p["df"])  # noqa: SLF001


def _wald(g: Generator, p: dict[str, Any], size: Any, dev: Device) -> UnifiedArray:
    # Michael, Schucany and Haas (1976): no rejection
    _positive("mean", p["mean"])
    _positive("scale", p["scale"])
    shape = _sized(size, p)
    mean, scale = p["mean"], p["scale"]
    work = g._work_float(dev)  # noqa: SLF001
    z = g._normal01(shape, work, dev)  # noqa: SLF001
    y = mean * z * z
    x = mean + (mean / (2.0 * scale)) * (y - sqrt(4.0 * scale * y + y * y))
    u = g._uniform01(shape, work, dev)  # noqa: SLF001
    return where(u <= mean / (mean + x), x, mean * mean / x)


def _gamma_composed(scaled: bool) -> Any:
    def gamma(g: Generator, p: dict[str, Any], size: Any, dev: Device) -> UnifiedArray:
        if _is_scalar(p["shape"]) and p["shape"] < 0:
            raise ValueError("shape < 0")
        if scaled and _is_scalar(p["scale"]) and p["scale"] < 0:
            raise ValueError("scale < 0")
        out = g._standard_gamma(p["shape"], _sized(size, p), dev)  # noqa: SLF001
        return out * p["scale"] if scaled else out

    return gamma


def _chisquare_composed(g: Generator, p: dict[str, Any], size: Any, dev: Device) -> UnifiedArray:
    _positive("df", p["df"])
    return g._chisquare(p["df"], _sized(size, p), dev)  # noqa: SLF001


#: rounds of candidates of the vectorised gamma rejection (see _standard_gamma)
_GAMMA_ROUNDS = 10

#: the distributions composed on a device without its own (from the uniform,
#: normal and gamma draws above): name -> composition of (generator, the
#: parameters on the device, size, device)
_COMPOSED: dict[str, Any] = {
    "beta": _beta,
    "chisquare": _chisquare_composed,
    "dirichlet": _dirichlet,
    "f": _f,
    "gamma": _gamma_composed(True),
    "standard_gamma": _gamma_composed(False),
    "standard_t": _standard_t,
    "wald": _wald,
}

#: NumPy's defaults of the parameters before ``size``
_DEFAULTS: dict[str, dict[str, Any]] = {"gamma": {"scale": 1.0}, "poisson": {"lam": 1.0}}

#: NumPy's Generator methods drawn by a device's generator where it has
#: them (CUDA: CuPy's), else composed (_COMPOSED), else on the host:
#: name -> NumPy's parameters before size
_DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "beta": ("a", "b"),
    "binomial": ("n", "p"),
    "chisquare": ("df",),
    "dirichlet": ("alpha",),
    "f": ("dfnum", "dfden"),
    "gamma": ("shape", "scale"),
    "hypergeometric": ("ngood", "nbad", "nsample"),
    "logseries": ("p",),
    "multinomial": ("n", "pvals"),
    "multivariate_hypergeometric": ("colors", "nsample"),
    "negative_binomial": ("n", "p"),
    "noncentral_chisquare": ("df", "nonc"),
    "noncentral_f": ("dfnum", "dfden", "nonc"),
    "poisson": ("lam",),
    "standard_gamma": ("shape",),
    "standard_t": ("df",),
    "vonmises": ("mu", "kappa"),
    "wald": ("mean", "scale"),
    "zipf": ("a",),
}


def _host_method(name: str) -> Any:
    params = _DISTRIBUTIONS[name]

    def method(self: Generator, *args: Any, size: Any = None, device: DeviceLike | None = None, **kwargs: Any) -> Any:
        if len(args) > len(params):  # size passed by position
            args, size = args[: len(params)], args[len(params)]
        return self._distribution(name, args, size, device, kwargs)

    method.__name__ = method.__qualname__ = name
    where = "composed on the device" if name in _COMPOSED else "drawn on the host by NumPy and moved (counted)"
    method.__doc__ = (
        f"NumPy's ``Generator.{name}({', '.join(params)}, size=None)``, with ``device=``: drawn by the "
        f"device's generator where it has one (the host's, CUDA's), else {where}."
    )
    return method


for _name in _DISTRIBUTIONS:
    setattr(Generator, _name, _host_method(_name))


# -- seeds as dask takes them ----------------------------------------------------


class BitGenerator:
    """A seed (``SeedSequence``) and a mode for one device: what dask's
    ``da.random.default_rng`` holds under ``array.backend = "unifiedarray"``
    and gives each chunk (spawned), and what :func:`default_rng` takes.
    One subclass per device and mode (:meth:`on`), a module attribute, so
    that a chunk's task names its device when pickled."""

    device: Device = CPU
    portable: bool = False

    def __init__(self, seed: Any = None) -> None:
        self._seed_seq = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)

    def __dask_tokenize__(self) -> Any:
        return (
            type(self).__name__,
            self._seed_seq.entropy,
            self._seed_seq.spawn_key,
            self._seed_seq.n_children_spawned,
        )

    @staticmethod
    def on(device: DeviceLike, portable: bool = False) -> type[BitGenerator]:
        """The class for ``device`` and mode."""
        dev = Device.parse(device)
        return _bit_generator_class(("portable_" if portable else "") + str(dev).replace(":", "_"))


_BIT_CLASSES: dict[str, type] = {}


def _bit_generator_class(tag: str) -> type:
    cls = _BIT_CLASSES.get(tag)
    if cls is None:
        portable = tag.startswith("portable_")
        dev = Device.parse(tag.removeprefix("portable_").replace("_", ":"))
        name = f"BitGenerator_{tag}"
        cls = type(
            name, (BitGenerator,), {"device": dev, "portable": portable, "__module__": __name__, "__qualname__": name}
        )
        _BIT_CLASSES[tag] = cls
    return cls


def __getattr__(name: str) -> Any:
    # BitGenerator_mlx, BitGenerator_portable_cuda_0, ...: made on demand, so
    # that a worker unpickling a dask graph finds its device's class.
    if name.startswith("BitGenerator_"):
        return _bit_generator_class(name[len("BitGenerator_") :])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def default_rng(seed: Any = None, *, device: DeviceLike | None = None, portable: bool = False) -> Generator:
    """A :class:`Generator` seeded as ``numpy.random.default_rng(seed)``
    (None, an int, a sequence of ints, a ``SeedSequence``, a
    :class:`BitGenerator`, or a :class:`Generator`, returned as it is).
    ``device``: where its draws go when a method names none (default: the
    default device at each draw); ``portable``: the same numbers on every
    device (see the module's doc).

    >>> import unifiedarray as xp
    >>> xp.random.default_rng(1).random(2).tolist() == __import__("numpy").random.default_rng(1).random(2).tolist()
    True
    """
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, BitGenerator):
        return Generator(seed._seed_seq, device=device or type(seed).device, portable=portable or type(seed).portable)  # noqa: SLF001
    if isinstance(seed, np.random.Generator):
        seed = seed.bit_generator.seed_seq
    if isinstance(seed, np.random.BitGenerator):
        seed = seed.seed_seq
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return Generator(ss, device=device, portable=portable)


# dask's array backend hands this module's seeds to its Generator (the
# backend sits below this module, so it is told here).
_dask.BIT_GENERATOR[0] = BitGenerator.on
