"""The route table: one row per public NumPy function, saying how a call of
it with UnifiedArrays reaches the device where they live.

Every public callable of ``numpy``, ``numpy.linalg`` and ``numpy.fft`` that
can reach a UnifiedArray (a ufunc, or a function that dispatches through
``__array_function__``) has one :class:`~unifiedarray._routes._route.Route`
here, kept in modules by chapter (:mod:`.elementwise`, :mod:`.statistics`,
:mod:`.shapes`, :mod:`.searching`, :mod:`.linalg`, :mod:`.numbers`,
:mod:`.metadata`).  :func:`unifiedarray._interop.numpy_call` is the only
reader: a NumPy call with UnifiedArrays goes through its row, and a
function without one (a NumPy release newer than the table) takes the
counted host route, reported by :func:`unclassified`.
``tests/test_routes.py`` fails on any public function of the installed
NumPy without a row, and differential tests run every row against NumPy.

On CUDA, CuPy's function of the NumPy name runs first (it has most of
NumPy's API); the table answers what CuPy lacks.

Example
-------
>>> ROUTES["triu"].kind, ROUTES["sum"].kind, ROUTES["shape"].kind
('compose', 'standard', 'metadata')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import elementwise, linalg, metadata, numbers, searching, shapes, statistics
from ._route import KINDS, Route

__all__ = [
    "KINDS",
    "LOOP_CAST",
    "OUT_CASTING",
    "ROUTES",
    "Route",
    "numpy_public",
    "route_counts",
    "unclassified",
]

ROUTES: dict[str, Route] = {}
for _chapter in (elementwise, statistics, shapes, searching, linalg, numbers, metadata):
    for _name, _route in _chapter.ROUTES.items():
        # One row per function: a second chapter claiming a name would be a
        # second decision about it.
        if _name in ROUTES and ROUTES[_name] != _route:
            raise RuntimeError(f"numpy.{_name} has two routes: {ROUTES[_name]} and {_route}")
        ROUTES[_name] = _route

#: How NumPy writes the ``out=`` of its functions (not ufuncs: theirs is
#: the ufunc's ``same_kind``, or the call's ``casting=``), where it is not
#: ``same_kind``: ``"unsafe"`` for its reductions, scans and copies
#: (``np.sum(floats, out=ints)`` truncates); ``"exact"`` where ``out`` must
#: have the result's dtype (``np.dot``: a ``ValueError``); ``"safe"`` for
#: ``einsum``'s default ``casting``; ``"index"`` for the arg-reductions,
#: whose ``out`` must cast safely to the index dtype, the indices then
#: written into it.  ``tests/test_argument_forms.py`` holds every public
#: function of the installed NumPy that takes ``out=`` to NumPy's answer.
OUT_CASTING: dict[str, str] = {
    **dict.fromkeys(
        [
            "amax",
            "amin",
            "choose",
            "compress",
            "cumprod",
            "cumsum",
            "cumulative_prod",
            "cumulative_sum",
            "max",
            "mean",
            "median",
            "min",
            "nancumprod",
            "nancumsum",
            "nanmax",
            "nanmedian",
            "nanmin",
            "nanpercentile",
            "nanprod",
            "nanquantile",
            "nansum",
            "prod",
            "sum",
            "take",
            "trace",
            "var",
        ],
        "unsafe",
    ),
    "dot": "exact",
    "linalg.multi_dot": "exact",
    "einsum": "safe",
    **dict.fromkeys(["argmax", "argmin", "nanargmax", "nanargmin"], "index"),
}

#: The ufuncs whose composition takes the loop's dtypes.
LOOP_CAST = elementwise.LOOP_CAST | frozenset({"bitwise_count"})


def numpy_public() -> dict[str, Any]:
    """Every public callable of the installed NumPy's ``numpy``,
    ``numpy.linalg`` and ``numpy.fft`` that can reach a UnifiedArray, by
    the name the table uses (``"linalg.solve"``)."""
    out: dict[str, Any] = {}
    for prefix, mod in (("", np), ("linalg.", np.linalg), ("fft.", np.fft)):
        for name in sorted(getattr(mod, "__all__", None) or dir(mod)):
            if name.startswith("_"):
                continue
            fn = getattr(mod, name, None)
            if isinstance(fn, np.ufunc) or hasattr(fn, "_implementation"):
                out[prefix + name] = fn
    return out


def unclassified() -> list[str]:
    """The installed NumPy's public functions without a route (each runs
    on the host, counted, until it gets one)."""
    return [name for name in numpy_public() if name not in ROUTES]


def route_counts() -> dict[str, int]:
    """How many of the installed NumPy's public functions take each route kind.

    >>> sum(route_counts().values()) == len(numpy_public())
    True
    """
    counts = dict.fromkeys((*KINDS, "unclassified"), 0)
    for name in numpy_public():
        route = ROUTES.get(name)
        counts[route.kind if route else "unclassified"] += 1
    return counts
