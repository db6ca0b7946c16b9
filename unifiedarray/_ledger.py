"""The transfer ledger: every byte moved between memory spaces, and why.

Every move in the library goes through :func:`transfer`, a context manager
that first asks the transfer guard (:mod:`unifiedarray._policy`) whether the
move is allowed, then times it and records it.  Moves are rare compared with
array operations, so all the cost of counting sits on the move path and none
on the per-operation path.

Example
-------
>>> import unifiedarray as ua
>>> with ua.track_transfers() as t:
...     buf = ua.UnifiedBuffer((4,), dtype="float32")
...     buf.fill(1.0)
>>> t.count
0
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, NamedTuple

__all__ = ["TransferLedger", "TransferRecord", "totals", "track_transfers", "transfer"]


class TransferRecord(NamedTuple):
    """One move of data between two memory spaces.

    ``source`` and ``target`` are device names (``"cpu"``, ``"mlx"``,
    ``"cuda:0"``); ``reason`` names the public call that caused the move;
    ``explicit`` is true for moves the user asked for (``to_device``,
    ``sync_to_device``, ``sync_to_host``).  Immutable; a named tuple because
    one is made per move and a frozen dataclass costs three times as much.

    Example
    -------
    >>> r = TransferRecord("cpu", "mlx", 64, 1e-6, "UnifiedArray.__add__", False)
    >>> r.direction, r.nbytes
    ('host_to_device', 64)
    """

    source: str
    target: str
    nbytes: int
    seconds: float
    reason: str
    explicit: bool

    @property
    def direction(self) -> str:
        """``"host_to_device"``, ``"device_to_host"`` or ``"device_to_device"``."""
        return direction_of(self.source, self.target)


def direction_of(source: str, target: str) -> str:
    if source == "cpu":
        return "host_to_device"
    if target == "cpu":
        return "device_to_host"
    return "device_to_device"


class TransferLedger:
    """A list of :class:`TransferRecord` with summaries.

    Example
    -------
    >>> led = TransferLedger()
    >>> led.count, led.nbytes
    (0, 0)
    """

    def __init__(self) -> None:
        self.records: list[TransferRecord] = []

    def _add(self, record: TransferRecord) -> None:
        self.records.append(record)

    @property
    def count(self) -> int:
        """Number of moves recorded."""
        return len(self.records)

    @property
    def nbytes(self) -> int:
        """Bytes moved in all."""
        return sum(r.nbytes for r in self.records)

    @property
    def seconds(self) -> float:
        """Seconds spent moving, in all."""
        return sum(r.seconds for r in self.records)

    def by_reason(self) -> dict[tuple[str, str, bool], tuple[int, int, float]]:
        """``{(reason, direction, explicit): (count, nbytes, seconds)}``."""
        out: dict[tuple[str, str, bool], list[float]] = defaultdict(lambda: [0, 0, 0.0])
        for r in self.records:
            row = out[(r.reason, r.direction, r.explicit)]
            row[0] += 1
            row[1] += r.nbytes
            row[2] += r.seconds
        return {k: (int(v[0]), int(v[1]), float(v[2])) for k, v in out.items()}

    def report(self) -> str:
        """A readable table of the moves, grouped by reason; also printed."""
        rows = sorted(self.by_reason().items(), key=lambda kv: -kv[1][1])
        head = f"{'reason':<34}{'direction':<18}{'kind':<10}{'moves':>7}{'bytes':>14}{'ms':>10}"
        lines = [head, "-" * len(head)]
        for (reason, direction, explicit), (n, nb, s) in rows:
            kind = "explicit" if explicit else "implicit"
            lines.append(f"{reason:<34}{direction:<18}{kind:<10}{n:>7}{nb:>14,}{s * 1e3:>10.3f}")
        lines.append("-" * len(head))
        lines.append(f"{'total':<62}{self.count:>7}{self.nbytes:>14,}{self.seconds * 1e3:>10.3f}")
        text = "\n".join(lines)
        print(text)
        return text

    def clear(self) -> None:
        self.records.clear()

    def __repr__(self) -> str:
        return f"TransferLedger(count={self.count}, nbytes={self.nbytes})"


class _Totals:
    """Process-wide counters; cheap, always on, thread safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0
        self.nbytes = 0
        self.seconds = 0.0

    def _add(self, record: TransferRecord) -> None:
        with self._lock:
            self.count += 1
            self.nbytes += record.nbytes
            self.seconds += record.seconds

    def snapshot(self) -> tuple[int, int]:
        """``(count, nbytes)`` moved by this process so far."""
        with self._lock:
            return self.count, self.nbytes

    def __repr__(self) -> str:
        return f"totals(count={self.count}, nbytes={self.nbytes}, seconds={self.seconds:.6f})"


#: Process-wide move totals: ``totals.count``, ``totals.nbytes``.
totals = _Totals()

# The ledgers of the enclosing ``track_transfers`` blocks in this context
# (thread or asyncio task).  A tuple, so entering a block never mutates what
# another context sees.
_active: ContextVar[tuple[TransferLedger, ...]] = ContextVar("unifiedarray_ledgers", default=())


@contextmanager
def track_transfers() -> Iterator[TransferLedger]:
    """Record every move made inside the block (in this thread or task).

    Example
    -------
    >>> import unifiedarray as ua
    >>> with ua.track_transfers() as t:
    ...     pass
    >>> t.count
    0
    """
    ledger = TransferLedger()
    token = _active.set(_active.get() + (ledger,))
    try:
        yield ledger
    finally:
        _active.reset(token)


def _record(record: TransferRecord) -> None:
    totals._add(record)
    for ledger in _active.get():
        ledger._add(record)


def _check_transfer(source: str, target: str, nbytes: int, reason: str, explicit: bool) -> None:
    # The guard lives with placement policy, which imports this module: bind
    # it on first use (an import statement per move costs more than the rest).
    global _check_transfer
    from ._policy import check_transfer

    _check_transfer = check_transfer
    check_transfer(source, target, nbytes, reason, explicit)


class transfer:
    """Wrap one move: check the guard, time the move, record it.

    ``with transfer(source, target, nbytes, reason, explicit): <copy>``.
    Every piece of code that copies data from one memory space to another
    does so inside this block, so that no move goes uncounted.  ``guarded``
    is false only for the hops of a move the guard has already judged whole.
    A class rather than a ``@contextmanager`` generator: that would cost more
    than the bookkeeping itself.  A move that raises is not recorded.
    """

    __slots__ = ("_explicit", "_nbytes", "_reason", "_source", "_start", "_target")

    def __init__(
        self, source: str, target: str, nbytes: int, reason: str, explicit: bool = False, guarded: bool = True
    ) -> None:
        if guarded and not explicit:  # explicit moves are always allowed
            _check_transfer(source, target, nbytes, reason, explicit)
        self._source, self._target, self._nbytes = source, target, int(nbytes)
        self._reason, self._explicit = reason, explicit

    def __enter__(self) -> None:
        self._start = time.perf_counter()

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            seconds = time.perf_counter() - self._start
            _record(TransferRecord(self._source, self._target, self._nbytes, seconds, self._reason, self._explicit))
