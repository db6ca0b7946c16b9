"""Errors: a backend's exception raised as the class the host raises for
the same call, on every device (:data:`ERRORS`, :func:`translate`).

Example
-------
>>> from unifiedarray._devices import Device
>>> from unifiedarray._errors import translate
>>> type(translate(RuntimeError("[inv] singular matrix"), Device("mlx"), "linalg.inv")).__name__
'LinAlgError'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from numpy.exceptions import AxisError
from numpy.linalg import LinAlgError

from ._devices import CPU, Device

__all__ = ["ERRORS", "run_translated", "translate"]

_NONE: dict[str, Any] = {}  # no keywords: never written

#: A backend's exception (device kind, class, a pattern of its message) and the
#: class the host raises for the same call.  Checked in order; an exception no
#: row matches passes through unchanged.  The backends' namespaces raise the
#: host's classes themselves where they can (the MLX namespace checks indices,
#: pivots and axes before MLX sees them); this table is the net behind them.
ERRORS: tuple[tuple[str, type[BaseException], re.Pattern[str], type[Exception]], ...] = (
    ("mlx", RuntimeError, re.compile(r"bad_cast|out of range|too large"), OverflowError),
    ("mlx", ValueError, re.compile(r"axis .* (is )?out of bounds|Invalid axis|\[.*\] .*axis"), AxisError),
    ("mlx", RuntimeError, re.compile(r"[Ss]ingular|not positive.definite|LAPACK|lapack"), LinAlgError),
    ("mlx", RuntimeError, re.compile(r"[Ss]hape|broadcast"), ValueError),
    ("cuda", Exception, re.compile(r"[Ss]ingular|not positive.definite"), LinAlgError),
)


def translate(exc: BaseException, dev: Device, path: str) -> BaseException:
    """The exception the host raises for what ``exc`` (raised by ``dev``'s
    backend in ``path``) reports: the same class on every device."""
    if dev is CPU:
        return exc
    message = str(exc)
    for kind, cls, pattern, target in ERRORS:
        if dev.kind == kind and isinstance(exc, cls) and pattern.search(message):
            new = target(f"{path} on {dev}: {message}")
            new.__cause__ = exc
            return new
    return exc


def run_translated(dev: Device, path: str, fn: Callable[..., Any], args: tuple, kwargs: dict[str, Any] = _NONE) -> Any:
    """``fn(*args, **kwargs)``, a backend's work for ``path`` on ``dev``:
    the one place where a backend's exception is raised as the class the
    host raises (:func:`translate`); every call of a backend's compute
    function and every write goes through here."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:
        new = translate(exc, dev, path)
        if new is exc:
            raise
        raise new from exc
