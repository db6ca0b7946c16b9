"""NumPy's ``numpy.lib`` names that generic code reaches through an array's
namespace: ``lib.stride_tricks.sliding_window_view`` (xarray's rolling
windows).  NumPy extensions, not in the 2025.12 standard.

>>> import unifiedarray as xp
>>> xp.lib.stride_tricks.sliding_window_view(xp.asarray([1, 2, 3]), 2).shape
(2, 2)
"""

from __future__ import annotations

from . import stride_tricks

__all__ = ["stride_tricks"]
