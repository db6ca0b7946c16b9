"""Every public NumPy function, called once on arrays on a device (issue 34).

Each public callable of ``numpy``, ``numpy.linalg`` and ``numpy.fft`` that
reaches a UnifiedArray (a ufunc, or a function that dispatches through
``__array_function__``) is called in its simplest form: the first of
:data:`FORMS` that NumPy itself answers on host data (one 4×4 float64
array, or two, or a sorted vector, ...).  The same call then runs with
UnifiedArrays on the device, under a transfer ledger, and is sorted into

* ``device``: no move and no host fallback recorded, the answer NumPy's;
* ``host``: the ledger records a host fallback or another move;
* ``differs``: the answer is not NumPy's (dtype, shape, values or the
  exception's class);
* ``complex``: NumPy's answer is complex128, which MLX cannot hold.

Run: ``python benchmarks/numpy_census.py [--device mlx] [--verbose]
[--json FILE]``; a few seconds.
"""

from __future__ import annotations

import argparse
import copy
import json
import warnings
from collections import Counter
from typing import Any

import numpy as np

import unifiedarray as xp

_R = np.random.default_rng(0)
A = _R.standard_normal((4, 4)) + 4 * np.eye(4)
B = _R.standard_normal((4, 4))
V = np.sort(_R.standard_normal(4))
W = _R.standard_normal(4)
I4 = np.array([2, 0, 1, 3])
M = A > 0
P = A @ A.T + 4 * np.eye(4)
K = np.array([[3, 1, 4, 1], [5, 9, 2, 6], [5, 3, 5, 8], [9, 7, 9, 3]])
C3 = _R.standard_normal((4, 3))
T = _R.standard_normal((2, 2, 4))
S = np.argsort(A, axis=1)

# Argument forms, simplest first; strings name the arrays above.
FORMS: list[tuple] = [
    ("A",),
    ("A", "B"),
    ("V",),
    ("V", "W"),
    ("P",),
    ("A", 2),
    ("V", "W", "V"),
    ("A", "I4"),
    ("K", "K"),
    ("K",),
    ("I4",),
    ("C3", "C3"),
    ("T", 2),
    ("A", "S"),
    ("A", (2, 4, 4)),
    ("A", np.float32),
    ("V", "W", 2),
    ("ij,jk->ik", "A", "B"),
    ("I4", (2, 2)),
    (("I4", "I4"), (4, 4)),
    ("A", "B", "A"),
    ("M", "A", "B"),
    ("A", 0),
    ("V", 2),
    ((4,),),
    (4,),
    ("A", (2, 8)),
    ("A", 1, 0),
    ("A", "A"),
    (["A", "B"],),
    ("A", 1, 2),
    ("I4", "A"),
]

_ARRAYS = {"A": A, "B": B, "V": V, "W": W, "I4": I4, "M": M, "P": P, "K": K, "C3": C3, "T": T, "S": S}


# Functions that write files: not called (their route is the host's).
_WRITES_FILES = frozenset({"save", "savez", "savez_compressed", "savetxt"})


def public_functions() -> dict[str, Any]:
    """NumPy's public callables that reach a UnifiedArray, by name."""
    out: dict[str, Any] = {}
    for prefix, mod in (("", np), ("linalg.", np.linalg), ("fft.", np.fft)):
        for name in sorted(getattr(mod, "__all__", dir(mod))):
            if name.startswith("_"):
                continue
            fn = getattr(mod, name, None)
            if name in _WRITES_FILES:
                continue
            if isinstance(fn, np.ufunc) or hasattr(fn, "_implementation"):
                out[prefix + name] = fn
    return out


def _numpy_args(form: tuple) -> tuple:
    def one(f: Any) -> Any:
        if isinstance(f, str):
            return _ARRAYS.get(f, f)
        if isinstance(f, list | tuple):
            return type(f)(one(g) for g in f)
        return f

    return tuple(one(f) for f in form)


def _has_array(form: Any) -> bool:
    if isinstance(form, str):
        return form in _ARRAYS
    if isinstance(form, list | tuple):
        return any(_has_array(f) for f in form)
    return False


def _device_args(form: tuple, device: Any) -> tuple:
    def one(f: Any) -> Any:
        if isinstance(f, str) and f in _ARRAYS:
            return xp.asarray(_ARRAYS[f], device=device)
        if isinstance(f, list | tuple):
            return type(f)(one(g) for g in f)
        return f

    return tuple(one(f) for f in form)


# Where the first form NumPy accepts is not the function's usual one.
_USUAL = {"roll": ("A", 2), "put_along_axis": ("A", "S", 0.5, 1)}


def _form(fn: Any) -> tuple | None:
    """The simplest form NumPy answers, with an array argument."""
    usual = _USUAL.get(getattr(fn, "__name__", ""))
    for form in ([usual] if usual else []) + FORMS:
        if not _has_array(form):
            continue  # no array among the arguments: nothing to dispatch on
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                fn(*copy.deepcopy(_numpy_args(form)))
        except Exception:
            continue
        return form
    return None


def _host(r: Any) -> Any:
    if isinstance(r, tuple):
        return tuple(_host(x) for x in r)
    if isinstance(r, list):
        return [_host(x) for x in r]
    if isinstance(r, xp.UnifiedArray):
        return np.asarray(r.to_device("cpu"))
    return r


# Results with a free choice NumPy's own does not fix: compared by what
# the function promises.
_SIGN_FREE = {"linalg.eigh", "linalg.svd", "linalg.qr"}
_ORDER_FREE = {"partition", "argpartition", "unique_values"}  # NumPy 2.3+: unique_values unsorted
_VALUE_FREE = {"empty_like", "empty"}
_ORDER_FREE_EIG = {"linalg.eig", "linalg.eigvals"}


def _eigvals_sorted(r: Any) -> Any:
    w = np.asarray(r[0] if isinstance(r, tuple) else r)
    return np.sort_complex(np.round(w.astype(np.complex128), 4))


def _same(a: Any, b: Any, name: str = "") -> bool:
    if name in _ORDER_FREE_EIG:
        return _same(_eigvals_sorted(a), _eigvals_sorted(b))
    if name in _SIGN_FREE:
        return _same(_abs(a), _abs(b))
    if name in _VALUE_FREE:
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and a.dtype == b.dtype
    if name in _ORDER_FREE:
        return _same(np.sort(np.asarray(a), axis=-1), np.sort(np.asarray(b), axis=-1)) or name == "argpartition"
    if isinstance(a, (tuple, list)):
        return isinstance(b, (tuple, list)) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) or isinstance(a, np.generic):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or (a.dtype != b.dtype and not (a.dtype == object or b.dtype == object)):
            return False
        if a.dtype.kind in "fc":
            # Floating point: NumPy's own order of operations is not ours.
            real = a.dtype.itemsize // (2 if a.dtype.kind == "c" else 1)
            rtol = {2: 2e-3, 4: 1e-4}.get(real, 1e-9)
            return bool(np.allclose(a, b, rtol=rtol, atol=rtol, equal_nan=True))
        return bool(np.array_equal(a, b))
    try:
        return bool(a == b) or (a != a and b != b)
    except Exception:
        return type(a) is type(b)


def _abs(r: Any) -> Any:
    if isinstance(r, tuple | list):
        return tuple(_abs(x) for x in r)
    return np.abs(np.asarray(r))


def census(device: str = "mlx", verbose: bool = False) -> dict[str, Any]:
    dev = xp.Device.parse(device)
    rows: dict[str, dict[str, Any]] = {}
    for name, fn in public_functions().items():
        form = _form(fn)
        if form is None:
            rows[name] = {"route": "uncalled"}
            continue
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            expected = fn(*copy.deepcopy(_numpy_args(form)))  # a call may write into its arguments
            args = _device_args(form, dev)
            with xp.track_transfers() as ledger:
                try:
                    got: Any = fn(*args)
                    err = None
                except Exception as e:
                    got, err = None, e
            moves = [(r.reason, r.nbytes) for r in ledger.records]
        row: dict[str, Any] = {"form": repr(form), "moves": moves}
        outs = expected if isinstance(expected, tuple) else (expected,)
        complex_result = any(getattr(e, "dtype", None) == np.complex128 for e in outs)
        fallback = [m for m in moves if "fallback" in m[0]]
        if device.startswith("mlx") and (complex_result or (err is not None and "complex128" in str(err))):
            row["route"] = "complex"
        elif err is not None:
            row["route"], row["error"] = "differs", f"{type(err).__name__}: {err}"[:200]
        elif not _same(expected, _host(got), name):
            row["route"] = "differs"
            row["error"] = f"expected {expected!r}"[:120] + f" got {_host(got)!r}"[:120]
        elif fallback or any(m[1] > 8 for m in moves):
            row["route"] = "host"
        elif moves:
            row["route"] = "device+read"  # on the device; a scalar read (a length, a flag)
        else:
            row["route"] = "device"
        rows[name] = row
    counts = Counter(r["route"] for r in rows.values())
    if verbose:
        for name, r in rows.items():
            if r["route"] != "device":
                print(f"{r['route']:9} {name:28} {r.get('error', '')} {r.get('moves', '')[:2]}")
    return {"device": device, "numpy": np.__version__, "counts": dict(counts), "rows": rows}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="mlx")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--json")
    ns = p.parse_args()
    result = census(ns.device, ns.verbose)
    called = sum(v for k, v in result["counts"].items() if k != "uncalled")
    print(f"NumPy {result['numpy']} on {ns.device}: {called} called; {result['counts']}")
    if ns.json:
        with open(ns.json, "w") as f:
            json.dump(result, f, indent=1, default=str)


if __name__ == "__main__":
    main()
