"""Index keys (:mod:`unifiedarray._index`): one reading, NumPy's, for every
device.

* The reading itself against NumPy: the shape, the element positions and the
  exception (class and message) of every drawn key.
* ``x[key]`` and ``x[key] = v`` on every device (the host, MLX, the simulated
  ``cuda:0``) against NumPy: values, shapes and exception classes, for keys
  with ``None``, ``...``, booleans (0-d too), integer arrays (negative, out of
  range, empty, repeated, on the host or on the device), empty and
  negative-step slices, and values that are scalars, arrays of the selected
  shape or shapes that broadcast to it (or do not).  The devices run in a
  worker process, so that a crash (MLX has died with SIGFPE on some empty
  scatters) fails the test, naming the case, instead of killing the run.
* Each example of issue 20, section 3, as a regression test.
"""

from __future__ import annotations

import base64
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as npst

import unifiedarray as xp
from unifiedarray._index import basic_shape, normalise, view_key

from . import conftest
from .conftest import DEVICES

ROOT = Path(__file__).resolve().parent.parent

# -- keys -----------------------------------------------------------------------------------------

SHAPES = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


@st.composite
def integer_arrays(draw: Any, n: int) -> np.ndarray:
    """An index array for an axis of size ``n``: in range mostly, one past
    either end sometimes, empty sometimes, in several integer dtypes."""
    shape = draw(st.sampled_from([(), (1,), (2,), (0,), (3,), (2, 1), (1, 2)]))
    dtype = draw(st.sampled_from([np.int64, np.int32, np.int8, np.uint8]))
    low = 0 if dtype is np.uint8 else -n - 1
    size = int(np.prod(shape))
    values = draw(st.lists(st.integers(low, n), min_size=size, max_size=size))
    return np.asarray(values, dtype=dtype).reshape(shape)


@st.composite
def keys(draw: Any, shape: tuple[int, ...]) -> Any:
    """A key for an array of ``shape``: any mix of NumPy's index kinds,
    valid mostly; too many indices, two ellipses, out-of-range integers and
    mismatched masks sometimes."""
    ndim = len(shape)
    items: list[Any] = []
    axis = 0
    for _ in range(draw(st.integers(0, ndim + 2))):
        n = shape[axis] if axis < ndim else 3
        kind = draw(
            st.sampled_from(["int", "slice", "slice", "none", "ellipsis", "bool", "array", "array", "mask", "list"])
        )
        if kind == "int":
            items.append(draw(st.integers(-n - 1, n)))
        elif kind == "slice":
            bound = st.none() | st.integers(-n - 2, n + 2)
            items.append(slice(draw(bound), draw(bound), draw(st.none() | st.sampled_from([-3, -2, -1, 1, 2, 3]))))
        elif kind == "none":
            items.append(None)
        elif kind == "ellipsis":
            items.append(Ellipsis)
        elif kind == "bool":
            items.append(draw(st.booleans()))
        elif kind == "array":
            items.append(draw(integer_arrays(n)))
        elif kind == "mask":
            k = draw(st.integers(1, 2))
            dims = tuple(shape[axis + i] if axis + i < ndim else 2 for i in range(k))
            # mostly the axes' sizes; 0 (allowed) or 1 (a mismatch, mostly) now and then
            dims = tuple(d if draw(st.integers(0, 5)) else draw(st.sampled_from([0, 1])) for d in dims)
            size = int(np.prod(dims))
            values = draw(st.lists(st.booleans(), min_size=size, max_size=size))
            items.append(np.asarray(values, dtype=bool).reshape(dims))
            axis += k - 1
        else:
            items.append(draw(st.lists(st.integers(-n - 1, n), max_size=3)))  # [] included
        axis += kind in ("int", "slice", "array", "list", "mask")
    if len(items) == 1 and draw(st.booleans()):
        return items[0]
    return tuple(items)


@st.composite
def shapes_and_keys(draw: Any) -> tuple[tuple[int, ...], Any]:
    shape = draw(SHAPES)
    key = draw(
        keys(shape)
        | npst.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True)
        | (npst.integer_array_indices(shape) if shape and all(shape) else keys(shape))
    )
    return shape, key


def outcome(fn: Any) -> tuple:
    """("ok", value) or ("error", class name, message)."""
    try:
        return ("ok", fn())
    except MemoryError:
        raise  # never an answer: a test that allocates hugely must fail, naming its example
    except Exception as exc:
        return ("error", type(exc).__name__, str(exc))


# -- the reading against NumPy ---------------------------------------------------------------------


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=shapes_and_keys())
def test_the_reading_is_numpys_shape_positions_and_error(case: tuple) -> None:
    shape, key = case
    positions = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    expected = outcome(lambda: np.asarray(positions[key]))
    got = outcome(lambda: normalise(shape, key))
    assert got[0] == expected[0], (shape, key, expected, got)
    if expected[0] == "error":
        assert got[1] == expected[1], (shape, key, expected, got)
        if "out of bounds" not in expected[2]:  # NumPy names the first bad entry, this the extreme one
            assert got[2] == expected[2], (shape, key, expected, got)
        return
    ix = got[1]
    assert ix.shape == expected[1].shape and ix.size == expected[1].size
    np.testing.assert_array_equal(ix.positions(np), expected[1])
    if ix.basic is not None:
        # The canonical key selects the same elements, and so does its form without new axes.
        np.testing.assert_array_equal(positions[ix.basic], expected[1])
        assert positions[ix.basic_target].shape == ix.target
        assert all(k is None or type(k) is slice or k >= 0 for k in ix.basic)


BOUNDS = st.none() | st.integers(-7, 7) | st.sampled_from([np.int64(2), np.int8(-1), 1.5])  # __index__, and not
ITEMS = st.builds(slice, BOUNDS, BOUNDS, st.none() | st.integers(-3, 3)) | st.none() | st.integers(-6, 6)


@settings(max_examples=300, deadline=None)
@given(shape=st.lists(st.integers(0, 5), max_size=3).map(tuple), items=st.lists(ITEMS | st.just(Ellipsis), max_size=4))
def test_basic_shape_is_numpys_shape_or_error(shape: tuple[int, ...], items: list) -> None:
    # The dispatch's shortcut for views' shapes (slices, new axes, then ...) included.
    key = view_key(tuple(items))
    expected = outcome(lambda: np.empty(shape)[key].shape)
    got = outcome(lambda: basic_shape(shape, key))
    assert got[:2] == expected[:2]


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=shapes_and_keys(), data=st.data())
def test_a_written_value_is_checked_as_numpy_checks_it(case: tuple, data: st.DataObject) -> None:
    """The value's shape against the selection (NumPy's broadcast, leading
    1s dropped; one element takes only a scalar), in NumPy's order (after
    the key, before the index arrays' bounds), with NumPy's exception."""
    shape, key = case
    read = outcome(lambda: np.empty(shape)[key].shape)
    value_shape = data.draw(value_shapes(read[1] if read[0] == "ok" else (2,)))
    _check_written_value(shape, key, value_shape)


@pytest.mark.parametrize(
    "shape,key,value_shape",
    [
        ((), (False,), (1, 0)),  # a 0-d boolean over a 0-d array is a mask: only a 0-d or 1-d value (MLX took it)
        ((), (np.True_,), (1, 1)),
        ((), (np.asarray(False),), (2,)),
        ((), (Ellipsis, False), (1, 0)),  # with the ellipsis NumPy takes it
        ((3,), (False,), (1, 0)),
    ],
)
def test_a_value_written_through_a_0d_boolean_is_checked_as_numpy_checks_it(
    shape: tuple, key: tuple, value_shape: tuple
) -> None:
    _check_written_value(shape, key, value_shape)


@pytest.mark.parametrize("device", DEVICES)
def test_a_0d_boolean_writes_into_a_0d_array_as_numpy_on_every_device(device: str) -> None:
    a = np.zeros(())
    for key, value_shape in [(False, (1, 0)), (True, (1, 1)), (True, (2,)), (True, (1,))]:
        expected = outcome(lambda: a.__setitem__(key, np.ones(value_shape)))  # noqa: B023
        x = xp.zeros((), device=device)
        got = outcome(lambda: x.__setitem__(key, xp.ones(value_shape, device=device)))  # noqa: B023
        assert got[:2] == expected[:2], (device, key, value_shape, got, expected)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "shape,mask_shape",
    [((1, 0), (0, 0)), ((1, 2), (1, 0)), ((2, 3), (2, 3)), ((3,), (3,)), ((2, 0), (2, 1))],
)
def test_a_mask_of_another_shape_writes_as_numpy_on_every_device(device: str, shape: tuple, mask_shape: tuple) -> None:
    """NumPy's boolean assignment (0-d or 1-d values only) is for a mask of
    the array's very shape; an empty mask of another shape goes through its
    nonzero path and takes any value that broadcasts."""
    for value_shape in [(1, 0), (2,), (), (1, 1)]:
        a = np.zeros(shape)
        k = np.zeros(mask_shape, dtype=bool)
        expected = outcome(lambda: a.__setitem__(k, np.ones(value_shape)))  # noqa: B023
        x = xp.zeros(shape, device=device)
        key = xp.asarray(k, device=device)
        got = outcome(lambda: x.__setitem__(key, xp.ones(value_shape, device=device)))  # noqa: B023
        assert got[:2] == expected[:2], (device, shape, mask_shape, value_shape, got, expected)


def _check_written_value(shape: tuple, key: Any, value_shape: tuple) -> None:
    x = np.zeros(shape)

    def write() -> None:
        x[key] = np.ones(value_shape)

    expected, got = outcome(write), outcome(lambda: normalise(shape, key, value=value_shape))
    assert got[0] == expected[0], (shape, key, value_shape, expected, got)
    if expected[0] == "error":
        assert got[1] == expected[1], (shape, key, value_shape, expected, got)
        if "out of bounds" not in expected[2]:
            assert got[2] == expected[2], (shape, key, value_shape, expected, got)
    else:
        ix = got[1]
        assert ix.value is not None
        assert np.broadcast_to(np.ones(value_shape).reshape(ix.value), ix.shape).shape == x[key].shape


@st.composite
def value_shapes(draw: Any, selected: tuple[int, ...]) -> tuple[int, ...]:
    """The selection's shape; some axes 1; a suffix; leading 1s; or one
    axis one longer (which does not fit, mostly)."""
    how = draw(st.sampled_from(["same", "ones", "suffix", "lead", "wrong", "scalar"]))
    if how == "scalar":
        return ()
    if how == "ones":
        return tuple(1 if draw(st.booleans()) else n for n in selected)
    if how == "suffix":
        return selected[draw(st.integers(0, len(selected))) :]
    if how == "lead":
        return (1,) * draw(st.integers(1, 2)) + selected
    if how == "wrong" and selected:
        i = draw(st.integers(0, len(selected) - 1))
        return (*selected[:i], selected[i] + 1, *selected[i + 1 :])
    return selected


# -- every device against NumPy, behind a crash guard ----------------------------------------------


def _on_device(k: Any, device: str) -> Any:
    return xp.asarray(k, device=device) if isinstance(k, np.ndarray) and k.ndim else k


def run_case(case: dict, device: str | None) -> tuple:
    """A case's outcome on ``device`` (a UnifiedArray there), or in NumPy
    (``device`` None): the read's value, or the array after the write."""
    base = np.arange(int(np.prod(case["shape"])), dtype=case["dtype"]).reshape(case["shape"])
    key, value = case["key"], case["value"]
    if device is None:
        x: Any = base.copy()
    else:
        x = xp.asarray(base, device=device)
        if case["index_on_device"]:
            key = tuple(_on_device(k, device) for k in key) if type(key) is tuple else _on_device(key, device)
        if isinstance(value, np.ndarray):
            value = xp.asarray(value, device=device)

    def act() -> np.ndarray:
        if case["op"] == "get":
            return np.asarray(x[key]).copy()
        x[key] = value
        return np.asarray(x).copy()

    return outcome(act)


def worker() -> None:
    """The device side of the fuzz, in its own process: reads batches of
    cases (one pickled list per line), writes each case's outcomes (one
    pickled dict per line, flushed at once, so that the case that kills the
    process is the one whose answer is missing)."""
    if os.environ.get("UNIFIEDARRAY_INDEX_FUZZ_CUDA") == "sim":
        from tests import cudasim

        cudasim.activate()
    devices = os.environ["UNIFIEDARRAY_INDEX_FUZZ_DEVICES"].split(",")
    for line in sys.stdin:
        for case in pickle.loads(base64.b64decode(line)):
            answers = {dev: run_case(case, dev) for dev in devices}
            sys.stdout.write(base64.b64encode(pickle.dumps(answers)).decode() + "\n")
            sys.stdout.flush()


class Worker:
    """A worker process (restarted after a crash)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None

    def start(self) -> subprocess.Popen:
        if self.proc is not None and self.proc.poll() is not None:
            self.stop()  # it died: close its pipes before starting another
        if self.proc is None:
            env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
            env["UNIFIEDARRAY_INDEX_FUZZ_DEVICES"] = ",".join(DEVICES)
            if conftest.CUDA_SIMULATED:
                env["UNIFIEDARRAY_INDEX_FUZZ_CUDA"] = "sim"
            self.proc = subprocess.Popen(
                [sys.executable, "-c", "from tests.test_index import worker; worker()"],
                cwd=ROOT,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
        return self.proc

    def run(self, cases: list[dict]) -> list[dict]:
        proc = self.start()
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(base64.b64encode(pickle.dumps(cases)).decode() + "\n")
        proc.stdin.flush()
        answers = []
        for case in cases:
            line = proc.stdout.readline()
            if not line:
                code = proc.wait()
                self.stop()
                pytest.fail(f"the process died (exit {code}) on {describe(case)}")
            answers.append(pickle.loads(base64.b64decode(line)))
        return answers

    def stop(self) -> None:
        """End the worker (closing its input ends it) and close both pipes."""
        if self.proc is None:
            return
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()
        self.proc.wait(timeout=30)
        self.proc = None


@pytest.fixture(scope="module")
def device_worker() -> Any:
    w = Worker()
    yield w
    w.stop()


def describe(case: dict) -> str:
    what = "x[key]" if case["op"] == "get" else f"x[key] = {case['value']!r}"
    where = "on the device" if case["index_on_device"] else "as host data"
    return f"{what} for x of shape {case['shape']} ({case['dtype'].__name__}), key {case['key']!r} (arrays {where})"


@st.composite
def cases(draw: Any) -> dict:
    shape, key = draw(shapes_and_keys())
    dtype = draw(st.sampled_from([np.float64, np.int32]))
    case = {"shape": shape, "key": key, "dtype": dtype, "index_on_device": draw(st.booleans())}
    case["op"] = draw(st.sampled_from(["get", "set"]))
    case["value"] = None
    if case["op"] == "set":
        read = outcome(lambda: np.empty(shape)[key].shape)
        if draw(st.booleans()):
            case["value"] = dtype(draw(st.integers(-9, 9)))
            case["value"] = float(case["value"]) if dtype is np.float64 else int(case["value"])
        else:
            vshape = draw(value_shapes(read[1] if read[0] == "ok" else (2,)))
            case["value"] = (1000 + np.arange(int(np.prod(vshape)))).astype(dtype).reshape(vshape)
    return case


# No shrinking: the message names the failing case, and shrinking a batch
# through the worker would take minutes.
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(batch=st.lists(cases(), min_size=30, max_size=30))
def test_every_device_reads_and_writes_as_numpy(device_worker: Worker, batch: list[dict]) -> None:
    """Values (repeated indices included: the last write wins, as in NumPy),
    shapes and exception classes; never a crash."""
    for case, answers in zip(batch, device_worker.run(batch), strict=True):
        expected = run_case(case, None)
        for device, got in answers.items():
            assert got[0] == expected[0], f"{device}: {describe(case)}: {got} where NumPy gives {expected}"
            if expected[0] == "error":
                assert got[1] == expected[1], f"{device}: {describe(case)}: {got} where NumPy gives {expected}"
            else:
                assert got[1].shape == expected[1].shape, f"{device}: {describe(case)}"
                np.testing.assert_array_equal(got[1], expected[1], err_msg=f"{device}: {describe(case)}")


# -- issue 20, section 3 ---------------------------------------------------------------------------


def _both(shape: tuple[int, ...], device: str) -> tuple[np.ndarray, Any]:
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    return a, xp.asarray(a, device=device)


@pytest.mark.parametrize("device", DEVICES)
def test_advanced_indices_separated_by_none_write_numpys_elements(device: str) -> None:
    # The advanced dimensions go first ([1, 3] and -2 are separated by None).
    a, x = _both((2, 4, 3), device)
    v = np.array([[100.0], [200.0]])
    a[:, [1, 3], None, -2] = v
    x[:, [1, 3], None, -2] = xp.asarray(v, device=device)
    np.testing.assert_array_equal(np.asarray(x), a)
    np.testing.assert_array_equal(np.asarray(x[:, [1, 3], None, -2]), a[:, [1, 3], None, -2])


@pytest.mark.parametrize("device", DEVICES)
def test_a_value_of_the_selections_shape_fits_a_new_axis(device: str) -> None:
    a, x = _both((2, 3), device)
    v = 10 + np.arange(6.0).reshape(1, 2, 3)
    a[None] = v
    x[None] = xp.asarray(v, device=device)
    np.testing.assert_array_equal(np.asarray(x), a)
    a, x = _both((3, 4, 5), device)
    v = np.full(a[-2, None, [2, 2], [-2, -2]].shape, 7.0)
    a[-2, None, [2, 2], [-2, -2]] = v
    x[-2, None, [2, 2], [-2, -2]] = xp.asarray(v, device=device)
    np.testing.assert_array_equal(np.asarray(x), a)


@pytest.mark.parametrize("device", DEVICES)
def test_a_mask_with_an_empty_slice_writes_nothing(device: str) -> None:
    a, x = _both((1, 4), device)
    a[[True], 3:1] = 5.0
    x[[True], 3:1] = 5.0
    np.testing.assert_array_equal(np.asarray(x), a)
    assert x[[True], 3:1].shape == a[[True], 3:1].shape == (1, 0)


@pytest.mark.parametrize("device", DEVICES)
def test_an_empty_index_broadcast_checks_no_bounds(device: str) -> None:
    # [2] is out of range for the axis of 2, but the broadcast with [] is empty.
    a, x = _both((4, 2, 2), device)
    assert x[:, [2], []].shape == a[:, [2], []].shape == (4, 0)
    x[:, [2], []] = 1.0
    a[:, [2], []] = 1.0
    np.testing.assert_array_equal(np.asarray(x), a)
    with pytest.raises(IndexError):
        x[:, [2], [0]]


@pytest.mark.parametrize("device", DEVICES)
def test_a_write_into_an_empty_selection_of_a_full_array_does_not_crash(device: str) -> None:
    # MLX 0.32 died with SIGFPE here: only the target is empty, not the array.
    code = textwrap.dedent(
        f"""
        import numpy as np
        import unifiedarray as xp
        x = xp.asarray(np.arange(12.0).reshape(3, 4), device={device!r})
        x[xp.asarray([-2, -3], device={device!r}), 4:] = xp.zeros((2, 0), device={device!r})
        x[[-2, -3], 4:] = np.zeros((2, 0))
        assert np.asarray(x).tolist() == np.arange(12.0).reshape(3, 4).tolist()
        print("done")
        """
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if device.startswith("cuda") and conftest.CUDA_SIMULATED:
        code = "from tests import cudasim; cudasim.activate()\n" + code
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stderr[-2000:]
