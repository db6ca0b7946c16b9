"""Placement and transfer policy, in one place.

Placement (where a new array or a result lives), in the order the Array API
2025.12 gives:

1. an explicit ``device=`` argument;
2. otherwise the device of the inputs (when inputs sit on different devices,
   the smaller operands move to the device holding the most bytes, so the
   fewest bytes cross; each such move is counted as implicit);
3. otherwise the innermost ``with default_device(...)`` block of this thread
   or task;
4. otherwise the process default set by :func:`set_default_device`
   (initially the host).

Transfer guard: implicit moves (a stale copy read, a host fallback, operands
on different devices) can be allowed, logged or forbidden per direction,
with a context-local setting like ``jax.transfer_guard``.  Explicit moves
(``to_device``, ``sync_to_device``, ``sync_to_host``) are always allowed.

Example
-------
>>> import unifiedarray as ua
>>> with ua.transfer_guard("disallow"):
...     x = ua.zeros(3)          # creating data moves nothing
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from ._devices import CPU, Device, DeviceLike

__all__ = [
    "TransferError",
    "choose_device",
    "default_device",
    "get_default_device",
    "set_default_device",
    "transfer_guard",
]

log = logging.getLogger("unifiedarray.transfers")

_LEVELS = ("allow", "log", "disallow")
_DIRECTIONS = ("host_to_device", "device_to_host", "device_to_device")


class TransferError(RuntimeError):
    """An implicit move was attempted where the transfer guard forbids it."""


#: The guard's default levels (host_to_device, device_to_host,
#: device_to_device): every move allowed.
ALLOW_ALL = ("allow",) * 3
_guard: ContextVar[tuple[str, str, str]] = ContextVar("unifiedarray_guard", default=ALLOW_ALL)

#: The guard's levels in this context: the :data:`ALLOW_ALL` object itself
#: where they are the default, when no move needs judging, and the smallest
#: moves (a scalar read) skip the call to :func:`check_transfer`, which
#: decides everything else.
guard_levels = _guard.get


@contextmanager
def transfer_guard(
    level: str | None = None,
    *,
    host_to_device: str | None = None,
    device_to_host: str | None = None,
    device_to_device: str | None = None,
) -> Iterator[None]:
    """Allow, log or forbid implicit moves inside the block.

    ``level`` sets all three directions; the keyword arguments set one
    direction each and win over ``level``.  The setting belongs to the
    current thread or asyncio task only.

    Example
    -------
    >>> import unifiedarray as ua
    >>> with ua.transfer_guard(device_to_host="disallow"):
    ...     pass
    """
    current = list(_guard.get())
    for i, value in enumerate((host_to_device, device_to_host, device_to_device)):
        chosen = value if value is not None else level
        if chosen is None:
            continue
        if chosen not in _LEVELS:
            raise ValueError(f"transfer guard level must be one of {_LEVELS}, not {chosen!r}")
        current[i] = chosen
    token = _guard.set(tuple(current))  # type: ignore[arg-type]
    try:
        yield
    finally:
        _guard.reset(token)


def check_transfer(source: str, target: str, nbytes: int, reason: str, explicit: bool) -> None:
    """Raise or log per the guard; called by the ledger before every move."""
    if explicit:
        return
    levels = _guard.get()
    if levels == ALLOW_ALL:  # the default: every move allowed, whatever its direction
        return
    level, direction = _level(levels, source, target)
    if level == "allow":
        return
    message = f"implicit {direction} move of {nbytes} bytes from {source} to {target} in {reason}"
    if level == "disallow":
        raise TransferError(message + _FORBIDDEN)
    log.warning(message)


_FORBIDDEN = " (forbidden by transfer_guard; move it explicitly with to_device)"


def _level(levels: tuple[str, str, str], source: str, target: str) -> tuple[str, str]:
    """The guard's level for a move from ``source`` to ``target``, and the
    direction's name."""
    if source == "cpu":
        return levels[0], "host_to_device"
    if target == "cpu":
        return levels[1], "device_to_host"
    return levels[2], "device_to_device"


# --- default device -------------------------------------------------------

_global_default: list[Device] = [CPU]
_context_default: ContextVar[Device | None] = ContextVar("unifiedarray_default_device", default=None)


def set_default_device(device: DeviceLike) -> None:
    """Set the process-wide default device for new arrays.

    Example
    -------
    >>> import unifiedarray as ua
    >>> ua.set_default_device("cpu")
    """
    _global_default[0] = _checked(device)


def get_default_device() -> Device:
    """The device new arrays go to when nothing else decides."""
    ctx = _context_default.get()
    return ctx if ctx is not None else _global_default[0]


@contextmanager
def default_device(device: DeviceLike) -> Iterator[Device]:
    """Make ``device`` the default inside the block (this thread or task).

    Example
    -------
    >>> import unifiedarray as ua
    >>> with ua.default_device("cpu"):
    ...     ua.ones(2).device
    Device('cpu')
    """
    dev = _checked(device)
    token = _context_default.set(dev)
    try:
        yield dev
    finally:
        _context_default.reset(token)


def _parse_only(dev: Device) -> object:
    return dev


# How a default device is checked: the backends install theirs when they
# load (a clear error for a device this machine lacks).
_device_check: list[Callable[[Device], object]] = [_parse_only]


def set_device_check(check: Callable[[Device], object]) -> None:
    """Install the check a default device must pass (the backends' own)."""
    _device_check[0] = check


def _checked(device: DeviceLike) -> Device:
    dev = Device.parse(device)
    _device_check[0](dev)
    return dev


def choose_device(placed: Iterable[tuple[Device, int]], reason: str = "an operation") -> Device:
    """The device an operation on inputs ``(device, nbytes)`` runs on.

    All inputs on one device: that device.  Otherwise the device holding the
    most input bytes, so that the fewest bytes move; on a tie, the device of
    the first input.

    Mixing devices where the guard says "disallow" for a direction the other
    inputs would move in raises ``TransferError``, also when no bytes would
    move (an input whose copy on the chosen device happens to be current):
    whether code mixes devices must not depend on what was cached before.
    """
    totals: dict[Device, int] = {}
    for dev, nbytes in placed:
        totals[dev] = totals.get(dev, 0) + nbytes
    if len(totals) == 1:
        return next(iter(totals))
    best = max(totals.values())
    chosen = next(d for d, n in totals.items() if n == best)
    levels = _guard.get()
    if "disallow" in levels:
        for dev, nbytes in totals.items():
            level, direction = _level(levels, dev, chosen)
            if dev != chosen and level == "disallow":
                raise TransferError(
                    f"implicit {direction} move of {nbytes} bytes from {dev} to {chosen} in {reason} "
                    f"(operands on {' and '.join(totals)}){_FORBIDDEN}"
                )
    return chosen
