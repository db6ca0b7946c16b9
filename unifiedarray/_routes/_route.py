"""One route per NumPy function: how a call of it reaches the device.

A :class:`Route` is one row of the route table (:data:`unifiedarray._routes.ROUTES`):

* ``standard``: the namespace's function ``target`` (a dotted path),
  NumPy's arguments mapped onto its signature by name;
* ``compose``: ``target(xp, *args, **kwargs)``, written once against the
  namespace ``xp`` so every device gets it; it returns None for a call form
  it does not cover, which then runs on the host, counted;
* ``view``: ``target(*args, **kwargs)`` returns a view of the buffer (or
  None, as a composition);
* ``metadata``: ``target(*args, **kwargs)`` answers from the arrays'
  shapes and dtypes, moving nothing;
* ``namesake``: the device's own NumPy-like function of the NumPy name
  (MLX's ``einsum``);
* ``writes``: the function writes into its first argument, through the
  buffer (:func:`unifiedarray._interop.numpy_call`);
* ``host``: no device computes it; ``reason`` says why, and the call runs
  on the host, its moves counted.

Example
-------
>>> standard("sum").kind, host("prints the values").reason
('standard', 'prints the values')
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["KINDS", "Route", "compose", "host", "metadata", "namesake", "standard", "view", "writes"]

KINDS = ("standard", "compose", "view", "metadata", "namesake", "writes", "host")


class Route(NamedTuple):
    """One NumPy function's route: its kind, what runs, and (for the host
    and for NumPy's argument forms a composition leaves to the host) why."""

    kind: str
    target: Any = None
    reason: str = ""


def standard(path: str) -> Route:
    """The namespace's function at ``path`` (``"linalg.solve"``)."""
    return Route("standard", path)


def compose(fn: Any, reason: str = "") -> Route:
    """A composition of namespace functions, ``fn(xp, *args, **kwargs)``."""
    return Route("compose", fn, reason)


def view(fn: Any) -> Route:
    """A view of the buffer, ``fn(*args, **kwargs)``."""
    return Route("view", fn)


def metadata(fn: Any) -> Route:
    """An answer from shapes and dtypes alone, ``fn(*args, **kwargs)``."""
    return Route("metadata", fn)


def namesake() -> Route:
    """The device's own NumPy-like function of the same name."""
    return Route("namesake")


def writes(fn: Any = None) -> Route:
    """A function that writes into its first argument; ``fn(xp, target,
    *args, **kwargs)``, where given, writes on the target's device (True)
    or returns None for a form it leaves to the host."""
    return Route("writes", fn)


def host(reason: str) -> Route:
    """The host, counted, for ``reason``."""
    return Route("host", None, reason)
