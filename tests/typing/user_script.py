"""A typed user script: the namespace as a user writes against it, checked by mypy in CI.

``.ci/run`` runs ``mypy tests/typing/user_script.py``: every call below must
resolve (``xp.sin``, ``xp.linalg.qr``, ``xp.fft.rfft``, ...) and every
``assert_type`` must hold, so an editor and a type checker understand the
namespace as it is documented. ``tests/typing/test_user_script.py`` also runs
the script on every device, so it stays a working program.
"""

from __future__ import annotations

import sys

import numpy as np

import unifiedarray as xp

if sys.version_info >= (3, 11):
    from typing import assert_type
else:
    from typing_extensions import assert_type


def normalise(a: xp.UnifiedArray) -> xp.UnifiedArray:
    """Generic Array API code: the namespace comes from the array."""
    return (a - xp.mean(a, axis=0)) / xp.std(a, axis=0)


def run(device: str) -> dict[str, float]:
    """A short computation on ``device``; returns the figures it found, as Python floats."""
    # Creation, dtypes and devices
    x = xp.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5], [7.5, 8.0, 10.0]], dtype=xp.float64, device=device)
    assert_type(x, xp.UnifiedArray)
    dev: xp.Device = x.device
    same_dtype: bool = x.dtype == xp.float64
    z = xp.zeros((3,), dtype=xp.float32, device=dev)
    assert_type(z, xp.UnifiedArray)
    i = xp.arange(3, device=dev)
    f32 = xp.astype(x, xp.float32)
    assert_type(f32, xp.UnifiedArray)
    from_numpy = xp.asarray(np.linspace(0.0, 1.0, 8, dtype=np.float32), device=dev)  # MLX transforms in complex64

    # Elementwise functions and operators, Python scalars on either side
    s = xp.sin(x)
    assert_type(s, xp.UnifiedArray)
    doubled = x * 2.0
    assert_type(doubled, xp.UnifiedArray)
    shifted = 1.0 + x
    assert_type(shifted, xp.UnifiedArray)
    y = xp.ones((3, 3), device=dev)
    product = x @ y
    assert_type(product, xp.UnifiedArray)
    mask = x > 4.0
    assert_type(mask, xp.UnifiedArray)
    picked = x[mask]
    row = x[0, :]
    assert_type(row, xp.UnifiedArray)

    # Reductions
    total = xp.sum(x)
    assert_type(total, xp.UnifiedArray)
    means = xp.mean(x, axis=0)
    assert_type(means, xp.UnifiedArray)

    # The extensions
    q, r = xp.linalg.qr(x)
    assert_type(q, xp.UnifiedArray)
    assert_type(r, xp.UnifiedArray)
    spectrum = xp.fft.rfft(from_numpy)
    assert_type(spectrum, xp.UnifiedArray)
    norm = xp.linalg.vector_norm(spectrum)

    # Random numbers, drawn on the device (portable: the same on every device)
    rng = xp.random.default_rng(7, device=dev, portable=True)
    assert_type(rng, xp.random.Generator)
    noise = rng.standard_normal((3, 3), dtype=xp.float32)
    assert_type(noise, xp.UnifiedArray)
    picks = rng.integers(0, 3, size=4)
    assert_type(picks, xp.UnifiedArray)
    rng.shuffle(picks)

    # Moves, counted
    with xp.track_transfers() as moves:
        host = product.to_device("cpu")
    moved: int = moves.count

    return {
        "same_dtype": float(same_dtype),
        "z": float(xp.sum(z)),
        "i": float(xp.sum(i)),
        "f32": float(xp.sum(f32)),
        "sin": float(xp.sum(s)),
        "doubled": float(xp.sum(doubled)),
        "shifted": float(xp.sum(shifted)),
        "product": float(xp.sum(host)),
        "picked": float(xp.sum(picked)),
        "row": float(xp.sum(row)),
        "total": float(total),
        "means": float(xp.sum(means)),
        "qr": float(xp.linalg.matrix_norm(q @ r - x)),
        "r00": abs(float(r[0, 0])),
        "norm": float(norm),
        "normalised": float(xp.sum(normalise(x))),
        "moved": float(moved >= 0),
        "noise": float(xp.std(noise) > 0),
        "picks": float(xp.sum(picks)),
    }


if __name__ == "__main__":
    for name, value in run(sys.argv[1] if len(sys.argv) > 1 else "cpu").items():
        print(f"{name:>12} {value:.6g}")
