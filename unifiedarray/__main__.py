"""``python -m unifiedarray``: what this machine offers, and lazy sync at work.

It lists every backend (and, for each one missing, why), every device with
its free and total memory, then runs a short demonstration that prints each
move the buffer makes, and only those.
"""

from __future__ import annotations

import sys

import numpy as np


def _gib(n: int) -> str:
    return f"{n / 2**30:.1f} GiB"


def report() -> None:
    from .backends import backend_report

    print("unifiedarray: backends and devices")
    for row in backend_report():
        status = "available" if row["available"] else "missing"
        print(f"  {row['title']:<14} {status}")
        if not row["available"]:
            print(f"      why: {row['reason']}")
        for dev in row["devices"]:
            mem = (
                f"{_gib(dev['free'])} free of {_gib(dev['total'])}"
                if "free" in dev
                else f"memory unknown ({dev.get('memory_error')})"
            )
            print(f"      {dev['device']:<8} {dev.get('name', '')}: {mem}")
    from .backends import _registry

    metal = _registry()["mlx"]
    if metal.available:
        reason = metal.metal_reason  # type: ignore[attr-defined]
        print(f"  Metal          {'available' if reason is None else 'missing'}")
        if reason is not None:
            print(f"      why: {reason}")


def demo() -> None:
    import unifiedarray as ua

    devices = [d for d in ua.__array_namespace_info__().devices() if d != "cpu"]
    target = devices[0] if devices else None
    print()
    if target is None:
        print("demo: no accelerator here, so the demonstration stays on the host (no moves to show).")
        target = ua.Device.parse("cpu")
    else:
        print(f"demo: a float64 buffer of 1,000,000 elements, host <-> {target}")
    with ua.track_transfers() as ledger:
        buf = ua.UnifiedBuffer((1_000_000,), dtype=np.float64, device=target)
        steps = [
            (
                "buf.host[:] = arange(...)   (a host write)",
                lambda: buf.host.__setitem__(slice(None), np.arange(1_000_000.0)),
            ),
            (f"buf.read('{target}')          (stale copy read: one move)", lambda: buf.read(target)),
            (f"buf.read('{target}') again    (current: no move)", lambda: buf.read(target)),
            ("buf.to_numpy()              (host still current: no move)", lambda: buf.to_numpy()),
            ("buf.fill(2.0)               (overwrite: no move)", lambda: buf.fill(2.0)),
            ("buf.to_numpy().sum()        (read", lambda: buf.to_numpy().sum()),
        ]
        for label, step in steps:
            before = ledger.count
            step()
            moved = ledger.count - before
            if label.endswith("(read"):
                label += ": one move)" if moved else ": no move)"
            print(f"  {label:<62} state={buf.state.name:<13} moves={moved}")
        x = ua.asarray(np.linspace(0, 1, 5), device=target)
        before = ledger.count
        y = ua.sum(x * 2.0)
        print(
            f"  sum(x * 2.0) on {target} = {float(y):.2f}  (computed where x lives; moves={ledger.count - before - 1} "
            f"before reading the result)"
        )
    print()
    ledger.report()


def main(argv: list[str] | None = None) -> int:
    report()
    demo()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
