"""The ``linalg`` extension (25 functions of Array API 2025.12), generated
from the table in :mod:`unifiedarray._functions`.

>>> import unifiedarray as xp
>>> float(xp.linalg.det(xp.eye(3)))
1.0
"""

from ._functions import LINALG, make_generic

__all__ = list(LINALG)

for _name in LINALG:
    globals()[_name] = make_generic(f"linalg.{_name}", "linalg extension")
del _name
