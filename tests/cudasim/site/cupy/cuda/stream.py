"""``cupy.cuda.Stream`` and ``cupy.cuda.Event`` over the simulated queues."""

from __future__ import annotations

from typing import Any

from .. import _sim


class Event:
    """A point in a stream's work (``cudaEvent``)."""

    __module__ = "cupy.cuda.stream"

    def __init__(self, block: bool = False, disable_timing: bool = False, interprocess: bool = False) -> None:
        self._state = _sim.EventState()
        self.ptr = id(self._state)

    @property
    def done(self) -> bool:
        """Whether the work before the event has run (cudaEventQuery); the
        simulated GPU runs work only when something waits for it."""
        return self._state.done

    def record(self, stream: Any = None) -> None:
        state = get_current_stream()._state if stream is None else stream._state
        self._state.record(state)

    def synchronize(self) -> None:
        self._state.synchronize()


class _BaseStream:
    __module__ = "cupy.cuda.stream"

    _state: _sim.StreamState

    @property
    def ptr(self) -> int:
        return self._state.ptr

    @property
    def device_id(self) -> int:
        return self._state.device

    def __enter__(self) -> _BaseStream:
        self._check_device()
        _sim.LOCAL.streams.setdefault(self.device_id, []).append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _sim.LOCAL.streams[self.device_id].pop()

    def _check_device(self) -> None:
        cur = _sim.current_device()
        if self.device_id != cur:
            raise RuntimeError(
                f"The device that the stream is created on ({self.device_id}) does not match with the "
                f"current device ({cur})"
            )

    def use(self) -> _BaseStream:
        self._check_device()
        stack = _sim.LOCAL.streams.setdefault(self.device_id, [])
        if stack:
            stack[-1] = self
        else:
            stack.append(self)
        return self

    @property
    def done(self) -> bool:
        return self._state.done_seq >= self._state.next_seq

    def synchronize(self) -> None:
        _sim.run_until(self._state, self._state.next_seq)

    def record(self, event: Event | None = None) -> Event:
        if event is None:
            event = Event()
        event._state.record(self._state)
        return event

    def wait_event(self, event: Event) -> None:
        event._state.wait_on(self._state)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _BaseStream) and other._state is self._state

    def __hash__(self) -> int:
        return hash(self._state)

    def __repr__(self) -> str:
        return f"<Stream {self.ptr:#x} (device {self.device_id})>"


class Stream(_BaseStream):
    """``Stream(non_blocking=False)``: a new stream on the current GPU; a
    blocking one synchronises implicitly with the legacy default stream."""

    def __init__(self, null: bool = False, non_blocking: bool = False, ptds: bool = False) -> None:
        dev = _sim.current_device()
        self._state = _sim.DEVICES[dev].null if null or ptds else _sim.new_stream(dev, blocking=not non_blocking)


class _CurrentNull:
    """``Stream.null``: the legacy default stream (CuPy's is one object,
    pointer 0, meaning the default stream of whichever GPU is current when
    it is used; here the current GPU's, looked up on each access)."""

    def __get__(self, obj: Any, owner: Any) -> Stream:
        return _null(_sim.current_device())


Stream.null = _CurrentNull()  # type: ignore[attr-defined]


class ExternalStream(_BaseStream):
    def __init__(self, ptr: int, device_id: int = -1) -> None:
        self._state = _sim.stream_by_ptr(ptr)


def _null(device: int) -> Stream:
    s = Stream.__new__(Stream)
    s._state = _sim.DEVICES[device].null
    return s


def get_current_stream(device_id: int = -1) -> _BaseStream:
    dev = _sim.current_device() if device_id == -1 else device_id
    stack = _sim.LOCAL.streams.get(dev)
    if stack:
        return stack[-1]
    return _null(dev)


def get_current_stream_ptr() -> int:
    return get_current_stream().ptr


def get_elapsed_time(start_event: Event, end_event: Event) -> float:
    return 0.0
