"""``unifiedarray.random`` (``unifiedarray/random.py`` and each backend's
``random_source``): NumPy's ``Generator`` methods draw on the asked device
with no move, the host draws NumPy's own numbers for the seed, a seed
repeats, the portable mode gives the same bits on every device, moments hold
within 5 sigma at 10**6 draws, shuffles permute, states pickle and dask
chunks draw on their device."""

from __future__ import annotations

import math
import os
import pickle
import warnings

import numpy as np
import pytest

import unifiedarray as xp
from unifiedarray.random import philox4x32

from .conftest import DEVICES

#: every method that draws on the device (the docs' list), with arguments
DEVICE_METHODS = {
    "random": ((), {"size": 5}),
    "standard_normal": ((), {"size": 5}),
    "integers": ((0, 10), {"size": 5}),
    "uniform": ((-1.0, 2.0), {"size": 5}),
    "normal": ((1.0, 2.0), {"size": 5}),
    "exponential": ((2.0,), {"size": 5}),
    "standard_exponential": ((), {"size": 5}),
    "lognormal": ((0.0, 0.5), {"size": 5}),
    "logistic": ((0.0, 1.0), {"size": 5}),
    "gumbel": ((0.0, 1.0), {"size": 5}),
    "laplace": ((0.0, 1.0), {"size": 5}),
    "rayleigh": ((1.0,), {"size": 5}),
    "weibull": ((2.0,), {"size": 5}),
    "pareto": ((3.0,), {"size": 5}),
    "power": ((2.0,), {"size": 5}),
    "standard_cauchy": ((), {"size": 5}),
    "triangular": ((0.0, 0.3, 1.0), {"size": 5}),
    "geometric": ((0.3,), {"size": 5}),
    "choice": ((7,), {"size": 5}),
    "permutation": ((7,), {}),
    "multivariate_normal": (([0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]]), {"size": 5}),
    "gamma": ((2.0,), {"size": 5}),
    "standard_gamma": ((0.5,), {"size": 5}),
    "beta": ((2.0, 3.0), {"size": 5}),
    "chisquare": ((3.0,), {"size": 5}),
    "f": ((5.0, 10.0), {"size": 5}),
    "standard_t": ((5.0,), {"size": 5}),
    "wald": ((1.0, 2.0), {"size": 5}),
    "dirichlet": (([1.0, 2.0, 3.0],), {"size": 2}),
}

#: the methods drawn on the host and moved (on a device without them)
HOST_METHODS = {
    "poisson": ((3.0,), {"size": 5}),
    "binomial": ((10, 0.3), {"size": 5}),
    "multinomial": ((10, [0.2, 0.8]), {"size": 3}),
    "negative_binomial": ((5, 0.5), {"size": 5}),
    "vonmises": ((0.0, 2.0), {"size": 5}),
    "zipf": ((2.0,), {"size": 5}),
}


def drawn(device, portable=False, seed=12345):
    return xp.random.default_rng(seed, device=device, portable=portable)


def host(a):
    return np.asarray(a)


# -- on the device, nothing moved ----------------------------------------------


@pytest.mark.parametrize("portable", [False, True], ids=["native", "portable"])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("method", sorted(DEVICE_METHODS))
def test_a_device_method_draws_on_the_device_with_no_move(method, device, portable):
    args, kwargs = DEVICE_METHODS[method]
    g = drawn(device, portable)
    # a parameter given as host data is uploaded as asarray would: placed first
    placed = tuple(xp.asarray(a, device=device) if isinstance(a, list) else a for a in args)
    with xp.track_transfers() as t:
        out = getattr(g, method)(*placed, **kwargs)
    assert isinstance(out, xp.UnifiedArray) and out.device == device
    assert t.count == 0, t.report()
    expected = np.asarray(getattr(np.random.default_rng(0), method)(*args, **kwargs))
    assert out.shape == expected.shape and out.dtype == expected.dtype


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("method", ["random", "standard_normal", "standard_exponential"])
def test_float_dtypes_are_drawn_as_asked(method, dtype, device):
    out = getattr(drawn(device), method)((3, 4), dtype=dtype)
    assert out.dtype == dtype and out.shape == (3, 4) and out.device == device
    assert np.all(np.isfinite(host(out)))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint32, np.uint64, np.bool_])
def test_integers_lie_in_the_range_of_each_dtype(dtype, device):
    info = (0, 1) if dtype is np.bool_ else (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max))
    g = drawn(device)
    full = host(g.integers(info[0], info[1], size=2000, dtype=dtype, endpoint=True))
    assert full.dtype == dtype and full.min() >= info[0] and full.max() <= info[1]
    # both halves of the range are hit: the top bits are random too
    mid = (info[0] + info[1]) / 2
    assert (full.astype(np.float64) < mid).any() and (full.astype(np.float64) > mid).any()
    small = host(
        g.integers(3, 6, size=2000, dtype=dtype) if dtype is not np.bool_ else g.integers(0, 2, size=2000, dtype=dtype)
    )
    assert set(np.unique(small).tolist()) == ({3, 4, 5} if dtype is not np.bool_ else {False, True})


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("method", sorted(HOST_METHODS))
def test_a_method_a_device_lacks_is_drawn_on_the_host_and_counted(method, device):
    args, kwargs = HOST_METHODS[method]
    g = drawn(device)
    with xp.track_transfers() as t:
        out = getattr(g, method)(*args, **kwargs)
    assert out.device == device
    expected = np.asarray(getattr(np.random.default_rng(0), method)(*args, **kwargs))
    assert out.shape == expected.shape and out.dtype == expected.dtype
    native = xp.backends.backend_for(device).random_source(xp.Device.parse(device), np.random.SeedSequence(0)).methods
    if method in native:
        assert t.count == 0
    else:
        assert [r.reason for r in t.records] == [f"random.{method}"]
        with xp.transfer_guard("disallow"), pytest.raises(xp.TransferError):
            getattr(g, method)(*args, **kwargs)


# -- the host is NumPy ---------------------------------------------------------


NUMPY_CALLS = [
    ("random", (5,), {}),
    ("random", (), {}),
    ("random", (3,), {"dtype": np.float32}),
    ("standard_normal", ((2, 3),), {}),
    ("integers", (0, 100, 7), {}),
    ("integers", (-5, 5), {"size": 4, "dtype": np.int8, "endpoint": True}),
    ("uniform", (1.0, 3.0, 4), {}),
    ("normal", (0.0, [1.0, 2.0, 3.0]), {}),
    ("exponential", (2.0, 3), {}),
    ("gamma", (2.0, 1.0, 3), {}),
    ("poisson", ([1.0, 5.0],), {}),
    ("choice", (10, 4), {}),
    ("choice", (10, 4), {"replace": False}),
    ("choice", (3, 5), {"p": [0.2, 0.3, 0.5]}),
    ("permutation", (8,), {}),
    ("multivariate_normal", ([0.0, 0.0], [[1.0, 0.3], [0.3, 1.0]], 3), {}),
    ("dirichlet", ([1.0, 2.0], 2), {}),
]


@pytest.mark.parametrize(("method", "args", "kwargs"), NUMPY_CALLS, ids=lambda v: str(v)[:30])
def test_the_host_draws_numpys_numbers_for_the_seed(method, args, kwargs):
    ours = getattr(xp.random.default_rng(2026, device="cpu"), method)(*args, **kwargs)
    theirs = np.asarray(getattr(np.random.default_rng(2026), method)(*args, **kwargs))
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_array_equal(host(ours), theirs)


def test_the_hosts_shuffle_and_permutation_of_an_array_are_numpys():
    data = np.arange(20).reshape(5, 4)
    ours, theirs = xp.asarray(data), data.copy()
    xp.random.default_rng(9).shuffle(ours)
    np.random.default_rng(9).shuffle(theirs)
    np.testing.assert_array_equal(host(ours), theirs)
    np.testing.assert_array_equal(
        host(xp.random.default_rng(9).permutation(xp.asarray(data), axis=1)),
        np.random.default_rng(9).permutation(data, axis=1),
    )
    np.testing.assert_array_equal(
        host(xp.random.default_rng(9).choice(xp.asarray(data), 3)), np.random.default_rng(9).choice(data, 3)
    )


def test_spawned_host_generators_are_numpys_spawned_ones():
    ours = xp.random.default_rng(5).spawn(3)
    theirs = np.random.default_rng(5).spawn(3)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(host(a.random(4)), b.random(4))


# -- a seed repeats; streams differ ----------------------------------------------


@pytest.mark.parametrize("portable", [False, True], ids=["native", "portable"])
@pytest.mark.parametrize("device", DEVICES)
def test_the_same_seed_gives_the_same_values_and_draws_move_on(device, portable):
    def run(seed):
        g = drawn(device, portable, seed)
        return [host(getattr(g, m)(*a, **k)) for m, (a, k) in sorted(DEVICE_METHODS.items())]

    first, again, other = run(1), run(1), run(2)
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))
    g = drawn(device, portable)
    assert not np.array_equal(host(g.random(8)), host(g.random(8)))


@pytest.mark.parametrize("device", DEVICES)
def test_spawned_generators_draw_independent_streams(device):
    children = drawn(device).spawn(4)
    draws = [host(c.random(1000)) for c in children]
    corr = np.corrcoef(draws)
    assert np.all(np.abs(corr[np.triu_indices(4, 1)]) < 0.2)


@pytest.mark.parametrize("portable", [False, True], ids=["native", "portable"])
@pytest.mark.parametrize("device", DEVICES)
def test_threads_sharing_a_generator_never_draw_the_same_stream(device, portable):
    import threading

    g = drawn(device, portable)
    seen: list[tuple[float, ...]] = []
    start = threading.Barrier(4)

    def work() -> None:
        start.wait()
        for _ in range(50):
            seen.append(tuple(host(g.random(4)).tolist()))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 200 and len(set(seen)) == 200


# -- the portable mode -----------------------------------------------------------


def _reference_philox(ctr, key):
    """Philox4x32-10 on Python ints, written from the paper (not from the
    library's code): the test's independent reference."""
    m0, m1, w0, w1, mask = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85, 0xFFFFFFFF
    c, k = list(ctr), list(key)
    for _ in range(10):
        p0, p1 = m0 * c[0], m1 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k[0]) & mask, p1 & mask, ((p0 >> 32) ^ c[3] ^ k[1]) & mask, p0 & mask]
        k = [(k[0] + w0) & mask, (k[1] + w1) & mask]
    return c


# Random123's known-answer vectors (kat_vectors, philox4x32 10)
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF, 0xFFFFFFFF), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    (
        (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
        (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
    ),
]


@pytest.mark.parametrize("device", DEVICES)
def test_philox_gives_random123s_known_answers_and_the_reference_on_every_device(device):
    for ctr, key, want in KAT:
        assert tuple(_reference_philox(ctr, key)) == want
        words = philox4x32([xp.asarray([c], dtype=xp.uint32, device=device) for c in ctr], key)
        assert tuple(int(w[0]) for w in words) == want
    rng = np.random.default_rng(0)
    ctrs = rng.integers(0, 2**32, size=(4, 64), dtype=np.uint64)
    key = (int(rng.integers(0, 2**32)), int(rng.integers(0, 2**32)))
    words = philox4x32([xp.asarray(c.astype(np.uint32), device=device) for c in ctrs], key)
    got = np.stack([host(w) for w in words])
    want = np.array([_reference_philox([int(v) for v in ctrs[:, j]], key) for j in range(64)]).T
    np.testing.assert_array_equal(got, want)


def _portable_draws(device):
    g = drawn(device, portable=True, seed=77)
    return {
        "integers": host(g.integers(-(2**40), 2**40, size=300)),
        "integers8": host(g.integers(0, 5, size=300, dtype=np.uint8)),
        "random32": host(g.random(300, dtype=np.float32)),
        "random64": host(g.random(300)),
        "uniform": host(g.uniform(-2.0, 3.0, 300)),
        "permutation": host(g.permutation(50)),
        "choice": host(g.choice(20, 30)),
        "choice_p": host(g.choice(4, 30, p=[0.1, 0.2, 0.3, 0.4])),
        "choice_norepeat": host(g.choice(20, 10, replace=False)),
        "shuffle": host(_shuffled(g, device)),
        "normal": host(g.standard_normal(300)),
        "normal32": host(g.standard_normal(300, dtype=np.float32)),
        "exponential": host(g.exponential(2.0, 300)),
        "gamma": host(g.gamma(2.0, size=30)),
        "poisson": host(g.poisson(4.0, size=30)),
    }


def _shuffled(g, device):
    x = xp.reshape(xp.arange(30, device=device), (10, 3))
    g.shuffle(x)
    return x


EXACT = [
    "integers",
    "integers8",
    "random32",
    "random64",
    "uniform",
    "permutation",
    "choice",
    "choice_p",
    "choice_norepeat",
    "shuffle",
    "poisson",
]


@pytest.mark.parametrize("device", [d for d in DEVICES if d != "cpu"])
def test_the_portable_mode_gives_the_hosts_bits_on_every_device(device):
    here, there = _portable_draws("cpu"), _portable_draws(device)
    for name in EXACT:
        assert there[name].dtype == here[name].dtype
        np.testing.assert_array_equal(there[name], here[name], err_msg=name)
    for name in ("normal", "normal32", "exponential", "gamma"):
        np.testing.assert_allclose(there[name], here[name], rtol=1e-6, atol=0, err_msg=name)


# -- distributions: moments at 10**6 draws within 5 sigma ---------------------------

N = 10**6
N_OTHERS = int(os.environ.get("UNIFIEDARRAY_RANDOM_DRAWS", "200000"))
NAMED = {"random", "standard_normal", "normal", "uniform", "integers", "exponential"}
#: method, arguments, (mean, variance, fourth central moment) of the distribution
MOMENTS = [
    ("random", (), (0.5, 1 / 12, 1 / 80)),
    ("standard_normal", (), (0.0, 1.0, 3.0)),
    ("normal", (2.0, 3.0), (2.0, 9.0, 3 * 81.0)),
    ("uniform", (-1.0, 3.0), (1.0, 16 / 12, 256 / 80)),
    ("integers", (0, 10), (4.5, 99 / 12, None)),
    ("exponential", (2.0,), (2.0, 4.0, 9 * 16.0)),
    ("standard_exponential", (), (1.0, 1.0, 9.0)),
    ("gumbel", (0.0, 1.0), (0.5772156649015329, math.pi**2 / 6, None)),
    ("laplace", (1.0, 2.0), (1.0, 8.0, None)),
    ("logistic", (0.0, 1.0), (0.0, math.pi**2 / 3, None)),
    ("rayleigh", (1.0,), (math.sqrt(math.pi / 2), (4 - math.pi) / 2, None)),
    ("geometric", (0.25,), (4.0, 0.75 / 0.0625, None)),
    ("triangular", (0.0, 0.25, 1.0), (1.25 / 3, (1 + 0.0625 - 0.25) / 18, None)),
    ("gamma", (2.0, 1.5), (3.0, 4.5, 24 * 1.5**4)),
    ("standard_gamma", (0.4,), (0.4, 0.4, 3 * 0.16 + 6 * 0.4)),
    ("beta", (2.0, 3.0), (0.4, 0.04, None)),
    ("chisquare", (3.0,), (3.0, 6.0, None)),
    ("standard_t", (6.0,), (0.0, 1.5, None)),
    ("f", (5.0, 12.0), (1.2, 2 * 144 * 15 / (5 * 100 * 8), None)),
    ("wald", (1.0, 2.0), (1.0, 0.5, None)),
]


@pytest.mark.parametrize(("device", "portable"), [(d, False) for d in DEVICES] + [("cpu", True)], ids=str)
@pytest.mark.parametrize(("method", "args", "moments"), MOMENTS, ids=[m[0] for m in MOMENTS])
def test_moments_hold_within_five_sigma_at_a_million_draws(method, args, moments, device, portable):
    # The portable mode on the host only: its bits are every device's (the
    # test above). The issue's named methods at 10**6 draws; the others at
    # N_OTHERS in CI (10**6 with UNIFIEDARRAY_RANDOM_DRAWS=1000000).
    n = N if method in NAMED else N_OTHERS
    x = host(getattr(drawn(device, portable, seed=2024), method)(*args, size=n)).astype(np.float64)
    mean, var, mu4 = moments
    # the fourth moment where no closed form is written: the sample's own
    mu4 = np.mean((x - x.mean()) ** 4) if mu4 is None else mu4
    assert abs(x.mean() - mean) < 5 * math.sqrt(var / n), (x.mean(), mean)
    assert abs(x.var() - var) < 5 * math.sqrt((mu4 - var**2) / n), (x.var(), var)


@pytest.mark.parametrize("device", DEVICES)
def test_choice_with_probabilities_and_without_replacement_have_their_frequencies(device):
    g = drawn(device)
    counts = np.bincount(host(g.choice(4, N, p=[0.1, 0.2, 0.3, 0.4])), minlength=4) / N
    assert np.all(np.abs(counts - [0.1, 0.2, 0.3, 0.4]) < 5 * np.sqrt(np.array([0.09, 0.16, 0.21, 0.24]) / N))
    picks = np.stack([host(g.choice(6, 3, replace=False)) for _ in range(20)])
    assert all(len(set(row)) == 3 for row in picks.tolist())
    weighted = np.concatenate([host(g.choice(3, 2, replace=False, p=[0.0, 0.5, 0.5])) for _ in range(20)])
    assert 0 not in weighted


@pytest.mark.parametrize("device", DEVICES)
def test_gamma_takes_array_shapes_zero_and_below_one_on_the_device(device):
    shapes = xp.asarray([0.0, 0.3, 1.0, 4.0], device=device)
    g = drawn(device)
    with xp.track_transfers() as t:
        x = g.gamma(shapes, 2.0, size=(200_000, 4))
    assert t.count == 0 and x.device == device
    got = host(x)
    assert np.all(got[:, 0] == 0) and np.all(got[:, 1:] > 0)
    np.testing.assert_allclose(got.mean(axis=0), [0.0, 0.6, 2.0, 8.0], atol=5 * 2 * 2 / math.sqrt(200_000))
    d = host(g.dirichlet([1.0, 2.0, 3.0], size=1000, device=device))
    np.testing.assert_allclose(d.sum(axis=1), 1.0)


@pytest.mark.parametrize("device", DEVICES)
def test_multivariate_normal_has_its_mean_and_covariance(device):
    cov = np.array([[2.0, 0.6], [0.6, 1.0]])
    x = host(drawn(device).multivariate_normal([1.0, -1.0], cov, size=200_000))
    np.testing.assert_allclose(x.mean(axis=0), [1.0, -1.0], atol=5 * math.sqrt(2.0 / 200_000))
    np.testing.assert_allclose(np.cov(x.T), cov, atol=0.03)


# -- shuffles and permutations --------------------------------------------------------


@pytest.mark.parametrize("portable", [False, True], ids=["native", "portable"])
@pytest.mark.parametrize("device", DEVICES)
def test_a_shuffled_2d_array_is_a_permutation_of_its_rows(device, portable):
    data = np.arange(40.0).reshape(10, 4)
    x = xp.asarray(data, device=device)
    g = drawn(device, portable)
    with xp.track_transfers() as t:
        g.shuffle(x)
    assert t.count == 0
    rows = host(x)
    assert sorted(map(tuple, rows.tolist())) == sorted(map(tuple, data.tolist()))
    assert not np.array_equal(rows, data)
    cols = host(g.permutation(x, axis=1))
    assert sorted(map(tuple, cols.T.tolist())) == sorted(map(tuple, rows.T.tolist()))
    each = host(g.permuted(x, axis=1))
    assert np.array_equal(np.sort(each, axis=1), np.sort(rows, axis=1))


# -- state: pickling, dask ----------------------------------------------------------------


@pytest.mark.parametrize("portable", [False, True], ids=["native", "portable"])
@pytest.mark.parametrize("device", DEVICES)
def test_a_generators_state_pickles_and_resumes_its_stream(device, portable):
    g = drawn(device, portable)
    g.random(3)
    g.integers(0, 5, 2)
    copy = pickle.loads(pickle.dumps(g))
    for m in ("random", "standard_normal", "permutation"):
        args = (9,) if m == "permutation" else ()
        np.testing.assert_array_equal(host(getattr(copy, m)(*args)), host(getattr(g, m)(*args)))


@pytest.mark.parametrize("device", DEVICES)
def test_dask_default_rng_draws_chunks_on_their_device(device):
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    with dask.config.set({"array.backend": "unifiedarray", "unifiedarray.device": device}):
        x = da.random.default_rng(8).standard_normal((6, 4), chunks=(3, 2))
        with xp.track_transfers() as t:
            blocks = [b.compute() for b in x.to_delayed().ravel()]
            whole = x.compute()
        again = da.random.default_rng(8).standard_normal((6, 4), chunks=(3, 2)).compute()
    assert all(type(b) is xp.UnifiedArray and b.device == device for b in blocks)
    assert t.count == 0, t.report()
    assert whole.device == device and whole.shape == (6, 4)
    np.testing.assert_array_equal(host(whole), host(again))
    assert len({float(host(b).ravel()[0]) for b in blocks}) == len(blocks)  # spawned streams


# -- errors: NumPy's classes on every device ----------------------------------------------

ERRORS = [
    ("random", (), {"dtype": np.float16}, TypeError),
    ("standard_normal", (), {"dtype": np.int32}, TypeError),
    ("integers", (5, 5), {}, ValueError),
    ("integers", (0, 300), {"dtype": np.uint8}, ValueError),
    ("integers", (-1, 3), {"dtype": np.uint8}, ValueError),
    ("integers", (0, 3), {"dtype": np.float64}, TypeError),
    ("choice", (3, 5), {"replace": False}, ValueError),
    ("choice", (3, 2), {"p": [0.5, 0.6, 0.1]}, ValueError),
    ("choice", (3, 2), {"p": [0.5, 0.5]}, ValueError),
    ("geometric", (1.5,), {}, ValueError),
    ("triangular", (1.0, 0.0, 2.0), {}, ValueError),
    ("gamma", (-1.0,), {}, ValueError),
    ("beta", (0.0, 1.0), {}, ValueError),
    ("chisquare", (0.0,), {}, ValueError),
    ("wald", (1.0, -1.0), {}, ValueError),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("method", "args", "kwargs", "error"), ERRORS, ids=lambda v: str(v)[:24])
def test_bad_arguments_raise_numpys_exception_class(method, args, kwargs, error, device):
    with pytest.raises(error):
        getattr(np.random.default_rng(0), method)(*args, **kwargs)
    for portable in (False, True):
        with pytest.raises(error):
            getattr(drawn(device, portable), method)(*args, **kwargs)


def test_numpys_own_shuffle_of_a_unifiedarray_is_warned_about_by_numpy():
    # The docs say to use xp.random's shuffle: NumPy's swaps rows through views.
    x = xp.reshape(xp.arange(6), (3, 2))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        np.random.default_rng(0).shuffle(x)
    assert any("not a subclass of 'Sequence'" in str(w.message) for w in seen)
