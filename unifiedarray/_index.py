"""Index keys: the one reading of ``x[key]`` for every device (one idea,
so one module).

NumPy is the reference: :func:`normalise` reads a key against a shape the
way NumPy does (basic indices, ``None``, ``...``, integer and boolean
arrays, 0-d booleans, empty broadcasts, negative steps, and NumPy's
placement of the advanced dimensions, first when the advanced indices are
separated by a slice or ``None``), raises NumPy's exception (class and
message) for a bad key, and gives an :class:`Index`: the result's shape and
what a backend needs to select exactly those elements, in a form it cannot
misread:

* a basic key (no arrays) as a canonical key: one entry per axis, in-range
  non-negative integers, slices with explicit in-range bounds, ``None``,
  no ``...`` (:attr:`Index.basic`);
* any other key as flat C-order element positions (:meth:`Index.positions`),
  computed with the array namespace of the index arrays, so that an index
  on a device stays there.

The host keeps NumPy's own indexing (NumPy is the reference); the MLX
namespace indexes only through an :class:`Index` (its ``getitem``,
``setitem`` and ``view_getitem``); the dispatch asks this module every
question about a key (is it basic, one element, what shape does it select).
Nothing here knows about devices: index arrays that are not NumPy arrays
("foreign" arrays) are read through the callbacks :func:`normalise` takes.

Example
-------
>>> import numpy as np
>>> from unifiedarray._index import normalise
>>> ix = normalise((3, 4), (slice(None), [1, 3], None, -2))
Traceback (most recent call last):
IndexError: too many indices for array: array is 2-dimensional, but 3 were indexed
>>> ix = normalise((2, 4, 3), (slice(None), [1, 3], None, -2))
>>> ix.shape  # the advanced dimensions go first: a None separates them
(2, 2, 1)
>>> ix.positions(np).tolist() == np.arange(24).reshape(2, 4, 3)[:, [1, 3], None, -2].tolist()
True
>>> normalise((5,), slice(None, None, -2)).basic
(slice(4, None, -2),)
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.exceptions import AxisError
from numpy.lib.array_utils import normalize_axis_tuple

from ._compiled import TupleArg
from ._foreign import host_data

__all__ = [
    "BASIC_TYPES",
    "Index",
    "all_slices",
    "axis_tuple",
    "basic_shape",
    "fit_value",
    "fits",
    "is_basic_key",
    "normalise",
    "normalise_axes",
    "one_element",
    "sequence_array",
    "shape_text",
    "view_key",
]

BASIC_TYPES = (int, slice, type(Ellipsis), type(None))
# The same as sets, for issuperset(map(type, key)): the loop runs in C (a
# generator's frame per item costs more than the rest of a small view).
_BASIC = frozenset(BASIC_TYPES)
_INT = frozenset((int,))

#: NumPy's messages, word for word.
INVALID_INDEX = (
    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid "
    "indices"
)
NOT_INTEGER = "arrays used as indices must be of integer (or boolean) type"
_INTP_MIN, _INTP_MAX = -(2**63), 2**63 - 1


# -- the dispatch's questions about a key (fast: no parsing) ---------------------------------------


def is_basic_key(key: Any) -> bool:
    """Whether ``key`` is a basic index (no arrays, no lists, no booleans)."""
    if type(key) is tuple:
        return _BASIC.issuperset(map(type, key))
    return type(key) in _BASIC


def one_element(key: Any, ndim: int) -> bool:
    """Whether a basic index is an integer for every axis (no slice, no
    ``...``, no ``None``): what NumPy answers with a scalar."""
    if type(key) is int:
        return ndim == 1
    if type(key) is not tuple or len(key) != ndim or ndim == 0:
        return False
    return _INT.issuperset(map(type, key))


def view_key(key: Any) -> tuple:
    """A basic index as a tuple that always gives a view (an index of only
    integers gives NumPy a scalar; a trailing Ellipsis gives a 0-d view)."""
    if type(key) is not tuple:
        key = (key,)
    if Ellipsis not in key:
        key = (*key, Ellipsis)
    return key


def all_slices(key: tuple) -> bool:
    """Whether a tuple key is all slices (unrolled for the common 1- and
    2-axis keys: a generator costs more than the rest of the view)."""
    n = len(key)
    if n == 0 or type(key[0]) is not slice:
        return False
    if n == 1:
        return True
    if type(key[1]) is not slice:
        return False
    return n == 2 or all(type(k) is slice for k in key)


def basic_shape(shape: tuple[int, ...], key: Any) -> tuple[int, ...]:
    """The shape a basic ``key`` selects from ``shape``, with NumPy's checks,
    touching no data: :func:`normalise`'s shape, with a shortcut for the
    commonest keys (slices and new axes, then ``...``)."""
    if type(key) is tuple and key and key[-1] is Ellipsis:
        first = key[0]
        if len(key) == 2 and type(first) is slice and shape and first.step != 0:
            # The commonest of all, one slice (a device array's a[1:3]).
            try:
                start, stop, step = first.indices(shape[0])
            except (TypeError, ValueError):
                pass  # normalise raises NumPy's error
            else:
                return (len(range(start, stop, step)), *shape[1:])
        # One pass, no generator: a device array's slice (MLX's a[1:3]) is
        # mostly this.  Anything but slices (of a non-zero step, as many as
        # the axes) and new axes before the Ellipsis goes to normalise.
        out: list[int] = []
        axis, ndim = 0, len(shape)
        try:
            for k in key[:-1]:
                if k is None:
                    out.append(1)
                    continue
                if type(k) is not slice or axis == ndim or k.step == 0:
                    break
                out.append(len(range(*k.indices(shape[axis]))))
                axis += 1
            else:
                return (*out, *shape[axis:])
        except (TypeError, ValueError):
            pass  # normalise raises NumPy's error
    return normalise(shape, key).shape


def shape_text(shape: Sequence[int]) -> str:
    """A shape as NumPy's messages write it: ``(2,1)``, ``(3,)``, ``()``."""
    return "(" + ",".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


# -- reading a key ---------------------------------------------------------------------------------


class _Array:
    """An array in a key: a NumPy array or a foreign one, of kind "b" or "i"."""

    __slots__ = ("host", "kind", "shape", "value")

    def __init__(self, value: Any, kind: str, shape: tuple[int, ...], host: bool) -> None:
        self.value, self.kind, self.shape, self.host = value, kind, shape, host


class _Bool0:
    """A 0-d boolean in a key: a new axis of length 1, indexed by ``[0]``
    (True) or ``[]`` (False), as NumPy reads it."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = value


_NEW = object()  # None in a key
_GAP = object()  # an ellipsis that stands for no axes


def _read_item(k: Any, kind: Callable[[Any], str | None] | None, nonzero: Any, extremes: Any, in_tuple: bool) -> Any:
    """One entry of a key, typed: an int, a slice, ``_NEW``, ``Ellipsis``,
    a :class:`_Bool0` or an :class:`_Array`."""
    t = type(k)
    if t is int:
        if not _INTP_MIN <= k <= _INTP_MAX:
            _out_of_intp(k)
        return k
    if t is slice:
        return k
    if k is None:
        return _NEW
    if k is Ellipsis:
        return Ellipsis
    if t is bool or isinstance(k, np.bool_):
        return _Bool0(bool(k))
    if isinstance(k, np.ndarray):
        return _host_array(k, NOT_INTEGER)
    if isinstance(k, list) or (in_tuple and isinstance(k, tuple)):
        return _host_array(sequence_array(k), INVALID_INDEX)
    if t is range:  # a sequence of integers to NumPy (probs[range(n), y])
        return _Array(np.arange(k.start, k.stop, k.step, dtype=np.intp), "i", (len(k),), True)
    if kind is not None:
        found = kind(k)
        if found is not None:
            if found == "b":
                if k.ndim == 0:
                    return _Bool0(len(_need(nonzero, "boolean")(k.reshape(1))[0]) == 1)
                return _Array(k, "b", tuple(k.shape), False)
            if found not in "iu":
                raise IndexError(NOT_INTEGER)
            if k.ndim == 0:  # an integer to NumPy: its value decides the reading's order of checks
                return _read_item(_need(extremes, "device")([k])[0][0], None, None, None, in_tuple)
            return _Array(k, "i", tuple(k.shape), False)
    if isinstance(k, np.generic) and k.dtype.kind in "iu":
        i = int(k)
    else:
        try:
            i = operator.index(k)
        except TypeError:
            raise IndexError(INVALID_INDEX) from None
    if not _INTP_MIN <= i <= _INTP_MAX:
        _out_of_intp(i)
    return i


def _out_of_intp(i: int) -> None:
    """NumPy's errors for an integer index beyond ``intp``: above it, the
    conversion's ``OverflowError``; below it, the ``IndexError`` of an
    invalid index (NumPy 2's answers, which the standard leaves open)."""
    if i > _INTP_MAX:
        raise OverflowError("Python int too large to convert to C long")
    raise IndexError(INVALID_INDEX)


def sequence_array(k: list | tuple) -> np.ndarray:
    """A list (or a tuple inside a tuple key) in a key as NumPy reads it: an
    array, ``intp`` where it is empty; ``IndexError`` where it holds
    anything but integers and booleans (a ragged one: NumPy's ValueError)."""
    host = host_data(k)  # a read: UnifiedArrays in it (a[[i, j]]) are not taken as written
    if host.size == 0 and host.dtype.kind == "f":
        return host.astype(np.intp)  # x[[]], as NumPy reads it
    if host.dtype.kind not in "iub":
        raise IndexError(INVALID_INDEX)
    return host


def _host_array(host: np.ndarray, message: str) -> Any:
    kind = host.dtype.kind
    if kind == "b":
        return _Bool0(bool(host)) if host.ndim == 0 else _Array(host, "b", host.shape, True)
    if kind not in "iu":
        raise IndexError(message)
    if host.ndim == 0:
        return int(host.astype(np.int64))  # a 0-d integer array is an integer to NumPy
    return _Array(host, "i", host.shape, True)


def _items(key: Any, kind: Callable[[Any], str | None] | None, nonzero: Any, extremes: Any) -> list[Any]:
    if type(key) is tuple:
        return [_read_item(k, kind, nonzero, extremes, True) for k in key]
    return [_read_item(key, kind, nonzero, extremes, False)]


def _dims_used(item: Any) -> int:
    if item is _NEW or item is Ellipsis or item is _GAP or type(item) is _Bool0:
        return 0
    if type(item) is _Array and item.kind == "b":
        return len(item.shape)
    return 1


class Index:
    """A key read against a shape (made by :func:`normalise`).

    ``shape`` and ``size``: what ``x[key]`` has.  For a basic key,
    ``basic`` is the canonical key (one entry per axis of x plus a ``None``
    per new axis) and ``target`` the selection's shape without the new axes,
    that is, the shape ``basic_target`` (``basic`` without its ``None``)
    selects; for any other key ``basic`` is None and :meth:`positions` gives
    the selected elements' flat positions in x.
    """

    __slots__ = (
        "basic",
        "basic_target",
        "block",
        "block_at",
        "element",
        "masked",
        "offset",
        "shape",
        "size",
        "slices",
        "sole_mask",
        "target",
        "terms",
        "value",
    )

    shape: tuple[int, ...]
    size: int
    basic: tuple | None
    # The positions: an offset, each slice's (result axis, start, step,
    # length, stride), each index array's (array, axis size, stride), and
    # the advanced block (its shape and first result axis).
    offset: int
    slices: list[tuple[int, int, int, int, int]]
    terms: list[tuple[Any, int, int]]
    block: tuple[int, ...]
    block_at: int
    basic_target: tuple
    target: tuple[int, ...]
    element: bool
    masked: bool
    value: tuple[int, ...] | None
    sole_mask: bool

    def positions(self, xp: Any, upload: Callable[[list[np.ndarray]], list[Any]] | None = None) -> Any:
        """The flat C-order positions in x of the selected elements, an int64
        array of :attr:`shape` made with ``xp`` (``numpy`` or ``mlx.core``:
        it uses ``full``, ``arange``, ``where``, ``broadcast_to``, ``int64``
        and the arrays' ``astype``, ``reshape`` and arithmetic, whose meaning
        is the same in both).  The key's NumPy index arrays are given to
        ``upload`` (all at once) for ``xp``'s versions of them; foreign
        index arrays are used as they are.  Negative indices count from the
        end; every index was checked by :func:`normalise`."""
        nd = len(self.shape)
        host = [t[0] for t in self.terms if isinstance(t[0], np.ndarray)]
        moved = iter(upload(host) if upload is not None and host else host)
        total = xp.full((1,) * nd, self.offset, dtype=xp.int64)
        if self.terms:
            block = None
            for arr, n, stride in self.terms:
                k = (next(moved) if isinstance(arr, np.ndarray) else arr).astype(xp.int64)
                k = xp.where(k < 0, k + n, k) * stride
                block = k if block is None else block + k
            lead = (1,) * self.block_at
            trail = (1,) * (nd - self.block_at - len(self.block))
            block = xp.broadcast_to(block, self.block).reshape(lead + self.block + trail)
            total = total + block
        for at, start, step, length, stride in self.slices:
            ramp = xp.arange(length, dtype=xp.int64) * (step * stride) + start * stride
            total = total + ramp.reshape((1,) * at + (length,) + (1,) * (nd - at - 1))
        return xp.broadcast_to(total, self.shape)

    def fit_value(self, value: TupleArg) -> tuple[int, ...]:
        """:func:`fit_value` for a value written at this index."""
        if self.element:
            how = "element"
        else:
            how = "mask" if self.sole_mask else "basic" if self.basic is not None else "advanced"
        return fit_value(value, self.shape, how)


def fits(value: tuple[int, ...], shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """``value`` (a shape) with the leading length-1 axes NumPy drops when
    it writes a value into a selection of ``shape``, if the rest broadcasts
    to ``shape``; else None."""
    v = tuple(value)
    while len(v) > len(shape) and v[0] == 1:
        v = v[1:]
    if len(v) <= len(shape) and all(a in (1, b) for a, b in zip(v[::-1], shape[::-1], strict=False)):
        return v
    return None


def fit_value(value: tuple[int, ...], shape: tuple[int, ...], how: str) -> tuple[int, ...]:
    """The shape of a value written into a selection of ``shape``
    (``x[key] = v``), as :func:`fits` gives it: the value then broadcasts
    to ``shape``.  ``ValueError`` in NumPy's words where it cannot: ``how``
    is "basic" (a basic key), "element" (an integer for every axis: only a
    0-d value), "advanced", or "mask" (a sole boolean array covering every
    axis, no ``...``: only a 0-d or 1-d value, else NumPy's ``TypeError``)."""
    if how == "element" and value:
        # An integer for every axis: NumPy assigns one element, from a scalar.
        raise ValueError("setting an array element with a sequence.")
    if how == "mask" and len(value) > 1:
        # x[m] = v with m covering every axis: NumPy takes only 0-d and 1-d values.
        raise TypeError(
            "NumPy boolean array indexing assignment requires a 0 or 1-dimensional input, input has "
            f"{len(value)} dimensions"
        )
    fitted = fits(value, shape)
    if fitted is not None:
        return fitted
    if how == "mask" and len(value) == 1:
        raise ValueError(
            f"NumPy boolean array indexing assignment cannot assign {value[0]} input values to the "
            f"{shape[0]} output values where the mask is true"
        )
    if how == "basic":
        raise ValueError(
            f"could not broadcast input array from shape {shape_text(value)} into shape {shape_text(shape)}"
        )
    raise ValueError(
        f"shape mismatch: value array of shape {shape_text(value)} could not be broadcast to indexing "
        f"result of shape {shape_text(shape)}"
    )


def normalise(
    shape: Sequence[int],
    key: Any,
    *,
    kind: Callable[[Any], str | None] | None = None,
    nonzero: Callable[[Any], tuple[Any, ...]] | None = None,
    extremes: Callable[[list[Any]], list[tuple[int, int]]] | None = None,
    value: tuple[int, ...] | None = None,
) -> Index:
    """``key`` read against ``shape`` as NumPy reads it: an :class:`Index`,
    or NumPy's exception (class and message) for a key NumPy refuses.

    Index arrays may be NumPy arrays, lists (nested in a tuple key, tuples
    too) or foreign arrays, which ``kind`` recognises (it returns a NumPy
    dtype kind for such an array, else None); a foreign boolean array is
    read through ``nonzero`` (its nonzero positions, as NumPy arrays or
    foreign ones: data), a foreign integer array through ``extremes`` (each
    array's min and max, all at once: its bounds, or a 0-d array's value).
    Bounds are checked only where the index arrays' broadcast is non-empty
    (NumPy reads no index otherwise).  For a write, ``value``
    is the written value's shape: it is checked (:meth:`Index.fit_value`,
    before the bounds, as NumPy orders its checks) and its fitted shape kept
    as the result's ``value``.

    >>> normalise((4, 2, 2), (slice(None), [2], [])).shape
    (4, 0)
    >>> normalise((3,), [True, False, True]).positions(np).tolist()
    [0, 2]
    """
    shape = tuple(int(n) for n in shape)
    ndim = len(shape)
    items = _items(key, kind, nonzero, extremes)
    ellipses = sum(1 for k in items if k is Ellipsis)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(_dims_used(k) for k in items)
    if used > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but {used} were indexed")
    element = not ellipses and len(items) == ndim and all(type(k) is int for k in items)
    full = slice(None)
    if ellipses:
        at = items.index(Ellipsis)
        # An ellipsis of no axes still parts advanced indices (NumPy).
        fill: list[Any] = [full] * (ndim - used)
        items[at : at + 1] = fill or [_GAP]
    else:
        items.extend([full] * (ndim - used))

    # NumPy's order: boolean shapes first, then integers and slices in turn,
    # then the broadcast of the index arrays, then their bounds.
    axis = 0
    for k in items:
        if type(k) is _Array and k.kind == "b":
            dims = shape[axis : axis + len(k.shape)]
            for i, (m, n) in enumerate(zip(k.shape, dims, strict=True)):
                if m not in (n, 0):
                    raise IndexError(
                        f"boolean index did not match indexed array along axis {axis + i}; size of axis is "
                        f"{n} but size of corresponding boolean axis is {m}"
                    )
        axis += _dims_used(k)

    # Each entry against its axes: ints and slices checked, masks expanded.
    # ("new",), ("int", axis, i), ("slice", axis, start, step, len), ("adv", axis, arr), ("mask", axis, _Array)
    entries: list[tuple] = []
    axis = 0
    for k in items:
        t = type(k)
        if t is int:
            n = shape[axis]
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {axis} with size {n}")
            entries.append(("int", axis, k + n if k < 0 else k))
            axis += 1
        elif t is slice:
            n = shape[axis]
            if k.step is not None and operator.index(k.step) == 0:
                raise ValueError("slice step cannot be zero")
            start, stop, step = k.indices(n)
            entries.append(("slice", axis, start, step, len(range(start, stop, step))))
            axis += 1
        elif k is _NEW:
            entries.append(("new",))
        elif k is _GAP:
            entries.append(("gap",))
        elif t is _Bool0:
            entries.append(("adv", None, np.zeros(1 if k.value else 0, dtype=np.intp)))
        elif k.kind == "b":
            entries.append(("mask", axis, k))
            axis += len(k.shape)
        else:
            entries.append(("adv", axis, k.value))
            axis += 1
    masked = any(e[0] == "mask" and not e[2].host for e in entries)
    trusted: set[int] = set()  # a mask's positions: in range
    if any(e[0] == "mask" for e in entries):
        # A mask is its nonzero positions (x[m] is x[m.nonzero()]): data.
        expanded: list[tuple] = []
        for e in entries:
            if e[0] != "mask":
                expanded.append(e)
                continue
            mask = e[2]
            parts = np.nonzero(mask.value) if mask.host else _need(nonzero, "boolean")(mask.value)
            trusted.update(id(p) for p in parts)
            expanded.extend(("adv", e[1] + i, where) for i, where in enumerate(parts))
        entries = expanded

    ix = Index()
    ix.masked = masked
    ix.element = element
    advanced = [i for i, e in enumerate(entries) if e[0] == "adv"]
    if not advanced:
        _basic(ix, entries, shape)
        ix.value = None if value is None else ix.fit_value(value)
        return ix

    # NumPy: integers in an advanced key are 0-d index arrays.
    entries = [("adv", e[1], e[2]) if e[0] == "int" else e for e in entries]
    advanced = [i for i, e in enumerate(entries) if e[0] == "adv"]
    arrays = [entries[i][2] for i in advanced]
    shapes = [tuple(a.shape) if not isinstance(a, int) else () for a in arrays]
    try:
        block = np.broadcast_shapes(*shapes)
    except ValueError:
        listed = "".join(shape_text(s) + " " for s, a in zip(shapes, arrays, strict=True) if not isinstance(a, int))
        raise IndexError(
            f"shape mismatch: indexing arrays could not be broadcast together with shapes {listed}"
        ) from None
    adjacent = advanced[-1] - advanced[0] == len(advanced) - 1
    strides = _strides(shape)
    out: list[int] = []
    ix.slices, ix.terms, ix.offset, ix.block = [], [], 0, block
    ix.block_at = 0 if not adjacent else sum(1 for e in entries[: advanced[0]] if e[0] in ("new", "slice"))
    if not adjacent:
        out.extend(block)
    for i, e in enumerate(entries):
        if e[0] == "adv":
            if adjacent and i == advanced[0]:
                out.extend(block)
            ax, arr = e[1], e[2]
            if ax is None:
                continue  # a 0-d boolean's new axis: its only position is 0
            if isinstance(arr, int):
                ix.offset += arr * strides[ax]
            else:
                ix.terms.append((arr, shape[ax], strides[ax]))
        elif e[0] == "new":
            out.append(1)
        elif e[0] == "slice":
            _, ax, start, step, length = e
            ix.slices.append((len(out), start, step, length, strides[ax]))
            out.append(length)
    ix.shape = tuple(out)
    ix.size = math.prod(out)
    ix.basic = None
    ix.basic_target = ()
    ix.target = ix.shape
    only = items[0] if len(items) == 1 else None
    # One boolean of the array's very shape, a 0-d one (x[False] of a 0-d x)
    # too: NumPy's boolean assignment, which takes only a 0-d or 1-d value.
    # A boolean of another shape (NumPy lets an empty one differ) goes
    # through NumPy's nonzero path, which takes any value that broadcasts.
    ix.sole_mask = (type(only) is _Array and only.kind == "b" and tuple(only.shape) == tuple(shape)) or (
        type(only) is _Bool0 and ndim == 0
    )
    # NumPy's order: a written value's shape, then the index arrays' bounds.
    ix.value = None if value is None else ix.fit_value(value)
    if math.prod(block):
        _check_bounds([entries[i] for i in advanced if id(entries[i][2]) not in trusted], shape, extremes)
    return ix


def _need(fn: Any, what: str) -> Any:
    if fn is None:
        raise TypeError(f"an index holds a {what} array this reading cannot see: pass its reader to normalise")
    return fn


def _check_bounds(adv: list[tuple], shape: tuple[int, ...], extremes: Any) -> None:
    """NumPy's IndexError for the first index array with an entry outside
    ``[-n, n)`` (foreign arrays read through ``extremes``, all at once)."""
    found: list[tuple[int, int, Any]] = []
    for _, ax, arr in adv:
        if ax is None:
            continue
        if isinstance(arr, int):
            found.append((ax, shape[ax], (arr, arr)))
        elif isinstance(arr, np.ndarray):
            if arr.size:
                found.append((ax, shape[ax], (int(arr.min()), int(arr.max()))))
        elif math.prod(arr.shape):
            found.append((ax, shape[ax], arr))
    foreign = [f[2] for f in found if not isinstance(f[2], tuple)]
    read = iter(_need(extremes, "device")(foreign) if foreign else [])
    for ax, n, ext in found:
        lo, hi = ext if isinstance(ext, tuple) else next(read)
        for bad in (hi, lo):
            if not -n <= bad < n:
                raise IndexError(f"index {bad} is out of bounds for axis {ax} with size {n}")


def _strides(shape: tuple[int, ...]) -> list[int]:
    out = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        out[i] = out[i + 1] * shape[i + 1]
    return out


def _basic(ix: Index, entries: list[tuple], shape: tuple[int, ...]) -> None:
    key: list[Any] = []
    out: list[int] = []
    target: list[int] = []
    for e in entries:
        if e[0] == "new":
            key.append(None)
            out.append(1)
        elif e[0] == "int":
            key.append(e[2])
        elif e[0] == "slice":
            _, _, start, step, length = e
            if length == 0:
                key.append(slice(0, 0, 1))
            else:
                stop = start + length * step
                key.append(slice(start, stop if stop >= 0 else None, step))
            out.append(length)
            target.append(length)
    ix.basic = tuple(key)
    ix.basic_target = tuple(k for k in key if k is not None)
    ix.shape = tuple(out)
    ix.target = tuple(target)
    ix.size = math.prod(out)
    ix.sole_mask = False
    ix.terms, ix.slices, ix.offset, ix.block, ix.block_at = [], [], 0, (), 0
    # A basic key's positions, for a backend that wants them: its slices and integers.
    strides = _strides(shape)
    at = 0
    for e in entries:
        if e[0] == "int":
            ix.offset += e[2] * strides[e[1]]
        elif e[0] == "slice":
            ix.slices.append((at, e[2], e[3], e[4], strides[e[1]]))
            at += 1
        elif e[0] == "new":
            at += 1


# -- axes ------------------------------------------------------------------------------------------


def axis_tuple(axis: Any, name: str) -> tuple[int, ...]:
    """``axis`` as given (an int, or a tuple of ints; NumPy's callers also
    pass lists) as a tuple, or a ``TypeError``."""
    axes = tuple(axis) if type(axis) in (tuple, list) else (axis,)
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, int | np.integer):
            raise TypeError(f"{name}: axis must be an int or a tuple of ints, not {axis!r}")
    return axes


def normalise_axes(axis: Any, ndim: int, name: str) -> tuple[int, ...]:
    """``axis`` (an int or a tuple of ints) as non-negative positions among
    ``ndim`` axes, for every device (a backend's own check may raise another
    class: CuPy's FFTs a ``ValueError``).  An axis out of range or given
    twice raises NumPy's ``AxisError``, which is both the ``IndexError`` the
    standard asks for and the ``ValueError`` NumPy code expects.

    >>> normalise_axes((-1, 0), 3, "flip")
    (2, 0)
    """
    try:
        return tuple(normalize_axis_tuple(axis_tuple(axis, name), ndim))
    except AxisError as exc:
        raise AxisError(f"{name}: {exc}") from None
    except ValueError:  # NumPy's "repeated axis"
        raise AxisError(f"{name}: axis {axis!r} names an axis twice") from None
