"""``UnifiedArray``: an Array API array on the lazy-sync buffer.

An array is a buffer (:class:`~unifiedarray.UnifiedBuffer`) plus, for a
view, the chain of links that selects it from the buffer
(:mod:`unifiedarray._views`); an operation's result holds its one copy
itself until its buffer is asked for (a lone result, see
:attr:`UnifiedArray.buffer`).  Its ``device`` is the buffer's placement:
every operation runs on that device ("compute follows data"), on that
device's copy, which the buffer brings up to date first if it is stale.

Every dunder and method is written out below; each is one line that hands
the call to one entry of the dispatch's table (:class:`Operations`).  The
class sits below the dispatch, which works on it: the dispatch's top
(:mod:`unifiedarray._dispatch`) builds the table and installs it here once,
at import (:func:`install`), so the class reaches the dispatch without
importing it.  One idea, so one module: the class, its every method written
out.

Example
-------
>>> import unifiedarray as xp
>>> x = xp.arange(6.0)
>>> v = x[1:4]
>>> v[0] = 10.0
>>> float(x[1])
10.0
"""

from __future__ import annotations

import _thread
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, SupportsIndex

import numpy as np

from . import _rules
from ._buffer import UnifiedBuffer
from ._buffer import adopt as _adopt_buffer
from ._buffer import lone_element as _lone_element
from ._compiled import BoolArg, DictArg, IntArg, IntPairArg, StrArg, TupleArg
from ._devices import CPU, Device, DeviceLike
from ._views import Permute

__all__ = ["API_VERSIONS", "Operations", "UnifiedArray", "from_buffer", "install", "python_scalar"]

_TRANSPOSE = Permute((1, 0))  # x.T's link: the axes are known, nothing to check

API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")
# The ledger's reason for each kind of scalar read.
_SCALAR_REASONS = {
    k: f"UnifiedArray.{k}"
    for k in (
        "__bool__", "__int__", "__float__", "__complex__", "__index__", "__format__", "__round__", "item", "tolist",
    )
}  # fmt: skip
# The conversions that also take an array of one element of any shape (as NumPy's).
_ANY_SHAPE_OF_ONE = ("__bool__", "item")


@dataclass(slots=True)
class Operations:
    """The functions the class's dunders and methods hand their calls to:
    the dispatch's entry points, one table, built and installed by
    :mod:`unifiedarray._dispatch` (see :func:`install`).  Each field names
    the function it holds there.  Mutable on purpose: a test can replace
    one entry (``tests/test_fast_paths.py`` runs the dunders through the
    general path)."""

    # the dispatch
    call: Callable[..., Any]
    unary: Callable[..., Any]
    operate: Callable[..., Any]
    inplace: Callable[..., Any]
    getitem: Callable[..., Any]
    setitem: Callable[..., Any]
    native_on: Callable[..., Any]
    readonly_host: Callable[..., Any]
    linked_view: Callable[..., Any]
    reshaped: Callable[..., Any]
    to_device: Callable[..., Any]
    # the namespace's functions behind methods
    namespace: Callable[[], Any]
    astype: Callable[..., Any]
    copy_of: Callable[..., Any]
    imag: Callable[..., Any]
    # the protocols: NumPy's, the exports, pickling and dask
    array: Callable[..., Any]
    array_ufunc: Callable[..., Any]
    array_function: Callable[..., Any]
    dlpack: Callable[..., Any]
    dlpack_device: Callable[..., Any]
    cuda_array_interface: Callable[..., Any]
    cupy_get_ndarray: Callable[..., Any]
    mlx_array: Callable[..., Any]
    reduce_ex: Callable[..., Any]
    dask_token: Callable[..., Any]


_ops: Operations  # the table every dunder calls through: set once, by install()


def install(operations: Operations) -> None:
    """Make ``operations`` the table the class's dunders and methods call
    (done once, by :mod:`unifiedarray._dispatch` at import)."""
    global _ops
    _ops = operations


class UnifiedArray:
    """An Array API array whose data lives in a lazily synchronised buffer.

    Build arrays with the namespace functions (``xp.asarray``, ``xp.zeros``
    ...), not with this class.

    Example
    -------
    >>> import unifiedarray as xp
    >>> a = xp.asarray([1.0, 2.0, 3.0])
    >>> (a * 2).device
    Device('cpu')
    """

    # The array's struct: slots the dispatch reads and writes directly (a
    # slot costs a fraction of a property, and the small calls are made of
    # such reads).  The users' attributes are the read-only properties below.
    __slots__ = ("__weakref__", "buffer_made", "chain", "extent", "host_view", "lone_copy", "lone_device_dtype")
    __array_priority__ = 100
    __hash__ = None  # type: ignore[assignment]  # == is elementwise

    #: The buffer holding this array's data (shared with its views), once
    #: made: None for a lone result (see :attr:`buffer`), whose one copy is
    #: ``lone_copy``.
    buffer_made: UnifiedBuffer | None
    #: The view chain selecting this array from its buffer
    #: (:mod:`unifiedarray._views`); None for the whole buffer.
    chain: tuple | None
    #: The shape (what :attr:`shape` gives).
    extent: tuple[int, ...]
    #: For a view of a buffer placed on the host: the NumPy view of the host
    #: copy that the chain selects, kept once made (the host copy is never
    #: replaced); None where there is none yet.
    host_view: Any
    #: A lone result's one copy, current on its device; set only where
    #: ``buffer_made`` is None, and read only while it is (then dropped).
    lone_copy: Any
    #: A lone result's ``(device, dtype)``, shared by the results of one
    #: signature; set with ``lone_copy``, and never changed.
    lone_device_dtype: tuple[Device, np.dtype]

    # No __init__: the package makes every array (a result, a view) with
    # UnifiedArray() and fills the slots itself (a lone result's two only
    # where it is one: they are read only where buffer_made is None).  A class with neither
    # __init__ nor __new__ of its own is made by the interpreter directly,
    # where object.__new__(UnifiedArray) builds and checks an argument tuple
    # first (about 35 ns of a small call's result).  UnifiedArray(data)
    # raises TypeError ("takes no arguments"): build arrays with
    # unifiedarray.asarray, zeros, ...

    def __cinit__(self, *args: Any) -> None:
        # Compiled (unifiedarray/_compiled.py), the class is an extension
        # type, made by its own tp_new, which calls this with the call's
        # arguments: UnifiedArray(data) raises TypeError there as here.  The
        # interpreter never calls it.
        if args:  # (a keyword argument is refused by the signature itself)
            raise TypeError("UnifiedArray() takes no arguments: build arrays with unifiedarray.asarray, zeros, ...")

    # -- attributes ----------------------------------------------------------
    @property
    def buffer(self) -> UnifiedBuffer:
        """The buffer holding this array's data (shared with its views).

        An operation's result starts as a *lone result*: its one copy,
        current where it was made, held by the array itself with its device
        and dtype, and no buffer, because most results are only ever read by
        the next operation (a loop's temporaries), and a buffer was half the
        cost of a small one.  The buffer is made here, on first use, holding
        that copy, as the result would have had it from the start (nothing
        moves).  Every access but the fast paths' reads of a lone result
        (its device, dtype and copy) asks for it, so every move, write,
        lease, view and export goes through the buffer as for any array.
        On a device under a memory limit, which must hear of every device
        copy as it is made, a result has its buffer from the start.

        Example
        -------
        >>> import unifiedarray as xp
        >>> xp.ones(2).buffer.valid_devices
        frozenset({Device('cpu')})
        """
        buf = self.buffer_made
        if buf is None:
            buf = _own_buffer(self)
        return buf

    @property
    def dtype(self) -> np.dtype:
        """The data type, a NumPy ``dtype`` object (``xp.float64 == np.dtype('float64')``)."""
        buf = self.buffer_made
        return self.lone_device_dtype[1] if buf is None else buf.dtype

    @property
    def device(self) -> Device:
        """The device this array lives on; operations on it run there."""
        buf = self.buffer_made
        return self.lone_device_dtype[0] if buf is None else buf.placement

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape, a tuple of ints."""
        return self.extent

    @property
    def ndim(self) -> int:
        """The number of axes."""
        return len(self.extent)

    @property
    def size(self) -> int:
        """The number of elements."""
        n = 1
        for s in self.extent:
            n *= s
        return n

    @property
    def nbytes(self) -> int:
        """The bytes of this array's elements (one copy)."""
        return self.size * self.dtype.itemsize

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self.dtype.itemsize

    @property
    def T(self) -> UnifiedArray:
        """The transpose of a 2-D array: a view."""
        shape = self.extent
        if len(shape) != 2:
            raise ValueError(f"x.T requires a 2-D array (this one is {len(shape)}-D); use permute_dims or mT")
        return _ops.linked_view(self, _TRANSPOSE, (shape[1], shape[0]))

    @property
    def mT(self) -> UnifiedArray:
        """The transpose of the last two axes: a view."""
        n = len(self.extent)
        if n < 2:
            raise ValueError("x.mT requires at least 2 dimensions")
        axes = (*range(n - 2), n - 1, n - 2)
        return _ops.linked_view(self, Permute(axes), tuple(self.extent[a] for a in axes))

    @property
    def real(self) -> UnifiedArray:
        """The real part (a new array), as ``np.real``."""
        return _ops.unary("real", self) if self.dtype.kind == "c" else _ops.copy_of(self)

    @property
    def imag(self) -> UnifiedArray:
        """The imaginary part (zeros for real dtypes), as ``np.imag``."""
        return _ops.imag(self)

    @property
    def is_view(self) -> bool:
        """Whether this array is a view of another's buffer (basic indexing,
        ``reshape``, ``permute_dims``, ``matrix_transpose``, ``.T``, ``.mT``)."""
        return self.chain is not None

    # -- conversion ----------------------------------------------------------
    def to_device(self, device: DeviceLike, /, *, stream: Any = None) -> UnifiedArray:
        """A copy of this array on ``device`` (this array itself if it is
        already there).  An explicit move: allowed under every guard.

        Example
        -------
        >>> import unifiedarray as xp
        >>> xp.ones(2).to_device("cpu").device
        Device('cpu')
        """
        return _ops.to_device(self, Device.parse(device))

    def __array_namespace__(self, /, *, api_version: StrArg | None = None) -> Any:
        if api_version is not None and api_version not in API_VERSIONS:
            raise ValueError(f"unsupported Array API version {api_version!r}; supported: {API_VERSIONS}")
        return _ops.namespace()

    def __bool__(self, /) -> bool:
        return bool(python_scalar(self, "__bool__"))

    def __int__(self, /) -> int:
        if self.dtype.kind == "c":
            raise TypeError("int() of a complex array")
        return int(python_scalar(self, "__int__"))

    def __float__(self, /) -> float:
        if self.dtype.kind == "c":
            raise TypeError("float() of a complex array")
        return float(python_scalar(self, "__float__"))

    def __complex__(self, /) -> complex:
        return complex(python_scalar(self, "__complex__"))

    def __index__(self, /) -> int:
        if self.dtype.kind not in "iu":
            raise TypeError(f"only integer arrays can be used as an index, not {self.dtype.name}")
        return int(python_scalar(self, "__index__"))

    def __len__(self) -> int:
        if not self.extent:
            raise TypeError("len() of a 0-d array")
        return self.extent[0]

    def __iter__(self) -> Iterator[UnifiedArray]:
        """The sub-arrays along the first axis (elements of a 1-D array), as
        NumPy's arrays iterate."""
        if not self.extent:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.extent[0]))

    def __repr__(self) -> str:
        body = np.array2string(_ops.native_on(self, CPU, "repr"), separator=", ", prefix="UnifiedArray(")
        return f"UnifiedArray({body}, dtype={self.dtype.name}, device={str(self.device)!r})"

    __str__ = __repr__

    def __format__(self, spec: StrArg) -> str:
        """A 0-d array formats as its element (``f"{loss:.4f}"``); any array
        formats as its ``str`` with an empty spec."""
        if not self.extent:
            return format(python_scalar(self, "__format__"), spec)
        if spec:
            raise TypeError(f"unsupported format string {spec!r} for a {self.ndim}-d UnifiedArray")
        return str(self)

    def __round__(self, ndigits: IntArg | None = None) -> Any:
        """``round(x)``: a Python number for a 0-d array (as Python's round of
        its element), else the array rounded elementwise (NumPy's rules)."""
        if not self.extent:
            return round(python_scalar(self, "__round__"), ndigits)
        return np.round(self, 0 if ndigits is None else ndigits)

    def __contains__(self, value: Any) -> bool:
        """``value in x``: whether any element equals ``value`` (as NumPy)."""
        return bool(_ops.call("any", (_ops.operate(self, value, "equal"),)))

    def __divmod__(self, other: UnifiedArray | complex, /) -> tuple[UnifiedArray, UnifiedArray]:
        _rules.outside_standard("divmod")
        return self // other, self % other

    def __rdivmod__(self, other: UnifiedArray | complex, /) -> tuple[UnifiedArray, UnifiedArray]:
        _rules.outside_standard("divmod")
        return other // self, other % self

    # -- indexing --------------------------------------------------------------
    def __getitem__(self, key: Any, /) -> UnifiedArray:
        # The commonest subscript, a slice of a whole array whose host copy is
        # current, here in the dunder (a second call is a measurable share of
        # a small view's cost): the view of _subscripts.getitem's fast path.
        # The NumPy view shares the host copy, which is never replaced.
        buf = self.buffer_made
        if buf is None:
            buf = _own_buffer(self)  # a lone result's, made now: a view shares its array's buffer
        host = buf.host_ready
        if host is not None and type(key) is slice and self.chain is None:
            native = host[key]
            out: UnifiedArray = UnifiedArray()
            out.buffer_made = buf
            out.chain = (key,)
            out.extent = native.shape
            out.host_view = native
            return out
        return _ops.getitem(self, key)

    def __setitem__(self, key: Any, value: Any, /) -> None:
        _ops.setitem(self, key, value)

    # -- operators: each one the dispatch's operate() with its function's name ----
    def __add__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "add")

    def __radd__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "add", reflected=True)

    def __iadd__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.inplace(self, other, "add")

    def __sub__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "subtract")

    def __rsub__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "subtract", reflected=True)

    def __isub__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.inplace(self, other, "subtract")

    def __mul__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "multiply")

    def __rmul__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "multiply", reflected=True)

    def __imul__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.inplace(self, other, "multiply")

    def __truediv__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "divide")

    def __rtruediv__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "divide", reflected=True)

    def __itruediv__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.inplace(self, other, "divide")

    def __floordiv__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "floor_divide")

    def __rfloordiv__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "floor_divide", reflected=True)

    def __ifloordiv__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.inplace(self, other, "floor_divide")

    def __mod__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "remainder")

    def __rmod__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "remainder", reflected=True)

    def __imod__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.inplace(self, other, "remainder")

    def __pow__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "pow")

    def __rpow__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "pow", reflected=True)

    def __ipow__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.inplace(self, other, "pow")

    # (``other`` is not annotated UnifiedArray: compiled, an annotation of
    # one class is enforced, and ``a @ ndarray`` must return NotImplemented
    # for NumPy, or another array type, to answer, as in the pure build.)
    def __matmul__(self, other: Any, /) -> UnifiedArray:
        return _ops.operate(self, other, "matmul")

    def __rmatmul__(self, other: Any, /) -> UnifiedArray:
        return _ops.operate(self, other, "matmul", reflected=True)

    def __imatmul__(self, other: Any, /) -> UnifiedArray:
        return _ops.inplace(self, other, "matmul")

    def __and__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "bitwise_and")

    def __rand__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "bitwise_and", reflected=True)

    def __iand__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.inplace(self, other, "bitwise_and")

    def __or__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "bitwise_or")

    def __ror__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "bitwise_or", reflected=True)

    def __ior__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.inplace(self, other, "bitwise_or")

    def __xor__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "bitwise_xor")

    def __rxor__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "bitwise_xor", reflected=True)

    def __ixor__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.inplace(self, other, "bitwise_xor")

    def __lshift__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "bitwise_left_shift")

    def __rlshift__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "bitwise_left_shift", reflected=True)

    def __ilshift__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.inplace(self, other, "bitwise_left_shift")

    def __rshift__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "bitwise_right_shift")

    def __rrshift__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "bitwise_right_shift", reflected=True)

    def __irshift__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.inplace(self, other, "bitwise_right_shift")

    def __lt__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "less")

    def __le__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "less_equal")

    def __gt__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "greater")

    def __ge__(self, other: UnifiedArray | complex, /) -> UnifiedArray:
        return _ops.operate(self, other, "greater_equal")

    def __eq__(self, other: UnifiedArray | complex, /) -> UnifiedArray:  # type: ignore[override]
        return _ops.operate(self, other, "equal")

    def __ne__(self, other: UnifiedArray | complex, /) -> UnifiedArray:  # type: ignore[override]
        return _ops.operate(self, other, "not_equal")

    def __neg__(self, /) -> UnifiedArray:
        return _ops.unary("negative", self)

    def __pos__(self, /) -> UnifiedArray:
        return _ops.unary("positive", self)

    def __abs__(self, /) -> UnifiedArray:
        return _ops.unary("abs", self)

    def __invert__(self, /) -> UnifiedArray:
        return _ops.unary("bitwise_invert", self)

    # -- NumPy's methods, as CuPy's arrays have them: each is the NumPy function of
    # that name, which comes back through __array_function__, so it runs where x lives.
    def all(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.all(x, ...)``, run where ``x`` lives."""
        return np.all(self, *args, **kwargs)

    def any(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.any(x, ...)``, run where ``x`` lives."""
        return np.any(self, *args, **kwargs)

    def argmax(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.argmax(x, ...)``, run where ``x`` lives."""
        return np.argmax(self, *args, **kwargs)

    def argmin(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.argmin(x, ...)``, run where ``x`` lives."""
        return np.argmin(self, *args, **kwargs)

    def argpartition(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.argpartition(x, ...)``, run where ``x`` lives."""
        return np.argpartition(self, *args, **kwargs)

    def argsort(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.argsort(x, ...)``, run where ``x`` lives."""
        return np.argsort(self, *args, **kwargs)

    def clip(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.clip(x, ...)``, run where ``x`` lives."""
        return np.clip(self, *args, **kwargs)

    def conj(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.conj(x, ...)``, run where ``x`` lives."""
        return np.conj(self, *args, **kwargs)

    def conjugate(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.conjugate(x, ...)``, run where ``x`` lives."""
        return np.conjugate(self, *args, **kwargs)

    def cumprod(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.cumprod(x, ...)``, run where ``x`` lives."""
        return np.cumprod(self, *args, **kwargs)

    def cumsum(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.cumsum(x, ...)``, run where ``x`` lives."""
        return np.cumsum(self, *args, **kwargs)

    def diagonal(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.diagonal(x, ...)``, run where ``x`` lives."""
        return np.diagonal(self, *args, **kwargs)

    def dot(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.dot(x, ...)``, run where ``x`` lives."""
        return np.dot(self, *args, **kwargs)

    def max(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.max(x, ...)``, run where ``x`` lives."""
        return np.max(self, *args, **kwargs)

    def mean(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.mean(x, ...)``, run where ``x`` lives."""
        return np.mean(self, *args, **kwargs)

    def min(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.min(x, ...)``, run where ``x`` lives."""
        return np.min(self, *args, **kwargs)

    def nonzero(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.nonzero(x, ...)``, run where ``x`` lives."""
        return np.nonzero(self, *args, **kwargs)

    def prod(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.prod(x, ...)``, run where ``x`` lives."""
        return np.prod(self, *args, **kwargs)

    def put(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.put(x, ...)``, run where ``x`` lives."""
        return np.put(self, *args, **kwargs)  # type: ignore[arg-type]

    def ravel(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.ravel(x, ...)``, run where ``x`` lives."""
        return np.ravel(self, *args, **kwargs)

    def repeat(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.repeat(x, ...)``, run where ``x`` lives."""
        return np.repeat(self, *args, **kwargs)

    def round(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.round(x, ...)``, run where ``x`` lives."""
        return np.round(self, *args, **kwargs)

    def searchsorted(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.searchsorted(x, ...)``, run where ``x`` lives."""
        return np.searchsorted(self, *args, **kwargs)

    def squeeze(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.squeeze(x, ...)``, run where ``x`` lives."""
        return np.squeeze(self, *args, **kwargs)

    def std(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.std(x, ...)``, run where ``x`` lives."""
        return np.std(self, *args, **kwargs)

    def sum(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.sum(x, ...)``, run where ``x`` lives."""
        return np.sum(self, *args, **kwargs)

    def swapaxes(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.swapaxes(x, ...)``, run where ``x`` lives."""
        return np.swapaxes(self, *args, **kwargs)

    def take(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.take(x, ...)``, run where ``x`` lives."""
        return np.take(self, *args, **kwargs)

    def trace(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.trace(x, ...)``, run where ``x`` lives."""
        return np.trace(self, *args, **kwargs)

    def var(self, *args: Any, **kwargs: Any) -> Any:
        """``numpy.var(x, ...)``, run where ``x`` lives."""
        return np.var(self, *args, **kwargs)

    # -- protocols (see unifiedarray._interop, _exports, _pickling, _dask) ---------
    def __array__(self, dtype: Any = None, copy: BoolArg | None = None) -> np.ndarray:
        return _ops.array(self, dtype, copy)

    def __array_ufunc__(self, ufunc: Any, method: StrArg, *inputs: Any, **kwargs: Any) -> Any:
        return _ops.array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: TupleArg, kwargs: DictArg) -> Any:
        return _ops.array_function(func, types, args, kwargs, self)

    def __dlpack__(
        self,
        /,
        *,
        stream: Any = None,
        max_version: IntPairArg | None = None,
        dl_device: IntPairArg | None = None,
        copy: BoolArg | None = None,
    ) -> Any:
        return _ops.dlpack(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self, /) -> tuple[int, int]:
        return _ops.dlpack_device(self)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """Version 3 of the CUDA Array Interface (CUDA arrays only)."""
        return _ops.cuda_array_interface(self)

    def __cupy_get_ndarray__(self) -> Any:
        return _ops.cupy_get_ndarray(self)

    def __mlx_array__(self) -> Any:
        return _ops.mlx_array(self)

    def __reduce__(self) -> tuple:
        return _ops.reduce_ex(self, 2)

    def __reduce_ex__(self, protocol: Any) -> tuple:
        return _ops.reduce_ex(self, protocol)

    def __dask_tokenize__(self) -> Any:
        return _ops.dask_token(self)

    # -- NumPy-style conversions and in-place methods -----------------------------
    def to_numpy(self) -> np.ndarray:
        """The data on the host, as a read-only NumPy view (synced if stale;
        marks nothing, as ``buf.to_numpy()``).  ``np.asarray(x)`` is the
        writable alias; ``np.array(x)`` a copy.

        >>> import unifiedarray as xp
        >>> xp.arange(3).to_numpy()
        array([0, 1, 2])
        """
        return _ops.readonly_host(self, "to_numpy")

    def tolist(self) -> Any:
        """The data as nested Python lists (a scalar for a 0-d array, read
        as ``float(x)`` reads it)."""
        if not self.extent:
            return python_scalar(self, "tolist")
        return _ops.native_on(self, CPU, "tolist").tolist()

    def item(self, *args: Any) -> Any:
        """One element as a Python scalar (like ``ndarray.item``): of an
        array of one element, read as ``float(x)`` reads it; ``item(i)``
        reads the host copy."""
        if not args:
            return python_scalar(self, "item")
        return _ops.native_on(self, CPU, "item").item(*args)

    # Public methods take their arguments as objects (no annotation the
    # compiled build enforces or converts: ``str``, ``int``, ``bool``, one
    # class), so both builds hand the same values on and raise alike.
    def tobytes(self, order: StrArg | None = "C") -> bytes:
        """The data's bytes, from the host copy (synced if stale)."""
        return bytes(_ops.native_on(self, CPU, "tobytes").tobytes(order))

    def astype(self, dtype: Any, copy: BoolArg | None = True, **_: Any) -> UnifiedArray:
        """``x.astype(dtype)``, as NumPy and CuPy arrays have it."""
        return _ops.astype(self, dtype, copy)

    def copy(self) -> UnifiedArray:
        """A copy of ``x`` on the same device."""
        return _ops.copy_of(self)

    def __copy__(self) -> UnifiedArray:
        """``copy.copy(x)``: a copy on the same device (no host round trip)."""
        return _ops.copy_of(self)

    def __deepcopy__(self, memo: DictArg) -> UnifiedArray:
        """``copy.deepcopy(x)``: a copy on the same device (no host round trip)."""
        return _ops.copy_of(self)

    def flatten(self) -> UnifiedArray:
        """A flat copy (``ndarray.flatten``; ``ravel`` and ``reshape`` give views)."""
        return _ops.copy_of(_ops.reshaped(self, (-1,)))

    def reshape(self, *shape: Any, **kwargs: Any) -> Any:
        """``numpy.reshape(x, shape)`` (``x.reshape(2, 3)`` too): a view."""
        return np.reshape(self, shape[0] if len(shape) == 1 else shape, **kwargs)

    def transpose(self, *axes: Any) -> Any:
        """``numpy.transpose(x, axes)`` (``x.transpose(1, 0)`` too): a view."""
        return np.transpose(self, (axes[0] if len(axes) == 1 else axes) if axes else None)

    def fill(self, value: Any) -> None:
        """Set every element to ``value``, in place (``ndarray.fill``)."""
        self[...] = value

    def sort(self, axis: SupportsIndex = -1, kind: StrArg | None = None) -> None:
        """Sort in place along ``axis`` (``ndarray.sort``), where ``x`` lives
        (``kind=``, which only NumPy takes, sends the sort to the host)."""
        self[...] = np.sort(self, axis=axis) if kind is None else np.sort(self, axis=axis, kind=kind)  # type: ignore[call-overload]

    def partition(self, kth: Any, axis: SupportsIndex = -1) -> None:
        """Partition in place (``ndarray.partition``)."""
        self[...] = np.partition(self, kth, axis=axis)


# Serialises the making of lone results' buffers, so that two threads asking
# for one lone result's buffer get the same one.  Re-entrant: the device copy
# hook (a device memory limit's, see _buffer.set_device_copy_hook), called as
# the buffer is made, may evict other buffers.  Its methods bound once: a
# lookup per call is a measurable share of a small view's cost.
# Outermost of the library's locks: see backends/mlx_evaluation.py, "Lock order".
_LONE_LOCK = _thread.RLock()
_lone_lock_acquire, _lone_lock_release = _LONE_LOCK.acquire, _LONE_LOCK.release


def _own_buffer(arr: UnifiedArray) -> UnifiedBuffer:
    """The buffer of ``arr``, made now if it is a lone result (see
    :attr:`UnifiedArray.buffer`): the buffer adopts its one copy, as the
    result's own buffer would have from the start."""
    _lone_lock_acquire()  # (not ``with``: the context protocol costs as much as the rest)
    try:
        buf = arr.buffer_made
        if buf is None:
            device, dtype = arr.lone_device_dtype
            buf = _adopt_buffer(arr.lone_copy, device, dtype, arr.extent)
            # The buffer first, then the copy dropped: a fast path reads
            # buffer_made first, and lone_copy only where it found none.
            arr.buffer_made = buf
            arr.lone_copy = None  # the buffer holds the copy now (a write may replace it there)
        return buf
    finally:
        _lone_lock_release()


def from_buffer(buf: UnifiedBuffer) -> UnifiedArray:
    """The whole of ``buf`` as an array (no copy).

    Example
    -------
    >>> import numpy as np
    >>> from unifiedarray import UnifiedBuffer
    >>> from unifiedarray._array import from_buffer
    >>> b = UnifiedBuffer((2,), dtype=np.int8); b.fill(4)
    >>> from_buffer(b).tolist()
    [4, 4]
    """
    arr: UnifiedArray = UnifiedArray()
    arr.buffer_made = buf
    arr.chain = None
    arr.extent = buf.shape
    arr.host_view = None
    return arr


def _scalar_reason(kind: str) -> str:
    """The ledger's reason for a scalar read of ``kind``."""
    try:  # (not .get: compiled, a method call on an untyped global costs a tenth of a read)
        return _SCALAR_REASONS[kind]
    except KeyError:
        return f"UnifiedArray.{kind}"


def python_scalar(x: UnifiedArray, kind: str) -> Any:
    """The one element of ``x`` as a Python scalar, for ``kind`` (``bool()``,
    ``float()``, ``full``'s fill value ...): ``item()`` gives one directly,
    no NumPy scalar between.  Where ``x``'s current copies are on devices,
    its element alone is copied out (a counted move of its bytes,
    :meth:`UnifiedBuffer.element`) and every copy stays as it was; a view's
    element is read on the host.  A ``ValueError`` naming ``kind`` where
    ``x`` is not 0-d (``bool`` and ``item`` also take one element of any
    shape)."""
    if x.extent != () and not (kind in _ANY_SHAPE_OF_ONE and x.size == 1):
        raise ValueError(f"{kind} needs a 0-d array; this one has shape {x.extent}")
    # Read where the host copy is current and nothing is in flight (the
    # operators' fast path's test): the commonest case, a convergence check.
    buf = x.buffer_made
    if buf is None:  # a lone result (see UnifiedArray.buffer)
        dev, dtype = x.lone_device_dtype
        native = x.lone_copy
        # None where another thread made its buffer since (and dropped the
        # copy): then read through the buffer, below.
        if native is not None:
            if dev is CPU:
                return native.item()
            # Its one copy is on a device: the element alone is copied out
            # (counted), as the buffer's element() would, and no buffer made;
            # NotImplemented where the device orders work across streams
            # (CUDA): then through the buffer, which orders the read.
            reason = _scalar_reason(kind)
            value = _lone_element(native, dev, dtype.itemsize, reason)
            if value is not NotImplemented:
                return value
        host = None
    else:
        host = buf.host_ready
    if host is not None:
        if x.chain is None:
            return host.item()
        view = x.host_view
        if view is not None:
            return view.item()
    reason = _scalar_reason(kind)
    if x.chain is None:
        # The element alone, from a current copy (counted where it moves);
        # the array's copies stay as they were.
        return x.buffer.element(reason)
    # A view's element: the view is read on the host, moving its base there
    # (counted): the elements next to it are likely read next.
    return _ops.native_on(x, CPU, reason).item()
