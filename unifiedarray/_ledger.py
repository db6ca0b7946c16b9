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

import json
import operator
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, NamedTuple

from ._policy import ALLOW_ALL, check_transfer, guard_levels

__all__ = ["TransferLedger", "TransferRecord", "copy_out", "totals", "track_transfers", "transfer"]


class TransferRecord(NamedTuple):
    """One move of data between two memory spaces.

    ``source`` and ``target`` are device names (``"cpu"``, ``"mlx"``,
    ``"cuda:0"``); ``reason`` names the public call that caused the move;
    ``explicit`` is true for moves the user asked for (``to_device``,
    ``sync_to_device``, ``sync_to_host``); ``start`` is when the move began
    (``time.perf_counter()``) and ``thread`` the ident of the thread that made
    it, for timelines (:meth:`TransferLedger.to_chrome_trace`).  ``seconds``
    is the copy's own time; ``wait`` is the time spent before it waiting for
    the source device's pending work (MLX's lazy graph that computes the
    data), so that a move is not charged for the computation it waits on.
    Immutable; a named tuple because one is made per move and a frozen
    dataclass costs three times as much.

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
    start: float = 0.0
    thread: int = 0
    wait: float = 0.0

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


#: How many records a ledger keeps unless told otherwise (about 2 MB).
DEFAULT_MAX_RECORDS = 10_000

_Key = tuple[str, str, str, bool]  # (reason, source, target, explicit)


class TransferLedger:
    """Exact totals of the moves recorded, and the latest of them in a ring.

    ``count``, ``nbytes``, ``seconds`` (copying), ``wait_seconds`` (waiting
    for the devices' pending work before a copy), :meth:`by_reason` and
    :meth:`by_direction` count every move; ``records`` holds at most
    ``max_records`` of them (the most recent; ``None``: all), so a ledger
    left open over a long run takes bounded memory.  ``dropped`` says how
    many records the ring let go.

    Example
    -------
    >>> led = TransferLedger(max_records=2)
    >>> for n in (8, 16, 32):
    ...     led.add(TransferRecord("cpu", "mlx", n, 1e-6, "demo", False))
    >>> led.count, led.nbytes, led.dropped, [r.nbytes for r in led.records]
    (3, 56, 1, [16, 32])
    """

    def __init__(self, max_records: int | None = DEFAULT_MAX_RECORDS) -> None:
        if max_records is not None:
            max_records = operator.index(max_records)
            if max_records < 0:
                raise ValueError(f"max_records must be >= 0 or None, got {max_records}")
        self.max_records = max_records
        self._ring: deque[TransferRecord] = deque(maxlen=max_records)
        # [count, nbytes, seconds, wait] per (reason, source, target, explicit):
        # exact whatever the ring keeps.  Keyed by the record's own fields so
        # that a move costs one dict lookup (the direction is derived on read).
        self._totals: dict[_Key, list] = {}
        self._lock = threading.Lock()  # a ledger may be shared by copied contexts in other threads
        self.origin = time.perf_counter()  # time zero of the timeline

    def add(self, record: TransferRecord) -> None:
        key = (record.reason, record.source, record.target, record.explicit)
        with self._lock:
            row = self._totals.get(key)
            if row is None:
                self._totals[key] = [1, record.nbytes, record.seconds, record.wait]
            else:
                row[0] += 1
                row[1] += record.nbytes
                row[2] += record.seconds
                row[3] += record.wait
            self._ring.append(record)

    def _rows(self) -> list[tuple[_Key, list]]:
        with self._lock:
            return [(k, list(v)) for k, v in self._totals.items()]

    @property
    def records(self) -> list[TransferRecord]:
        """The most recent moves (at most ``max_records``), oldest first: a
        snapshot list."""
        with self._lock:
            return list(self._ring)

    @property
    def count(self) -> int:
        """Number of moves recorded (all of them, kept in ``records`` or not)."""
        return sum(v[0] for _, v in self._rows())

    @property
    def nbytes(self) -> int:
        """Bytes moved in all."""
        return sum(v[1] for _, v in self._rows())

    @property
    def seconds(self) -> float:
        """Seconds spent copying, in all (the waits before are apart)."""
        return sum(v[2] for _, v in self._rows())

    @property
    def wait_seconds(self) -> float:
        """Seconds spent before the copies waiting for the devices' pending
        work (MLX's lazy evaluation), in all."""
        return sum(v[3] for _, v in self._rows())

    @property
    def dropped(self) -> int:
        """Moves counted in the totals whose records the ring let go."""
        with self._lock:
            return sum(v[0] for v in self._totals.values()) - len(self._ring)

    def by_reason(self) -> dict[tuple[str, str, bool], tuple[int, int, float]]:
        """``{(reason, direction, explicit): (count, nbytes, seconds)}``, exact."""
        out: dict[tuple[str, str, bool], list] = {}
        for (reason, source, target, explicit), (n, nb, s, _) in self._rows():
            row = out.setdefault((reason, direction_of(source, target), explicit), [0, 0, 0.0])
            row[0] += n
            row[1] += nb
            row[2] += s
        return {k: (v[0], v[1], v[2]) for k, v in out.items()}

    def by_direction(self) -> dict[str, tuple[int, int, float]]:
        """``{direction: (count, nbytes, seconds)}``, exact."""
        out: dict[str, list] = {}
        for (_, source, target, _), (n, nb, s, _) in self._rows():
            row = out.setdefault(direction_of(source, target), [0, 0, 0.0])
            row[0] += n
            row[1] += nb
            row[2] += s
        return {k: (v[0], v[1], v[2]) for k, v in out.items()}

    def report(self) -> str:
        """A readable table of the moves, grouped by reason; also printed.
        ``copy ms`` is the copies' time, ``wait ms`` the time spent before
        them waiting for the devices' pending work."""
        rows = sorted(self.by_reason().items(), key=lambda kv: -kv[1][1])
        waits: dict[tuple[str, str, bool], float] = {}
        for (reason, source, target, explicit), v in self._rows():
            key = (reason, direction_of(source, target), explicit)
            waits[key] = waits.get(key, 0.0) + v[3]
        head = f"{'reason':<34}{'direction':<18}{'kind':<10}{'moves':>7}{'bytes':>14}{'copy ms':>10}{'wait ms':>10}"
        lines = [head, "-" * len(head)]
        for key, (n, nb, s) in rows:
            reason, direction, explicit = key
            kind = "explicit" if explicit else "implicit"
            wait_ms = waits.get(key, 0.0) * 1e3
            lines.append(f"{reason:<34}{direction:<18}{kind:<10}{n:>7}{nb:>14,}{s * 1e3:>10.3f}{wait_ms:>10.3f}")
        lines.append("-" * len(head))
        lines.append(
            f"{'total':<62}{self.count:>7}{self.nbytes:>14,}{self.seconds * 1e3:>10.3f}{self.wait_seconds * 1e3:>10.3f}"
        )
        dropped = self.dropped
        if dropped:
            lines.append(f"(totals are exact; records keeps the last {self.max_records}, {dropped} dropped)")
        text = "\n".join(lines)
        print(text)
        return text

    def clear(self) -> None:
        """Forget the records and the totals."""
        with self._lock:
            self._ring.clear()
            self._totals.clear()

    def to_chrome_trace(self, path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        """The recorded moves as a Chrome trace (JSON object format), which
        ``chrome://tracing`` and https://ui.perfetto.dev open.

        One complete event (``"ph": "X"``) per kept record: ``name`` is the
        reason, ``cat`` the direction, ``ts`` and ``dur`` in microseconds
        from the ledger's start, one track per thread; ``args`` hold bytes,
        source, target and whether the move was explicit.  A wait for the
        device's pending work before a copy is an event of its own just
        before it (``cat`` ``"wait"``, ``name`` ``"wait: <reason>"``).  ``otherData``
        holds the exact totals and how many records were dropped.  Written
        to ``path`` when given; returned either way.

        Example
        -------
        >>> led = TransferLedger()
        >>> led.add(TransferRecord("cpu", "mlx", 64, 2e-6, "demo", False, led.origin + 1e-3, 1))
        >>> events = led.to_chrome_trace()["traceEvents"]
        >>> ev = events.pop()
        >>> args = ev["args"]
        >>> ev["name"], ev["cat"], ev["ts"], args["bytes"]
        ('demo', 'host_to_device', 1000.0, 64)
        """
        pid = os.getpid()
        events: list[dict[str, Any]] = [
            {"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": "unifiedarray transfers"}}
        ]
        threads: dict[int, int] = {}
        for r in self.records:
            tid = threads.setdefault(r.thread, len(threads) + 1)
            if r.wait:
                events.append(
                    {
                        "name": f"wait: {r.reason}",
                        "cat": "wait",
                        "ph": "X",
                        "ts": round((r.start - r.wait - self.origin) * 1e6, 3),
                        "dur": round(r.wait * 1e6, 3),
                        "pid": pid,
                        "tid": tid,
                        "args": {"source": r.source},
                    }
                )
            events.append(
                {
                    "name": r.reason,
                    "cat": r.direction,
                    "ph": "X",
                    "ts": round((r.start - self.origin) * 1e6, 3),
                    "dur": round(r.seconds * 1e6, 3),
                    "pid": pid,
                    "tid": tid,
                    "args": {"bytes": r.nbytes, "source": r.source, "target": r.target, "explicit": r.explicit},
                }
            )
        for ident, tid in threads.items():
            events.insert(
                1, {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": f"thread {ident}"}}
            )
        trace = {
            "traceEvents": events,
            "displayTimeUnit": "ms",
            "otherData": {
                "moves": self.count,
                "bytes": self.nbytes,
                "copy_seconds": self.seconds,
                "wait_seconds": self.wait_seconds,
                "records_kept": len(self._ring),
                "records_dropped": self.dropped,
                "by_direction": {d: {"moves": n, "bytes": nb} for d, (n, nb, _) in self.by_direction().items()},
            },
        }
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                json.dump(trace, f)
        return trace

    def plot(self, path: str | os.PathLike[str] | None = None, *, ax: Any = None) -> Any:
        """Draw the recorded moves: a timeline (one row per direction, a bar
        per move, as long as it took) over a bar chart of the bytes moved per
        reason (exact totals).  Needs matplotlib (the ``docs`` extra).  Saved
        to ``path`` when given; returns the matplotlib ``Figure``.  With
        ``ax`` (a pair of axes), draws into them instead of a new figure.

        Example
        -------
        >>> led = TransferLedger()
        >>> fig = led.plot()  # doctest: +SKIP
        """
        try:
            import matplotlib

            if path is not None and ax is None:
                matplotlib.use("Agg", force=False)
            import matplotlib.pyplot as plt
        except ImportError as exc:
            raise ImportError("TransferLedger.plot needs matplotlib: pip install matplotlib") from exc
        if ax is None:
            fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6), constrained_layout=True)
        else:
            top, bottom = ax
            fig = top.figure
        colors = {"host_to_device": "tab:blue", "device_to_host": "tab:orange", "device_to_device": "tab:green"}
        lanes = list(colors)
        records = self.records
        # Every move stays visible: a bar at least 1/400 of the time shown.
        shown = max([(r.start - self.origin + r.seconds) * 1e3 for r in records], default=1.0)
        least = shown / 400
        for i, direction in enumerate(lanes):
            spans = [
                ((r.start - self.origin) * 1e3, max(r.seconds * 1e3, least))
                for r in records
                if r.direction == direction
            ]
            if spans:
                top.broken_barh(spans, (i - 0.4, 0.8), facecolors=colors[direction])
        top.set_yticks(range(len(lanes)), [d.replace("_", " ") for d in lanes])
        top.set_xlabel("ms since track_transfers() began")
        dropped = self.dropped
        top.set_title(f"{len(records)} moves" + (f" (the last kept; {dropped} earlier dropped)" if dropped else ""))
        rows = sorted(self.by_reason().items(), key=lambda kv: kv[1][1])
        labels = [f"{reason} ({'explicit' if explicit else 'implicit'})" for (reason, _, explicit), _ in rows]
        bottom.barh(
            range(len(rows)), [v[1] for _, v in rows], color=[colors[direction] for (_, direction, _), _ in rows]
        )
        bottom.set_yticks(range(len(rows)), labels)
        bottom.set_xlabel("bytes moved (all moves)")
        if path is not None:
            fig.savefig(path, dpi=100)
        return fig

    def __repr__(self) -> str:
        return f"TransferLedger(count={self.count}, nbytes={self.nbytes})"


class _Totals:
    """Process-wide counts of the moves made and their bytes; cheap, always
    on, thread safe.  Their times are the ledgers' (:func:`track_transfers`;
    ``max_records=0`` keeps totals only): a move made with no ledger open
    reads no clock where it need not (a scalar read, :func:`copy_out`)."""

    def __init__(self) -> None:
        #: Guards ``count`` and ``nbytes`` (held only to update or read both).
        self.lock = threading.Lock()
        self.count = 0
        self.nbytes = 0

    def add(self, nbytes: int) -> None:
        """Count one move of ``nbytes``."""
        lock = self.lock
        lock.acquire()  # (not ``with``: the context protocol costs as much as the rest)
        try:
            self.count += 1
            self.nbytes += nbytes
        finally:
            lock.release()

    def snapshot(self) -> tuple[int, int]:
        """``(count, nbytes)`` moved by this process so far."""
        with self.lock:
            return self.count, self.nbytes

    def __repr__(self) -> str:
        return f"totals(count={self.count}, nbytes={self.nbytes})"


#: Process-wide move totals: ``totals.count``, ``totals.nbytes``.
totals = _Totals()
_totals_acquire = totals.lock.acquire
_totals_release = totals.lock.release

# The ledgers of the enclosing ``track_transfers`` blocks in this context
# (thread or asyncio task).  A tuple, so entering a block never mutates what
# another context sees.
_active: ContextVar[tuple[TransferLedger, ...]] = ContextVar("unifiedarray_ledgers", default=())


@contextmanager
def track_transfers(max_records: int | None = DEFAULT_MAX_RECORDS) -> Iterator[TransferLedger]:
    """Record every move made inside the block (in this thread or task).

    The ledger's totals are exact; its ``records`` keep the last
    ``max_records`` moves (``None``: every one; ``0``: totals only).

    Example
    -------
    >>> import unifiedarray as ua
    >>> with ua.track_transfers(max_records=1000) as t:
    ...     pass
    >>> t.count, t.dropped
    (0, 0)
    """
    ledger = TransferLedger(max_records)
    token = _active.set((*_active.get(), ledger))
    try:
        yield ledger
    finally:
        _active.reset(token)


_clock = time.perf_counter
_thread = threading.get_ident


class transfer:
    """Wrap one move: check the guard, time the move, record it.

    ``with transfer(source, target, nbytes, reason, explicit) as move: <copy>``.
    Every piece of code that copies data from one memory space to another
    does so inside this block (or :func:`copy_out`, the block as one call),
    so that no move goes uncounted.  ``guarded``
    is false only for the hops of a move the guard has already judged whole;
    ``route``, for the first hop of a move between devices through the host,
    names the final target, so that the guard judges the move as a whole.
    A wait for the source device's pending work goes first, through
    ``move.wait_for(fn, *args)``: it is timed apart (the record's ``wait``)
    and not charged to the copy.  Nothing is a move that moves no byte: a
    zero-byte move is neither judged by the guard nor recorded.  A class
    rather than a ``@contextmanager`` generator: that would cost more than
    the bookkeeping itself.  A move that raises is not recorded.
    """

    __slots__ = ("_explicit", "_nbytes", "_reason", "_source", "_start", "_target", "_wait")

    def __init__(
        self,
        source: str,
        target: str,
        nbytes: int,
        reason: str,
        explicit: bool = False,
        guarded: bool = True,
        route: str | None = None,
    ) -> None:
        nbytes = int(nbytes)
        if guarded and not explicit and nbytes:  # explicit moves are always allowed
            # The one place the guard is asked: a move is judged when its
            # transfer is made (a moment its maker chooses: before anything
            # changes), as a whole where it is the first hop of a move
            # through the host to ``route``.
            check_transfer(source, target if route is None else route, nbytes, reason, explicit)
        self._source, self._target, self._nbytes = source, target, nbytes
        self._reason, self._explicit = reason, explicit

    def __enter__(self) -> transfer:
        self._wait = 0.0
        self._start = _clock()
        return self

    def wait_for(self, fn: Any, *args: Any) -> None:
        """Run ``fn(*args)``, a wait for the source's pending work, before
        the copy; its time is recorded as the move's ``wait``."""
        began = _clock()
        try:
            fn(*args)
        finally:
            self._wait += _clock() - began

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None and self._nbytes:
            start = self._start + self._wait  # the copy begins when the wait ends
            _count(self._source, self._target, self._nbytes, self._reason, self._explicit, start, _clock(), self._wait)


def _count(
    source: str, target: str, nbytes: int, reason: str, explicit: bool, start: float, end: float, wait: float
) -> None:
    """Count one move made (the totals) and record it in the ledgers open
    here: the end of :class:`transfer` and of a timed :func:`copy_out`."""
    totals.add(nbytes)
    ledgers = _active.get()
    if ledgers:  # a record is made only for the ledgers open here
        record = TransferRecord(source, target, nbytes, end - start, reason, explicit, start, _thread(), wait)
        for ledger in ledgers:
            ledger.add(record)


def copy_out(source: str, nbytes: int, reason: str, read: Callable[[Any], Any], native: Any) -> Any:
    """``read(native)``, an implicit move of ``nbytes`` from ``source`` to
    the host, where ``read`` waits for the source's pending work itself (a
    scalar read: MLX's ``item()`` evaluates, CuPy's follows the stream):
    ``with transfer(source, "cpu", nbytes, reason) as move:
    move.wait_for(read, native)``, returning what ``read`` gave, as one
    call, judged and recorded the same.
    The whole call is the move's ``wait`` and the copy itself takes no
    time: the wait and the copy of a few bytes are one call of the backend,
    and the wait is nearly all of it.  No clock is read where no ledger is
    open (the process totals count moves and bytes).  For the smallest
    moves (a Python scalar read, ``float(x)``), where the block's own cost
    is a measurable share.

    Example
    -------
    >>> import unifiedarray as ua
    >>> with ua.track_transfers() as t:
    ...     copy_out("mlx", 8, "example", sum, [1.5, 2.5])
    4.0
    >>> t.count, t.nbytes, t.records[0].reason, t.records[0].seconds
    (1, 8, 'example', 0.0)
    """
    if not nbytes:
        return read(native)
    if guard_levels() is not ALLOW_ALL:
        check_transfer(source, "cpu", nbytes, reason, False)
    if not _active.get():  # no ledger open: counted, and no clock read
        value = read(native)
        # totals.add, inlined: a call is a measurable share of a small read.
        _totals_acquire()
        try:
            totals.count += 1
            totals.nbytes += nbytes
        finally:
            _totals_release()
        return value
    began = _clock()
    value = read(native)
    end = _clock()
    _count(source, "cpu", nbytes, reason, False, end, end, end - began)
    return value
