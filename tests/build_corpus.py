"""The calls both builds must answer alike (``tests/test_compiled.py`` runs
this module in a pure-Python and in a compiled interpreter and compares the
JSON it prints): every function of the standard (array-api-strict's
namespace) in every kind of dtype, in the default and the strict mode; every
operator with every kind of operand a user passes (an array, an ndarray, a
NumPy scalar, each Python scalar, a list, None, a foreign object with and
without the reflected method); the methods with odd argument types.  Each
outcome: the result's type, dtype, shape and values, or the exception's
class, and the warnings' classes.

Run: ``python -m tests.build_corpus`` (prints one JSON object).
"""

from __future__ import annotations

import json
import math
import operator
import sys
import warnings
from collections.abc import Callable
from typing import Any

import array_api_strict
import numpy as np

import unifiedarray as xp
from unifiedarray.backends import backend_for

DEVICES = ["cpu"] + (["mlx"] if backend_for("mlx").available else [])
DTYPES = ("bool", "int64", "uint8", "float32", "float64", "complex64")


class Foreign:
    """Another library's array: NumPy's protocol only."""

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.ones((2, 2))


class Reflecting(Foreign):
    """Another library's array that answers the reflected operators."""

    def __radd__(self, other: Any) -> str:
        return "radd"

    def __rmatmul__(self, other: Any) -> str:
        return "rmatmul"

    def __rsub__(self, other: Any) -> str:
        return "rsub"

    def __eq__(self, other: Any) -> Any:
        return "eq"

    __hash__ = None  # type: ignore[assignment]


def value(res: Any) -> Any:
    """A JSON-able picture of a result."""
    if isinstance(res, xp.UnifiedArray):
        host = np.asarray(res)
        return ["array", str(res.dtype), list(res.shape), str(res.device), _values(host)]
    if isinstance(res, tuple | list):
        return [type(res).__name__, [value(r) for r in res]]
    if isinstance(res, bool | int | float | complex | str | type(None)):
        return [type(res).__name__, _scalar(res)]
    if isinstance(res, np.ndarray | np.generic):
        return ["numpy", str(np.asarray(res).dtype), _values(np.asarray(res))]
    return [type(res).__name__]


def _scalar(v: Any) -> Any:
    if isinstance(v, complex):
        return [_scalar(v.real), _scalar(v.imag)]
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    return v


def _values(host: np.ndarray) -> Any:
    if host.dtype.kind == "c":
        return [_values(host.real), _values(host.imag)]
    if host.dtype.kind == "f":
        return [repr(float(v)) for v in host.ravel()]
    if host.dtype.kind in "biu":
        return host.ravel().tolist()
    return str(host)


def outcome(fn: Callable[[], Any]) -> Any:
    with warnings.catch_warnings(record=True) as seen, np.errstate(all="warn"):
        warnings.simplefilter("always")
        try:
            got: Any = value(fn())
        except Exception as exc:  # the exception's class is the outcome
            got = ["raised", type(exc).__name__]
    return [got, sorted({w.category.__name__ for w in seen})]


def _forms(name: str, a: Any, m: Any) -> tuple[Any, ...] | None:
    forms: dict[str, Any] = {
        "reshape": lambda: (a, (-1,)),
        "broadcast_to": lambda: (a, (2, 2)),
        "take": lambda: (a, m.asarray([0])),
        "take_along_axis": lambda: (a, m.asarray([[0, 0], [0, 0]])),
        "expand_dims": lambda: (a, 0),
        "tile": lambda: (a, (2,)),
        "repeat": lambda: (a, 2),
        "roll": lambda: (a, 1),
        "moveaxis": lambda: (a, 0, 1),
        "permute_dims": lambda: (a, (1, 0)),
        "astype": lambda: (a, m.float32),
        "full_like": lambda: (a, 1),
        "searchsorted": lambda: (m.reshape(a, (-1,)), m.reshape(a, (-1,))),
        "meshgrid": lambda: (m.reshape(a, (-1,)), m.reshape(a, (-1,))),
        "concat": lambda: ([a, a],),
        "stack": lambda: ([a, a],),
    }
    if name in forms:
        return forms[name]()  # type: ignore[no-any-return]
    import inspect

    params = inspect.signature(getattr(array_api_strict, name)).parameters.values()
    n = len(
        [
            p
            for p in params
            if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    )
    return (a,) * max(n, 1)


SKIP = {
    "arange",
    "asarray",
    "empty",
    "eye",
    "from_dlpack",
    "full",
    "linspace",
    "ones",
    "zeros",
    "broadcast_shapes",
    "can_cast",
    "finfo",
    "iinfo",
    "isdtype",
    "result_type",
    "empty_like",
}  # fmt: skip  (creation and dtype queries; empty_like's values are memory's)


def functions() -> dict[str, Any]:
    out: dict[str, Any] = {}
    names = sorted(
        n
        for n in array_api_strict.__all__
        if n[0].islower() and callable(getattr(array_api_strict, n)) and n not in SKIP and "flags" not in n
    )
    for device in DEVICES:
        for dtype in DTYPES:
            for strict in (False, True):
                for name in names:
                    a = xp.asarray((np.arange(1, 5).reshape(2, 2) % 3).astype(dtype), device=device)

                    def call(name: str = name, a: Any = a, strict: bool = strict) -> Any:
                        with xp.strict(strict):
                            return getattr(xp, name)(*_forms(name, a, xp))  # type: ignore[misc]

                    out[f"{name}[{device},{dtype},{'strict' if strict else 'default'}]"] = outcome(call)
    return out


OPERATORS = [
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and_", "or_", "xor", "lshift", "rshift",
    "eq", "ne", "lt", "le", "gt", "ge",
]  # fmt: skip


def operands(device: str) -> dict[str, Callable[[], Any]]:
    return {
        "array": lambda: xp.asarray([[1.0, 2.0], [3.0, 4.0]], device=device),
        "int array": lambda: xp.asarray([[1, 2], [3, 4]], device=device),
        "ndarray": lambda: np.array([[1.0, 2.0], [3.0, 4.0]]),
        "np.float32": lambda: np.float32(2.0),
        "int": lambda: 2,
        "float": lambda: 2.5,
        "complex": lambda: 1j,
        "bool": lambda: True,
        "list": lambda: [1.0, 2.0],
        "None": lambda: None,
        "foreign": Foreign,
        "reflecting": Reflecting,
        "str": lambda: "a",
    }


def operators() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for device in DEVICES:
        kinds = operands(device)
        for op in OPERATORS:
            fn = getattr(operator, op)
            for left in ("array", "int array"):
                mine = kinds[left]
                for kind, make in kinds.items():
                    out[f"{op}[{device},{left},{kind}]"] = outcome(lambda fn=fn, a=mine, b=make: fn(a(), b()))
                    out[f"{op}[{device},{kind},{left}]"] = outcome(lambda fn=fn, a=mine, b=make: fn(b(), a()))
    return out


def methods() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for device in DEVICES:
        x = xp.asarray([[3.0, 1.0], [2.0, 4.0]], device=device)
        calls: dict[str, Callable[[], Any]] = {
            "sort(axis=0.0)": lambda x=x: xp.sort(x, axis=0.0),
            "sort(axis=True)": lambda x=x: xp.sort(x, axis=True),
            "argsort(axis=np.int64(0))": lambda x=x: xp.argsort(x, axis=np.int64(0)),
            "round(decimals=1.0)": lambda x=x: xp.round(x, decimals=1.0),
            "round(decimals=np.int64(1))": lambda x=x: xp.round(x, decimals=np.int64(1)),
            "tobytes(order=None)": lambda x=x: x.tobytes(order=None),
            "tobytes()": lambda x=x: x.tobytes(),
            "sum(axis=0.0)": lambda x=x: xp.sum(x, axis=0.0),
            "sum(axis=(0,))": lambda x=x: xp.sum(x, axis=(0,)),
            "x[0.0]": lambda x=x: x[0.0],
            "x[np.int64(0)]": lambda x=x: x[np.int64(0)],
            "x[True]": lambda x=x: x[True],
            "x[None]": lambda x=x: x[None],
            "x[[0, 1]]": lambda x=x: x[[0, 1]],
            "x[..., 0]": lambda x=x: x[..., 0],
            "x[0] = 1.0": lambda x=x: x.__setitem__(0, 1.0),
            "x[0] = [1, 2]": lambda x=x: x.__setitem__(0, [1, 2]),
            "x[0] = 'a'": lambda x=x: x.__setitem__(0, "a"),
            "float(x)": lambda x=x: float(x),
            "float(x[0, 0])": lambda x=x: float(x[0, 0]),
            "int(x[0, 0])": lambda x=x: int(x[0, 0]),
            "bool(x[0, 0])": lambda x=x: bool(x[0, 0]),
            "index(x[0, 0])": lambda x=x: operator.index(x[0, 0]),
            "x.to_device(None)": lambda x=x: x.to_device(None),
            "x.__array_namespace__(api_version=None)": lambda x=x: x.__array_namespace__(api_version=None).__name__,
            "x.__array_namespace__(api_version='2021.12')": lambda x=x: (
                x.__array_namespace__(api_version="2021.12").__name__
            ),
            "__array_namespace__(1)": lambda x=x: x.__array_namespace__(api_version=1),
            "round(x, np.int64(1))": lambda x=x: round(x[0, 0], np.int64(1)),
            "x.astype(float, copy=0)": lambda x=x: x.astype(float, copy=0),
            "x.sort(kind=1)": lambda x=x: xp.asarray(x, copy=True).sort(kind=1),
            "np.asarray(x, copy=1)": lambda x=x: np.asarray(x, copy=1),
            "x.mT": lambda x=x: x.mT,
            "len(x)": lambda x=x: len(x),
            "iter(x)": lambda x=x: list(iter(x)),
            "abs(x)": lambda x=x: abs(x),
            "-x": lambda x=x: -x,
            "~x": lambda x=x: ~x,
            "x += 1": lambda x=x: operator.iadd(xp.asarray(x, copy=True), 1),
            "x += [1, 2]": lambda x=x: operator.iadd(xp.asarray(x, copy=True), [1, 2]),
            "x @= x": lambda x=x: operator.imatmul(xp.asarray(x, copy=True), x),
        }
        for key, fn in calls.items():
            out[f"{key}[{device}]"] = outcome(fn)
    return out


def main() -> None:
    result = {"functions": functions(), "operators": operators(), "methods": methods()}
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
