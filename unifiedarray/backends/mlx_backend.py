"""The MLX backend: ``mlx.core.array`` on Apple Metal, or MLX's CPU build on
Linux, as one device named ``"mlx"``.

MLX is a separate memory space with its own allocator, lazy evaluation and
dtype limits.  Two of those limits shape this module:

* ``mx.array(float64_ndarray)`` silently gives float32.  Every upload names
  the dtype explicitly, so a float64 buffer stays float64.
* MLX has no complex128.  A buffer of that dtype cannot have an MLX copy;
  asking for one is a ``TypeError`` naming backend, dtype and operation.

Uploads are evaluated at once (``mx.eval``): ``mx.array`` copies the host
data when it is built, and evaluating inside the move keeps the ledger's
timing honest.
"""

from __future__ import annotations

import platform
from types import ModuleType
from typing import Any

import numpy as np

from .._devices import MLX, Device
from . import Backend, host_memory_info

_NP_TO_MX: dict[np.dtype, Any] = {}
_MX_TO_NP: dict[Any, np.dtype] = {}


def _build_dtype_tables(mx: Any) -> None:
    for name in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
    ):
        mx_dtype = getattr(mx, "bool_" if name == "bool" else name)
        _NP_TO_MX[np.dtype(name)] = mx_dtype
        _MX_TO_NP[mx_dtype] = np.dtype(name)


def mx_dtype(dtype: np.dtype) -> Any:
    """The MLX dtype for a NumPy dtype; ``TypeError`` where MLX has none."""
    try:
        return _NP_TO_MX[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"mlx cannot hold dtype {np.dtype(dtype).name}") from None


def np_dtype(dtype: Any) -> np.dtype:
    """The NumPy dtype for an MLX dtype."""
    try:
        return _MX_TO_NP[dtype]
    except KeyError:
        raise TypeError(f"mlx dtype {dtype} has no NumPy equivalent") from None


class MLXBackend(Backend):
    name = "mlx"
    title = "MLX"

    def __init__(self) -> None:
        super().__init__()
        self.mx: Any = None
        self.metal = False

    def _probe(self) -> str | None:
        try:
            import mlx.core as mx
        except ImportError as exc:
            if "mlx" in str(exc) and "No module" in str(exc):
                return "MLX is not installed (pip install 'unifiedarray[mlx]')"
            return f"MLX is installed but its native library failed to load: {exc}"
        except Exception as exc:
            return f"MLX failed to import: {type(exc).__name__}: {exc}"
        mx.eval(mx.zeros(1))  # the first evaluation is where a broken build shows
        _build_dtype_tables(mx)
        self.mx = mx
        try:
            self.metal = bool(mx.metal.is_available())
        except Exception:
            self.metal = False
        return None

    @property
    def metal_reason(self) -> str | None:
        """Why ``.metal`` is unavailable, or None when MLX runs on Metal."""
        if not self.available:
            return self.unavailable_reason
        if self.metal:
            return None
        if platform.system() != "Darwin":
            return f"Metal exists only on macOS; MLX runs here on the CPU ({platform.system()}), use .mlx"
        return "MLX is installed but Metal is not available on this Mac"

    def devices(self) -> list[Device]:
        return [MLX] if self.available else []

    def supports_dtype(self, dtype: np.dtype, device: Device) -> bool:
        self._ensure_probed()
        return np.dtype(dtype) in _NP_TO_MX

    def zeros(self, shape: tuple[int, ...], dtype: np.dtype, device: Device, pinned: bool = False) -> Any:
        self.check_dtype(dtype, device, "allocation")
        # Metal has no float64: such arrays are made on MLX's CPU stream.
        stream = self.mx.cpu if np.dtype(dtype) == np.float64 else None
        out = self.mx.zeros(shape, dtype=mx_dtype(dtype), stream=stream)
        self.mx.eval(out)
        return out

    def upload(self, host: np.ndarray, device: Device, into: Any = None) -> Any:
        # MLX arrays are values: a new array replaces the old copy.  The
        # buffer swaps it in under its lock.
        self.check_dtype(host.dtype, device, "copy to mlx")
        if host.size == 0:
            # MLX's reductions misbehave on empty arrays built from NumPy
            # data (prod gives 0, some calls spin): allocate those in MLX.
            return self.zeros(host.shape, host.dtype, device)
        out = self.mx.array(host, dtype=_NP_TO_MX[host.dtype])
        self.mx.eval(out)
        return out

    def download(self, native: Any, out: np.ndarray) -> None:
        self.mx.eval(native)
        # np.asarray of an evaluated MLX array is a zero-copy view of MLX's
        # memory, so this is one copy, straight into the host buffer.
        np.copyto(out, np.asarray(native))

    def is_native(self, obj: Any) -> bool:
        return self.mx is not None and isinstance(obj, self.mx.array)

    def device_of(self, native: Any) -> Device:
        return MLX

    def memory_info(self, device: Device) -> tuple[int, int]:
        mx = self.mx
        if self.metal:
            info = mx.metal.device_info()
            total = int(info.get("memory_size", 0))
            return max(total - int(mx.get_active_memory()), 0), total
        # The CPU build allocates from host memory.
        return host_memory_info()

    def properties(self, device: Device) -> dict[str, Any]:
        import mlx.core as mx

        props: dict[str, Any] = {"mlx": getattr(mx, "__version__", "?"), "metal": self.metal}
        if self.metal:
            info = mx.metal.device_info()
            props["name"] = info.get("device_name", "Apple GPU")
        else:
            props["name"] = f"MLX CPU build ({platform.machine()})"
        return props

    def detach(self, native: Any) -> Any:
        """A new handle on the same data, so that writes through the old
        handle (MLX's in-place ``a[i] = v`` rebinds that handle only) no
        longer reach the buffer's copy.  A same-shape reshape shares the
        memory (no copy); MLX copies on write, so neither handle's writes
        reach the other."""
        return self.mx.reshape(native, native.shape)

    def copy(self, native: Any) -> Any:
        """A real copy in MLX memory (for exports whose consumer may write)."""
        out = self.mx.array(native, dtype=native.dtype)  # without dtype= MLX gives float32
        self.mx.eval(out)
        return out

    def publish(self, native: Any) -> Any:
        # MLX (0.32) evaluates a lazy graph only in the thread that built it,
        # and an array may be read later from any thread (dask's pool, a
        # user's workers).  So each result starts evaluating where it was
        # built, without waiting for it: no thread-bound graph escapes.
        self.mx.async_eval(native)
        return native

    def dtype_of(self, native: Any) -> np.dtype:
        return np_dtype(native.dtype)

    def shares_memory(self, a: Any, b: Any) -> bool:
        self.mx.eval(a, b)
        return bool(np.may_share_memory(np.asarray(a), np.asarray(b)))

    def numpy_like(self) -> ModuleType:
        """``mlx.core``: its ``einsum`` has NumPy's meaning."""
        return self.mx  # type: ignore[no-any-return]
