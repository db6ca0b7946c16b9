"""NumPy's ``numpy.lib.stride_tricks`` names the namespace offers:
``sliding_window_view`` (a copy here; see its docstring)."""

from __future__ import annotations

from .._extensions import sliding_window_view

__all__ = ["sliding_window_view"]
