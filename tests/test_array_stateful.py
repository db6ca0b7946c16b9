"""Stateful test of arrays and their views against a NumPy model.

A base array lives on the host or on MLX, made by ``asarray`` (its buffer
made at once, or not) or by an operation (a lone result, whose buffer the
first rule that needs one makes: every rule is then also a way of making
it); views (basic slices, reshapes,
axis permutations, squeezes, expand_dims and flips of the base or of other
views) are taken at random; writes go through any view (index
assignment, in-place operators) or through the buffer's host and MLX handles
(an MLX lease kept across an array write), NumPy's out= and in-place functions, or
NumPy's np.asarray alias, in this thread or another; results
built in another thread are read here.  Host memory handed out by every
export path (``np.asarray`` and NumPy views derived from it, ``memoryview``,
DLPack, pickle protocol 5, distributed) is kept across steps and written at
random times: aliases must write through to every view on every device and
see every write, copies must do neither; an MLX value whose evaluation fails
is written into any view (it must raise and leave every view as it was).
After every step every view must read the model's values on the host and
on MLX (never stale), and a second read right after a first must move
nothing (never redundant).
"""

from __future__ import annotations

import importlib.util
import operator
import pickle
from concurrent.futures import ThreadPoolExecutor
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, rule

import unifiedarray as xp
from unifiedarray import _operators

from .conftest import DEVICES, HAS_MLX

#: A second thread, for steps run away from the thread that built the state.
OTHER_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ua-view-model")

HAS_DISTRIBUTED = importlib.util.find_spec("distributed") is not None

#: The export paths the model keeps across steps.
EXPORTS = [
    "np.asarray",
    "np.asarray(...).T",
    "np.asarray(...)[::-1]",
    "memoryview",
    "np.from_dlpack",
    "pickle 5 out of band",
    "distributed",
]

SHAPES = [(4, 5), (7,), (2, 3, 2)]  # 1-D bases reach the integer fast path with a 0-d view


def slice_strategy(n: int) -> st.SearchStrategy:
    return st.builds(slice, st.integers(0, n), st.integers(0, n), st.sampled_from([None, 1, 2, -1]))


def basic_key(shape: tuple[int, ...]) -> st.SearchStrategy:
    """A basic index into ``shape`` that keeps at least one element."""
    parts = [st.one_of(slice_strategy(n), st.integers(0, n - 1)) if n else st.just(slice(None)) for n in shape]
    if not parts:
        return st.just(())
    # A bare int or slice (not in a tuple) indexes the first axis; the host
    # fast path of __getitem__ takes exactly these.
    return st.one_of(st.tuples(*parts), parts[0])


def as_view_key(key) -> tuple:
    """``key`` for the model's index array, always giving an array (NumPy
    gives a scalar for an all-integer key without a trailing Ellipsis)."""
    return (key if type(key) is tuple else (key,)) + (Ellipsis,)


class ViewModel(RuleBasedStateMachine):
    """Each view is paired with an array of flat indices into the model
    (the base's values): slicing, reshaping and permuting the index array
    says which base elements the view shows, whether or not NumPy could
    express that view without a copy."""

    views = Bundle("views")

    @initialize(
        target=views,
        device=st.sampled_from(DEVICES),
        dtype=st.sampled_from(["float64", "int32", "float32"]),
        shape=st.sampled_from(SHAPES),
        made_by=st.sampled_from(["asarray", "asarray, its buffer made", "an operation"]),
    )
    def create(self, device, dtype, shape, made_by):
        self.device = device
        self.model = np.arange(np.prod(shape)).reshape(shape).astype(dtype)
        self.base = xp.asarray(self.model, device=device)
        if made_by == "asarray, its buffer made":
            assert self.base.buffer is self.base.buffer_made  # the premise: a buffered base
        elif made_by == "an operation":
            # A result: a lone result, with no buffer until a rule asks for
            # one (see UnifiedArray.buffer).  Twice: on MLX a signature's
            # first call is judged on the general path, the next is direct.
            zeros = xp.zeros_like(self.base)
            self.base = self.base + zeros
            self.base = self.base + zeros
            assert self.base.buffer_made is None  # the premise
        self.pairs = [(self.base, np.arange(self.model.size).reshape(shape))]
        self.aliases: list = []  # (writable alias of the host copy, flat model indices of its elements)
        self.copies: list = []  # (a copy handed out or rebuilt, its own values)
        # Two elements that the handle rules write.
        self.first, self.second = (0,) * len(shape), tuple(min(1, n - 1) for n in shape)
        return 0

    def pair(self, i):
        return self.pairs[i]

    def values(self, idx):
        return self.model.reshape(-1)[idx]

    def set_values(self, idx, values):
        flat = self.model.reshape(-1)  # a view: writes reach the model
        flat[idx] = values

    def add(self, arr, idx):
        assert arr.device == self.device
        self.pairs.append((arr, idx))
        return len(self.pairs) - 1

    @rule(target=views, parent=views, data=st.data())
    def take_view(self, parent, data):
        arr, idx = self.pair(parent)
        if idx.ndim == 0:
            return parent
        key = data.draw(basic_key(idx.shape))
        view, sub = arr[key], idx[as_view_key(key)]
        assert view.shape == sub.shape
        if sub.ndim == 0 and Ellipsis not in (key if type(key) is tuple else (key,)):
            # An integer for every axis: a 0-d copy, as NumPy's scalar (so
            # a later write must not show through it).
            assert not view.is_view and view.device == self.device
            np.testing.assert_array_equal(np.asarray(view), self.values(sub))
            return parent
        assert view.is_view
        return self.add(view, sub)

    @rule(target=views, parent=views, data=st.data())
    def reshape_view(self, parent, data):
        arr, idx = self.pair(parent)
        shapes = [(-1,), (1, -1), idx.shape[::-1], (*idx.shape, 1)]
        if idx.size % 2 == 0 and idx.size:
            shapes.append((2, -1))
        shape = data.draw(st.sampled_from(shapes))
        view, sub = xp.reshape(arr, shape), idx.reshape(shape)
        assert view.shape == sub.shape and view.is_view
        return self.add(view, sub)

    @rule(target=views, parent=views, data=st.data())
    def permute_view(self, parent, data):
        arr, idx = self.pair(parent)
        if idx.ndim < 2:
            return parent
        axes = tuple(data.draw(st.permutations(range(idx.ndim))))
        which = data.draw(st.sampled_from(["permute_dims", "mT", "T"] if idx.ndim == 2 else ["permute_dims", "mT"]))
        if which == "permute_dims":
            view, sub = xp.permute_dims(arr, axes), np.transpose(idx, axes)
        elif which == "mT":
            view, sub = arr.mT, np.swapaxes(idx, -1, -2)
        else:
            view, sub = arr.T, idx.T
        assert view.shape == sub.shape and view.is_view
        return self.add(view, sub)

    @rule(target=views, parent=views, data=st.data())
    def squeeze_expand_or_flip_view(self, parent, data):
        arr, idx = self.pair(parent)
        which = data.draw(st.sampled_from(["squeeze", "expand_dims", "flip"]))
        if which == "squeeze":
            singletons = [i for i, d in enumerate(idx.shape) if d == 1]
            if not singletons:
                return parent
            axis = tuple(data.draw(st.lists(st.sampled_from(singletons), min_size=1, unique=True)))
            view, sub = xp.squeeze(arr, axis=axis), np.squeeze(idx, axis=axis)
        elif which == "expand_dims":
            axis = data.draw(st.integers(-idx.ndim - 1, idx.ndim))
            view, sub = xp.expand_dims(arr, axis=axis), np.expand_dims(idx, axis)
        else:
            axis = data.draw(st.none() | st.lists(st.integers(0, max(idx.ndim - 1, 0)), unique=True).map(tuple))
            if axis and not idx.ndim:
                return parent
            view, sub = xp.flip(arr, axis=axis), np.flip(idx, axis=axis)
        assert view.shape == sub.shape and view.is_view
        return self.add(view, sub)

    @rule(v=views, value=st.integers(-50, 50))
    def assign_all(self, v, value):
        arr, idx = self.pair(v)
        arr[...] = value
        self.set_values(idx, value)

    @rule(v=views, data=st.data(), value=st.integers(-50, 50))
    def assign_part(self, v, data, value):
        arr, idx = self.pair(v)
        if idx.ndim == 0:
            return
        key = data.draw(basic_key(idx.shape))
        arr[key] = value
        self.set_values(idx[as_view_key(key)], value)

    @rule(v=views, value=st.integers(1, 3))
    def in_place_add(self, v, value):
        arr, idx = self.pair(v)
        arr += value
        self.set_values(idx, self.values(idx) + np.asarray(value, dtype=self.model.dtype))

    @rule(v=views)
    def in_place_from_array(self, v):
        arr, idx = self.pair(v)
        other = xp.ones_like(arr)
        arr *= other + other
        self.set_values(idx, self.values(idx) * 2)

    @rule(v=views, how=st.sampled_from(["ufunc out=", "function out=", "positional out", "copyto"]))
    def numpy_writes_into_a_view(self, v, how):
        """NumPy's out= (by keyword or by position) and its in-place
        functions write through the buffer, on every device."""
        arr, idx = self.pair(v)
        if idx.ndim == 0 and how != "ufunc out=":
            return
        old = self.values(idx)
        if how == "ufunc out=":
            np.multiply(arr, 2, out=arr)
            new = old * 2
        elif how == "function out=":
            np.clip(arr, 3, 20, out=arr)
            new = np.clip(old, 3, 20)
        elif how == "positional out":
            np.clip(arr, -5, 5, arr)
            new = np.clip(old, -5, 5)
        else:
            np.copyto(arr, 7)
            new = np.full_like(old, 7)
        self.set_values(idx, new)

    @rule(value=st.integers(-9, 9))
    def write_through_numpys_alias(self, value):
        """np.asarray is a writable alias on every device."""
        alias = np.asarray(self.base)
        alias[self.first] = value
        self.model[self.first] = value

    # -- host memory handed out, kept across steps ------------------------------------
    @rule(v=views, how=st.sampled_from(EXPORTS))
    def export(self, v, how):
        arr, idx = self.pair(v)
        if how in ("pickle 5 out of band", "distributed"):
            if how == "distributed" and not HAS_DISTRIBUTED:
                return
            self.copies.append((self.rebuilt(arr, how), self.values(idx).copy()))
            return
        if how == "np.from_dlpack":
            if self.device.startswith("cuda"):
                return  # NumPy takes no CUDA capsule
            if self.device.startswith("sealed"):
                with pytest.raises(BufferError):  # a memory space that exports no DLPack says so
                    np.from_dlpack(arr)
                return
            out = np.from_dlpack(arr)
        else:
            out = np.asarray(arr)
            if how == "np.asarray(...).T":
                out, idx = out.T, idx.T
            elif how == "np.asarray(...)[::-1]" and idx.ndim:
                out, idx = out[::-1], idx[::-1]
            elif how == "memoryview":
                if not out.flags.c_contiguous or not out.ndim:
                    return
                out, idx = memoryview(out.reshape(-1)), idx.reshape(-1)
        np.testing.assert_array_equal(np.asarray(out), self.values(idx))
        if not np.size(idx):
            return  # nothing to write through
        host = self.base.buffer._copies.get(xp.Device.parse("cpu"))
        if host is not None and np.shares_memory(np.asarray(out), host):
            # An alias on every device (np.asarray), or on the host (DLPack):
            # writable, and it sees every write.
            assert not out.readonly if isinstance(out, memoryview) else out.flags.writeable
            self.aliases.append((out, idx))
        elif how != "np.from_dlpack":
            # A copy: np.asarray of a view NumPy cannot express, read-only.
            assert out.readonly if isinstance(out, memoryview) else not out.flags.writeable
            self.copies.append((out, self.values(idx).copy()))
        # (DLPack on MLX hands out a copy on the array's own device; NumPy's
        # imports of MLX's DLPack are not kept across steps: see the buffer model.)

    def rebuilt(self, arr, how):
        """An array rebuilt in this process from arr's read-only frames:
        a copy, on arr's device."""
        if how == "distributed":
            from distributed.protocol import deserialize, serialize

            header, frames = serialize(arr)
            self.frames_of_live_memory_refuse_writes([f for f in frames if isinstance(f, memoryview)])
            out = deserialize(header, frames)
        else:
            bufs: list = []
            out = pickle.loads(pickle.dumps(arr, protocol=5, buffer_callback=bufs.append), buffers=bufs)
            self.frames_of_live_memory_refuse_writes([b.raw() for b in bufs])
        assert out.device == arr.device
        return out

    def frames_of_live_memory_refuse_writes(self, frames):
        host = self.base.buffer._copies.get(xp.Device.parse("cpu"))
        for frame in frames:  # a writable frame is a copy (of a view that is not one block)
            if frame.nbytes and not frame.readonly and host is not None:
                assert not np.shares_memory(np.asarray(frame), host)

    @rule(data=st.data(), value=st.integers(-9, 9), other_thread=st.booleans())
    def write_an_export(self, data, value, other_thread):
        kept = self.aliases + self.copies
        if not kept:
            return
        i = data.draw(st.integers(0, len(kept) - 1))
        out, what = kept[i]
        if not np.size(what):
            return
        where = np.unravel_index(data.draw(st.integers(0, np.size(what) - 1)), np.shape(what))
        if isinstance(out, np.ndarray) and not out.flags.writeable:
            return  # a read-only copy

        def write():
            out[where] = value

        OTHER_THREAD.submit(write).result(timeout=60) if other_thread else write()
        if i < len(self.aliases):
            self.set_values(what[where], value)  # an alias: the array sees it
        else:
            what[where] = value  # a copy: its own data only

    @rule(data=st.data())
    def drop_an_export(self, data):
        kept = self.aliases if data.draw(st.booleans()) else self.copies
        if kept:
            del kept[data.draw(st.integers(0, len(kept) - 1))]  # the last alias gone, the buffer is unexported

    @rule()
    def read_the_mlx_copy(self):
        """The base's MLX copy, read (a host-placed base then has two valid
        copies, and every later write must end the other one)."""
        if "mlx" not in DEVICES:
            return
        np.testing.assert_array_equal(np.array(self.base.buffer.read("mlx")), self.model)

    @rule(value=st.integers(-9, 9))
    def write_host_handle(self, value):
        self.base.buffer.host[self.first] = value
        self.model[self.first] = value

    def refuses_mlx_handle(self):
        """While a host alias lives, a writable MLX handle is refused."""
        if not self.aliases:
            return False
        with pytest.raises(BufferError, match="alias"):
            _ = self.base.buffer.mlx
        return True

    @rule(value=st.integers(-9, 9))
    def write_mlx_handle(self, value):
        if "mlx" not in DEVICES or self.refuses_mlx_handle():
            return
        import mlx.core as mx

        handle = self.base.buffer.mlx
        handle[self.second] = mx.array(value, dtype=handle.dtype)
        self.model[self.second] = value

    @rule(v=views, data=st.data(), first=st.integers(-9, 9), second=st.integers(-9, 9))
    def mlx_lease_around_an_array_write(self, v, data, first, second):
        """A ``buf.mlx`` lease taken before an array write stays valid after
        it (the write is on MLX: MLX stays the only valid copy), so a write
        through the lease after the array write reaches the buffer."""
        if self.device != "mlx" or self.refuses_mlx_handle():
            return
        import mlx.core as mx

        arr, idx = self.pair(v)
        handle = self.base.buffer.mlx
        handle[self.first] = mx.array(first, dtype=handle.dtype)
        self.model[self.first] = first
        if idx.ndim:
            key = data.draw(basic_key(idx.shape))
            arr[key] = second
            self.set_values(idx[as_view_key(key)], second)
        else:
            arr[...] = second
            self.set_values(idx, second)
        handle[self.second] = mx.array(first + second, dtype=handle.dtype)
        self.model[self.second] = first + second

    @rule(v=views, data=st.data(), value=st.integers(-50, 50))
    def assign_in_another_thread(self, v, data, value):
        arr, idx = self.pair(v)
        key = data.draw(basic_key(idx.shape)) if idx.ndim else Ellipsis

        def write():
            arr[key] = value

        OTHER_THREAD.submit(write).result(timeout=60)
        self.set_values(idx[as_view_key(key)] if idx.ndim else idx, value)

    @rule(v=views, how=st.sampled_from(["setitem", "in-place add", "in-place multiply", "part"]))
    def a_value_that_fails_at_evaluation_never_lands(self, v, how):
        """MLX failure injection: the value is an MLX array whose evaluation
        fails (LAPACK's SVD of NaN under it), as a user's array may be.  The
        write raises; no view changes.  Run off MLX's main thread, where each
        failure may leave MLX's task count high (see mlx_evaluation)."""
        if not HAS_MLX:
            return
        import mlx.core as mx

        from unifiedarray.backends import mlx_evaluation

        arr, idx = self.pair(v)

        def write():
            with mlx_evaluation.compute_context():
                nan = mx.array([[1.0, float("nan")], [0.0, 1.0]], dtype=mx.float32)
                bad = mx.sum(mx.linalg.svd(nan, compute_uv=False)) == 0
                zeros = mx.zeros(idx.shape, dtype=mlx_evaluation.mx_dtype(self.model.dtype))
                value = mx.where(bad, zeros, zeros)
            with pytest.raises(RuntimeError, match="SVD"):
                if how == "setitem":
                    arr[...] = value
                elif how == "in-place add":
                    operator.iadd(arr, value)
                elif how == "in-place multiply":
                    operator.imul(arr, value)
                elif idx.ndim and idx.shape[-1]:
                    arr[..., 0] = value[..., 0]
                elif idx.ndim:
                    arr[...] = value  # no element on the last axis to write a part of
                else:
                    arr[()] = value

        OTHER_THREAD.submit(write).result(timeout=60)

    @rule(v=views, data=st.data(), how=st.sampled_from(["float", "int", "bool", "format"]))
    def read_python_scalars(self, v, data, how):
        # After whatever wrote last: an element of a view, a whole reduction
        # (a result read as a scalar: its element copied out alone) and the
        # view itself where it holds one element.
        arr, idx = self.pair(v)
        if arr.size == 0:
            return
        read = {"float": float, "int": int, "bool": bool, "format": lambda a: format(a, ".6g")}[how]
        values = self.values(idx)
        key = tuple(data.draw(st.integers(0, n - 1)) for n in arr.shape)
        assert read(arr[key]) == read(values[key])
        total = xp.sum(arr)
        if data.draw(st.booleans(), label="the sum's buffer made"):
            total.buffer  # noqa: B018  (read through UnifiedBuffer.element)
        with xp.track_transfers() as t:
            assert read(total) == read(values.sum(dtype=values.dtype))
            assert read(total) == read(values.sum(dtype=values.dtype))  # read twice: the same
        # The element alone, each time, from where the sum is: never more.
        assert all(r.nbytes == total.dtype.itemsize for r in t.records)
        assert len(t.records) == (0 if self.device == "cpu" else 2)
        if arr.size == 1 and (arr.ndim == 0 or how == "bool"):
            assert read(arr) == read(values)

    @rule(v=views)
    def expression_of_temporaries(self, v):
        arr, idx = self.pair(v)
        # Each intermediate is a temporary the next operator may write into;
        # arr, a named view, never is.
        res = ((arr * 2) + 1) * 3 - arr
        expected = ((self.values(idx) * 2) + 1) * 3 - self.values(idx)
        np.testing.assert_array_equal(np.asarray(res), expected)

    @rule(v=views)
    def compute_in_one_thread_read_in_another(self, v):
        arr, idx = self.pair(v)
        doubled = OTHER_THREAD.submit(lambda: arr * 2 + 1).result(timeout=60)  # built there ...
        expected = self.values(idx) * 2 + 1
        np.testing.assert_array_equal(np.asarray(doubled), expected)  # ... read here

    @invariant()
    def every_view_reads_the_model_on_every_device(self):
        if not hasattr(self, "pairs"):
            return
        # First (no library call has synced anything yet): every alias has
        # seen every write, on whichever device it was made.
        for out, idx in self.aliases:
            np.testing.assert_array_equal(np.asarray(out), self.values(idx))
        for arr, idx in self.pairs:
            expected = self.values(idx)
            np.testing.assert_array_equal(np.asarray(arr), expected)
            if self.device != "cpu":
                on_device = xp.asarray(arr)  # computes where arr lives
                np.testing.assert_array_equal(np.asarray(xp.asarray(on_device * 1)), expected)
        if "mlx" in self.base.buffer.valid_devices:
            # A copy the buffer calls valid holds the model's values, whichever
            # copy was written last (a write that missed it would leave it stale).
            np.testing.assert_array_equal(np.array(self.base.buffer.read("mlx")), self.model)
        with xp.track_transfers() as t:
            for arr, _ in self.pairs:
                np.asarray(arr)
        assert t.count == 0, "a second read moved data"
        for out, values in self.copies:  # a copy sees none
            np.testing.assert_array_equal(np.asarray(out), values)


ViewModel.TestCase.settings = settings(
    max_examples=60, stateful_step_count=12, deadline=None, suppress_health_check=list(HealthCheck)
)
TestViewModel = ViewModel.TestCase


class ViewModelWithLargeArrayPaths(ViewModel):
    """The same model with the size threshold of the host's large-array
    paths at 0, so that on these small arrays every in-place operator writes
    in place and every temporary may lend its memory."""

    def __init__(self):
        self._threshold = mock.patch.object(_operators, "ELIDE_BYTES", 0)
        self._threshold.start()
        super().__init__()

    def teardown(self):
        self._threshold.stop()
        super().teardown()


ViewModelWithLargeArrayPaths.TestCase.settings = ViewModel.TestCase.settings
TestViewModelWithLargeArrayPaths = ViewModelWithLargeArrayPaths.TestCase


@pytest.mark.parametrize("device", DEVICES)
def test_write_through_view_of_view_reaches_base(device):
    x = xp.asarray(np.arange(20.0).reshape(4, 5), device=device)
    v = x[1:, ::2]
    w = v[1:, 1]
    w[...] = -1.0
    expected = np.arange(20.0).reshape(4, 5)
    expected[1:, ::2][1:, 1] = -1.0
    np.testing.assert_array_equal(np.asarray(x), expected)
    np.testing.assert_array_equal(np.asarray(v), expected[1:, ::2])


@pytest.mark.parametrize("device", DEVICES)
def test_views_share_one_buffer(device):
    x = xp.zeros((3, 3), device=device)
    v = x[0]
    assert v.is_view and v.buffer is x.buffer and v.device == device
    x[0, 1] = 5.0
    assert float(v[1]) == 5.0


@pytest.mark.parametrize("device", DEVICES)
def test_reshape_and_transposes_are_views_and_other_results_own_their_memory(device):
    x = xp.asarray(np.arange(6.0), device=device)
    r = xp.reshape(x, (2, 3), copy=False)  # a view: nothing is copied
    t = xp.permute_dims(r, (1, 0))
    with xp.track_transfers() as ledger:
        views = [r, t, r.T, r.mT, xp.matrix_transpose(r), xp.reshape(t, (-1,))]
    assert ledger.count == 0 and all(v.is_view and v.buffer is x.buffer for v in views)
    x[0] = 100.0
    assert [float(v.reshape(-1)[0]) for v in views] == [100.0] * len(views)
    t[2, 1] = -5.0  # r[1, 2], x[5]
    assert float(x[5]) == -5.0 and float(r[1, 2]) == -5.0
    c = xp.reshape(x, (3, 2), copy=True)
    x[2] = 8.0
    assert not c.is_view and float(c[1, 0]) == 2.0


@pytest.mark.parametrize("device", DEVICES)
def test_squeeze_expand_dims_and_flip_are_views_both_ways(device):
    x = xp.asarray(np.arange(6.0).reshape(2, 3), device=device)
    expected = np.arange(6.0).reshape(2, 3)
    with xp.track_transfers() as ledger:
        e = xp.expand_dims(x, axis=(0, -1))  # (1, 2, 3, 1)
        s = xp.squeeze(e, axis=(0, 3))  # (2, 3)
        f = xp.flip(x, axis=1)
        ff = xp.flip(f)  # x flipped along axis 0 (axis 1 twice)
    assert ledger.count == 0 and all(v.is_view and v.buffer is x.buffer for v in (e, s, f, ff))
    assert (e.shape, s.shape, f.shape) == ((1, 2, 3, 1), (2, 3), (2, 3))
    f[0, 0] = -1.0  # x[0, 2]
    e[0, 1, 0, 0] = -2.0  # x[1, 0]
    ff[0, 2] = -3.0  # x[1, 2]
    s[0, 0] = -4.0  # x[0, 0]
    expected[0, 2], expected[1, 0], expected[1, 2], expected[0, 0] = -1.0, -2.0, -3.0, -4.0
    np.testing.assert_array_equal(np.asarray(x), expected)
    np.testing.assert_array_equal(np.asarray(ff), expected[::-1])
    x[0, 1] = expected[0, 1] = 9.0  # and the other way
    assert float(f[0, 1]) == 9.0 and float(e[0, 0, 1, 0]) == 9.0 and float(ff[1, 1]) == 9.0
    with pytest.raises(ValueError, match="size 3"):
        xp.squeeze(x, axis=1)
    with pytest.raises(IndexError):
        xp.expand_dims(x, axis=3)
    with pytest.raises(IndexError):
        xp.expand_dims(x, axis=(1, -3))  # the same position twice
    with pytest.raises(IndexError):
        xp.flip(x, axis=2)
    for bad in (np.array([0, 1]), (True,), 1.5):
        with pytest.raises(TypeError):
            xp.expand_dims(x, axis=bad)
    np.testing.assert_array_equal(np.asarray(x), expected)  # the errors changed nothing
    # NumPy's callers pass lists of axes too.
    assert np.expand_dims(x, [0, 1]).shape == (1, 1, 2, 3) and np.expand_dims(x, []).shape == (2, 3)
    np.testing.assert_array_equal(np.asarray(np.expand_dims(x, [0, 3])), np.expand_dims(expected, [0, 3]))


def test_bad_indices_raise_index_error_and_corrupt_nothing():
    for device in DEVICES:
        x = xp.asarray(np.arange(6.0), device=device)
        with pytest.raises(IndexError):
            x[6]
        with pytest.raises(IndexError):
            x[0, 0]
        with pytest.raises(IndexError):
            x[..., ...]
        with pytest.raises(TypeError):
            x[0] = 1j  # a complex into a float array changes kind
        with pytest.raises(TypeError), xp.strict():
            # A complex array into a float one: strict mode refuses it (the
            # default mode casts, as NumPy does, with NumPy's ComplexWarning).
            x[0] = xp.asarray([1], dtype=xp.int64)[0] * 1.5 + xp.asarray(1j)
        assert np.asarray(x).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
