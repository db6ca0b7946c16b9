"""Errors: a backend's exception raised as the class the host raises for
the same call, on every device (:func:`translate`, by the backend's own
table, ``Backend.error_translations``).

Example
-------
>>> from unifiedarray._devices import Device
>>> from unifiedarray._errors import translate
>>> type(translate(RuntimeError("[inv] singular matrix"), Device("mlx"), "linalg.inv")).__name__
'LinAlgError'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._devices import CPU, Device
from .backends import backend_for

__all__ = ["run_translated", "translate"]

_NONE: dict[str, Any] = {}  # no keywords: never written


def translate(exc: BaseException, dev: Device, path: str) -> BaseException:
    """The exception the host raises for what ``exc`` (raised by ``dev``'s
    backend in ``path``) reports: the same class on every device."""
    if dev is CPU:
        return exc
    message = str(exc)
    for cls, pattern, target in backend_for(dev).error_translations:
        if isinstance(exc, cls) and pattern.search(message):
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
