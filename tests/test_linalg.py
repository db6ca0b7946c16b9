"""The standard's ``linalg`` extension (``unifiedarray/linalg.py``) gives
NumPy's answer on every device: values (to a tolerance where the
factorisation's algorithm may differ), dtypes and shapes; factorisations
are checked by what they must satisfy (``Q @ R == A``), not by one basis;
the named results have the standard's fields; bad input raises NumPy's
class."""

from __future__ import annotations

import numpy as np
import pytest

import unifiedarray as xp

from .conftest import DEVICES

RNG = np.random.default_rng(21)
#: a well-conditioned stack of two 3 x 3 matrices, and a symmetric positive definite one
A = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
SPD = A @ np.swapaxes(A, -1, -2) + np.eye(3)
B = RNG.standard_normal((2, 3, 2))
V = RNG.standard_normal((4, 3))
W = RNG.standard_normal((4, 3))


def close(got, expected, device, rtol=1e-10):
    assert got.device == device
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_allclose(np.asarray(got), expected, rtol=rtol, atol=1e-12)


def on(device, *arrays):
    return [xp.asarray(a, device=device) for a in arrays]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    ("name", "inputs", "numpy"),
    [
        ("det", (A,), np.linalg.det),
        ("inv", (A,), np.linalg.inv),
        ("solve", (A, B), np.linalg.solve),
        ("cholesky", (SPD,), np.linalg.cholesky),
        ("matmul", (A, B), np.matmul),
        ("outer", (V[0], W[1]), np.outer),
        ("cross", (V, W), np.cross),
        ("diagonal", (A,), lambda a: np.diagonal(a, axis1=-2, axis2=-1)),
        ("trace", (A,), lambda a: np.trace(a, axis1=-2, axis2=-1)),
        ("matrix_transpose", (B,), lambda a: np.swapaxes(a, -1, -2)),
        ("vecdot", (V, W), lambda a, b: np.sum(a * b, axis=-1)),
        ("vector_norm", (V,), lambda a: np.linalg.norm(a.ravel())),
        ("matrix_norm", (A,), lambda a: np.linalg.norm(a, axis=(-2, -1))),
        ("svdvals", (A,), lambda a: np.linalg.svd(a, compute_uv=False)),
        ("eigvalsh", (SPD,), np.linalg.eigvalsh),
        ("pinv", (B,), np.linalg.pinv),
        ("matrix_rank", (B,), np.linalg.matrix_rank),
        ("tensordot", (A[0], B[0]), lambda a, b: np.tensordot(a, b, axes=1)),
    ],
)
def test_linalg_function_gives_numpys_answer(device, name, inputs, numpy):
    fn = getattr(xp.linalg, name)
    kwargs = {"axes": 1} if name == "tensordot" else {}
    close(fn(*on(device, *inputs), **kwargs), np.asarray(numpy(*inputs)), device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [-2, 0, 1, 3])
def test_matrix_power_is_numpys(device, n):
    close(xp.linalg.matrix_power(*on(device, A), n), np.linalg.matrix_power(A, n), device, rtol=1e-9)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    ("ord", "axis", "keepdims"), [(2, -1, False), (1, 0, True), (np.inf, None, False), (0, -1, False)]
)
def test_vector_norm_orders_and_axes_are_numpys(device, ord, axis, keepdims):
    (v,) = on(device, V)
    got = xp.linalg.vector_norm(v, ord=ord, axis=axis, keepdims=keepdims)
    flat = V.ravel() if axis is None else V
    expected = np.linalg.norm(flat, ord=ord, axis=None if axis is None else axis, keepdims=keepdims)
    close(got, np.asarray(expected), device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_factors_multiply_back_and_q_is_orthonormal(device, mode):
    res = xp.linalg.qr(*on(device, B), mode=mode)
    assert res._fields == ("Q", "R")
    q, r = np.asarray(res.Q), np.asarray(res.R)
    assert (res.Q.shape, res.R.shape) == tuple(a.shape for a in np.linalg.qr(B, mode=mode))
    np.testing.assert_allclose(q @ r, B, atol=1e-12)
    np.testing.assert_allclose(
        np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(q.shape[-1]), (2, q.shape[-1], q.shape[-1])), atol=1e-12
    )
    np.testing.assert_array_equal(np.tril(r, -1), 0)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_factors_multiply_back(device, full_matrices):
    res = xp.linalg.svd(*on(device, B), full_matrices=full_matrices)
    assert res._fields == ("U", "S", "Vh")
    u, s, vh = (np.asarray(a) for a in res)
    k = s.shape[-1]
    np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], B, atol=1e-12)
    np.testing.assert_allclose(s, np.linalg.svd(B, compute_uv=False), rtol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
def test_eigh_solves_the_eigenproblem(device):
    res = xp.linalg.eigh(*on(device, SPD))
    assert res._fields == ("eigenvalues", "eigenvectors")
    w, v = np.asarray(res.eigenvalues), np.asarray(res.eigenvectors)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(SPD), rtol=1e-10)
    np.testing.assert_allclose(SPD @ v, v * w[..., None, :], atol=1e-9)


@pytest.mark.parametrize("device", DEVICES)
def test_eig_is_complex_even_where_every_eigenvalue_is_real(device):
    # NumPy's eig, and a device's built on it (CuPy's on the simulated
    # runtime), is real there; the standard's is complex64 for float32.
    m = np.array([[2.0, 1.0], [1.0, 3.0]], dtype=np.float32)
    x = xp.asarray(m, device=device)
    res = xp.linalg.eig(x)
    assert res.eigenvalues.dtype == res.eigenvectors.dtype == np.complex64
    assert xp.linalg.eigvals(x).dtype == np.complex64
    np.testing.assert_allclose(np.sort(np.asarray(res.eigenvalues).real), np.linalg.eigvalsh(m), rtol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_slogdet_is_numpys(device):
    res = xp.linalg.slogdet(*on(device, A))
    assert res._fields == ("sign", "logabsdet")
    sign, logabsdet = np.linalg.slogdet(A)
    close(res.sign, sign, device)
    close(res.logabsdet, logabsdet, device)


@pytest.mark.parametrize("device", DEVICES)
def test_float32_stays_float32(device):
    a32 = A.astype(np.float32)
    numpy = {
        "inv": np.linalg.inv,
        "det": np.linalg.det,
        "svdvals": lambda a: np.linalg.svd(a, compute_uv=False),
        "matrix_norm": lambda a: np.linalg.norm(a, axis=(-2, -1)),
    }
    for name, reference in numpy.items():
        got = getattr(xp.linalg, name)(*on(device, a32))
        expected = np.asarray(reference(a32))
        assert got.dtype == xp.float32 == expected.dtype, name
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-4)


_FAILING_SOLVES = {
    "xp.linalg.inv": (lambda a: xp.linalg.inv(a), np.ones((2, 2))),
    "xp.linalg.cholesky": (lambda a: xp.linalg.cholesky(a), -np.eye(2)),
    "xp.linalg.solve": (lambda a: xp.linalg.solve(a, xp.ones((2, 1), device=a.device)), np.ones((2, 2))),
    "np.linalg.inv": (lambda a: np.linalg.inv(a), np.ones((2, 2))),
    "np.linalg.cholesky": (lambda a: np.linalg.cholesky(a), -np.eye(2)),
    "np.linalg.solve": (lambda a: np.linalg.solve(a, xp.ones((2, 1), device=a.device)), np.ones((2, 2))),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("call", sorted(_FAILING_SOLVES))
def test_singular_and_indefinite_matrices_are_linalg_errors_at_the_call(device, call):
    """At the call, not at a later read: on CUDA, CuPy's solvers report
    failure only in cuSOLVER's status word, read only when asked (the
    simulated runtime models that: unasked, it returns NaN)."""
    run, matrix = _FAILING_SOLVES[call]
    with pytest.raises(np.linalg.LinAlgError):
        run(xp.asarray(matrix, device=device))


@pytest.mark.parametrize("device", DEVICES)
def test_bad_input_raises_numpys_class(device):
    with pytest.raises(np.linalg.LinAlgError):
        xp.linalg.det(*on(device, np.ones((2, 3))))
    with pytest.raises(TypeError):
        xp.linalg.inv(np.eye(2))  # an ndarray is not an array of the namespace's
