"""The array rules, in one place: where the 2025.12 standard specifies a
behaviour, the standard; where it leaves it to the implementation, NumPy 2's
answer; inside :func:`strict`, what the standard leaves open raises, as
array-api-strict does.

This module holds the mode (default or strict).  Every decision that
depends on it is made here, so no entry of the namespace and no backend
decides a rule on its own.

Example
-------
>>> from unifiedarray import _rules
>>> _rules.is_strict()
False
>>> with _rules.strict():
...     _rules.is_strict()
True
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["StrictModeError", "is_strict", "set_strict", "strict"]


class StrictModeError(TypeError):
    """A call outside the 2025.12 standard (a NumPy extension such as
    ``xp.pad``) made inside :func:`strict`.  A ``TypeError``: strict mode
    refuses what a strictly conforming library does not have."""


# The process-wide mode (set_strict), and a per-thread override (strict()).
_DEFAULT = [False]
_LOCAL = threading.local()


def is_strict() -> bool:
    """Whether this thread runs in strict mode: inside :func:`strict`, or
    after ``set_strict(True)`` outside any :func:`strict` block."""
    override = getattr(_LOCAL, "strict", None)
    return _DEFAULT[0] if override is None else override


def set_strict(flag: bool) -> bool:
    """Set the process-wide mode; returns the previous one.  A
    :func:`strict` block overrides it in its own thread.

    >>> import unifiedarray as xp
    >>> previous = xp.set_strict(True)
    >>> xp.set_strict(previous)
    True
    """
    previous = _DEFAULT[0]
    _DEFAULT[0] = bool(flag)
    return previous


@contextmanager
def strict(flag: bool = True) -> Iterator[None]:
    """Run a block in strict mode (this thread only): every behaviour the
    standard leaves to the implementation raises the error array-api-strict
    raises there, so a program that runs inside it is portable to any Array
    API library.  ``strict(False)`` runs a block in the default mode.

    >>> import unifiedarray as xp
    >>> with xp.strict():
    ...     xp.is_strict()
    True
    """
    previous = getattr(_LOCAL, "strict", None)
    _LOCAL.strict = bool(flag)
    try:
        yield
    finally:
        _LOCAL.strict = previous
