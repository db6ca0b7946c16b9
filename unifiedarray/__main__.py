"""``python -m unifiedarray``: what this machine offers, and lazy sync at work.

With no option it lists every backend (and, for each one missing, why), every
device with its free and total memory, then runs a short demonstration that
prints each move the buffer makes, and only those.  ``--json`` prints the
report as one JSON object instead (for scripts and bug reports),
``--no-demo`` skips the demonstration, ``--version`` prints the version.

Example
-------
>>> import json
>>> from unifiedarray.__main__ import report_dict
>>> info = report_dict()
>>> info["backends"][0]["backend"], info["backends"][0]["available"]
('numpy', True)
>>> json.loads(json.dumps(info)) == info
True
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from typing import Any

import numpy as np

from . import Device, UnifiedBuffer, __array_namespace_info__, asarray, track_transfers
from . import sum as ua_sum
from ._compiled import ENV, MODULES, built_modules, compiled_modules, pure_python_requested
from ._version import __version__
from .backends import all_backends, backend_report

_DESCRIPTION = (
    "Report the backends and devices this machine has (and why any is missing), "
    "then show lazy synchronisation at work: each move the buffer makes, and only those."
)


def _gib(n: int) -> str:
    return f"{n / 2**30:.1f} GiB"


def _facilities() -> dict[str, dict[str, Any]]:
    """Every backend's named facilities (``Backend.facilities``: MLX's
    Metal), each with whether it is present and why not."""
    return {
        name: {"available": reason is None, "reason": reason}
        for backend in all_backends()
        for name, reason in backend.facilities().items()
    }


def report_dict() -> dict[str, Any]:
    """The report as plain data: version, Python, NumPy, platform, and one entry per backend.

    Every value is a JSON type (str, int, float, bool, None, list, dict), so
    ``json.dumps`` takes it as it is.  Each backend entry has ``backend``,
    ``title``, ``available``, ``reason`` (why it is missing, or None) and
    ``devices`` (for each: ``device``, ``free`` and ``total`` bytes when known,
    and the backend's properties of it).  ``compiled`` lists the modules
    running compiled code (``unifiedarray._compiled``; empty where none).
    """
    return {
        "unifiedarray": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "platform": platform.platform(),
        "backends": backend_report(),
        "compiled": compiled_modules(),
        **_facilities(),
    }


def _hot_path(compiled: list[str]) -> str:
    """The hot path's line of the report: compiled or pure Python, and why."""
    if compiled:
        return f"compiled ({len(compiled)} of {len(MODULES)} modules, Cython)"
    if pure_python_requested():
        return f"pure Python ({ENV} is set)"
    built = built_modules()
    if built:
        return f"pure Python (only {len(built)} of {len(MODULES)} modules were compiled: build again)"
    return "pure Python (nothing was compiled at install: no C compiler, or " + ENV + " was set)"


def print_report(info: dict[str, Any]) -> None:
    """The report as the readable text ``python -m unifiedarray`` prints."""
    print(f"unifiedarray {info['unifiedarray']}: backends and devices")
    print(f"  hot path: {_hot_path(info['compiled'])}")
    for row in info["backends"]:
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
    # A facility (MLX's Metal) is not a backend: shown only where its backend is.
    for backend in all_backends():
        if not backend.available:
            continue
        for name in backend.facilities():
            entry = info[name]
            print(f"  {name.capitalize():<14} {'available' if entry['available'] else 'missing'}")
            if not entry["available"]:
                print(f"      why: {entry['reason']}")


def demo() -> None:
    """Show the buffer's moves: one per stale read, none otherwise, each counted."""
    devices = [d for d in __array_namespace_info__().devices() if d != "cpu"]
    target = devices[0] if devices else None
    print()
    if target is None:
        print("demo: no accelerator here, so the demonstration stays on the host (no moves to show).")
        target = Device.parse("cpu")
    else:
        print(f"demo: a float64 buffer of 1,000,000 elements, host <-> {target}")
    with track_transfers() as ledger:
        buf = UnifiedBuffer((1_000_000,), dtype=np.float64, device=target)
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
        x = asarray(np.linspace(0, 1, 5), device=target)
        before = ledger.count
        y = ua_sum(x * 2.0)
        print(
            f"  sum(x * 2.0) on {target} = {float(y):.2f}  (computed where x lives; moves={ledger.count - before - 1} "
            f"before reading the result)"
        )
    print()
    ledger.report()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m unifiedarray", description=_DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"unifiedarray {__version__}")
    parser.add_argument(
        "--json", action="store_true", help="print the report as one JSON object (no demonstration) and exit"
    )
    parser.add_argument("--no-demo", action="store_true", help="print the report only, without the demonstration")
    return parser


def _run(argv: list[str] | None) -> int:
    args = _parser().parse_args(argv)
    info = report_dict()
    if args.json:
        json.dump(info, sys.stdout, indent=2, default=str)  # default: a driver property of an odd type
        print()
        return 0
    print_report(info)
    if not args.no_demo:
        demo()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    A reader that closes the pipe early (``python -m unifiedarray | head -1``)
    ends the program quietly with status 0: the reader has what it wanted.
    """
    try:
        try:
            status = _run(argv)
        except SystemExit as exc:  # argparse exits after --help and --version, and on bad arguments
            status = int(exc.code or 0)
        sys.stdout.flush()  # inside the try: a closed pipe shows up here, not at interpreter exit
    except BrokenPipeError:
        # Python flushes stdout again at exit: point it at /dev/null so that flush cannot fail too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
