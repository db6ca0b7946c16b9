"""Run the Array API conformance suite (data-apis/array-api-tests) on one device.

Usage, from the repository root::

    python -m conformance.run --suite /path/to/array-api-tests --device cpu \
        [--max-examples 200] [--module unifiedarray] [-- extra pytest args]

The suite is an external checkout; it is never copied into this repository.
See ``conformance/README.md`` for the xfails format and the JSON summary.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

API_VERSION = "2025.12"
CONFORMANCE_DIR = Path(__file__).resolve().parent
REPO_ROOT = CONFORMANCE_DIR.parent
# Modules whose default device can be chosen with ``set_default_device``;
# any other namespace is tested as it is, which only makes sense on the host.
DEVICE_AWARE_MODULES = frozenset({"unifiedarray"})
# Node ids are relative to the suite root, where the runner starts pytest.
TEST_ID_PREFIX = "array_api_tests/"
COUNT_KEYS = ("passed", "failed", "xfailed", "xpassed", "skipped", "errors")
# cpu, mlx, cuda, cuda:N, or a backend plug-in's device ("sealed:0"); the
# library itself says whether the device is there.
_DEVICE_RE = re.compile(r"^[a-z][a-z0-9_]*(:\d+)?$")
# The id runs up to the first '#' preceded by whitespace; no suite id contains
# " #", and ids themselves may contain spaces ("test_add[__add__(x1, x2)]").
_XFAIL_LINE_RE = re.compile(r"^(?P<id>.*?\S)\s+#(?P<reason>.*)$")
_MAX_MESSAGE_CHARS = 500


class ConfigError(Exception):
    """A problem with the runner's inputs; reported without a traceback."""


@dataclass(frozen=True)
class Xfail:
    """One entry of an xfails file."""

    test_id: str
    reason: str
    lineno: int


def parse_xfails(path: Path, prefix: str = TEST_ID_PREFIX) -> list[Xfail]:
    """Parse ``<test id>  # <reason>`` lines, rejecting any entry without a reason.

    Every id must start with ``prefix`` (the suite's root, ``array_api_tests/`` by default).
    """
    if not path.is_file():
        raise ConfigError(f"xfails file not found: {path}")
    entries: list[Xfail] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _XFAIL_LINE_RE.match(line)
        reason = match["reason"].strip() if match else ""
        if match is None or not reason:
            problems.append(f"{path}:{lineno}: missing '  # <reason>': {line!r}")
            continue
        test_id = match["id"]
        if not test_id.startswith(prefix):
            # The suite silently ignores ids that match nothing; catch typos here.
            problems.append(f"{path}:{lineno}: test id must start with {prefix!r}: {test_id!r}")
            continue
        if test_id in seen:
            problems.append(f"{path}:{lineno}: duplicate of line {seen[test_id]}: {test_id!r}")
            continue
        seen[test_id] = lineno
        entries.append(Xfail(test_id, reason, lineno))
    if problems:
        raise ConfigError("invalid xfails file:\n  " + "\n  ".join(problems))
    return entries


def device_kind(device: str) -> str:
    """``"cuda:1"`` -> ``"cuda"``; names the per-device xfails and results files."""
    return device.split(":", 1)[0]


def module_spec(module: str, device: str) -> str:
    """Value for ``ARRAY_API_TESTS_MODULE`` that tests ``module`` with ``device`` as default."""
    if module in DEVICE_AWARE_MODULES:
        target = "cuda:0" if device == "cuda" else device
        # The suite strips exactly "exec('" and "')", so use double quotes inside.
        return f"exec('import {module} as xp; xp.set_default_device(\"{target}\")')"
    if device != "cpu":
        raise ConfigError(
            f"--device {device} needs a device-aware module "
            f"({', '.join(sorted(DEVICE_AWARE_MODULES))}); {module!r} only runs on cpu"
        )
    return module


def check_suite(suite: Path) -> None:
    """Fail early, with a useful hint, on an incomplete suite checkout."""
    if not (suite / "conftest.py").is_file() or not (suite / "array_api_tests").is_dir():
        raise ConfigError(f"{suite} is not an array-api-tests checkout")
    # stubs.py asserts on these paths at import time with a less helpful message.
    spec = suite / "array-api" / "spec" / API_VERSION
    stubs_name = "_" + API_VERSION.replace(".", "_")
    stubs = suite / "array-api" / "src" / "array_api_stubs" / stubs_name
    if not spec.is_dir() or not stubs.is_dir():
        raise ConfigError(
            f"{suite}/array-api lacks the {API_VERSION} spec; run `git -C {suite} submodule update --init`"
        )
    if importlib.util.find_spec("pytest_jsonreport") is None:
        # The suite's reporting.py refuses to load without it, and so do we.
        raise ConfigError("pytest-json-report is not installed")


def git_commit(path: Path) -> str | None:
    """HEAD commit of the git checkout at ``path``, or None if it is not one."""
    if not (path / ".git").exists():
        return None
    result = subprocess.run(
        ["git", "-C", str(path), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout.strip() or None


def default_cache_dir() -> Path:
    """Per-user cache, outside the repository and the suite checkout."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "unifiedarray-conformance"


def suite_environment() -> dict[str, str]:
    """This process's environment for a suite's own pytest, less what marks
    a pytest-xdist worker (``PYTEST_XDIST_*``): run from a worker (``pytest
    -n``), the suite is its own session, not one of the worker's."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST_")}


def first_line(text: str) -> str:
    """First non-blank line of ``text``, shortened for the summary."""
    for line in text.splitlines():
        if line.strip():
            line = line.strip()
            if len(line) > _MAX_MESSAGE_CHARS:
                line = line[:_MAX_MESSAGE_CHARS] + "…"
            return line
    return ""


def failure_details(test: dict[str, Any]) -> tuple[str, str]:
    """First line and location of the error of a failed or erroring test."""
    for stage in ("setup", "call", "teardown"):
        info = test.get(stage) or {}
        if info.get("outcome") == "failed":
            crash = info.get("crash") or {}
            # A bare ``assert`` only says "assert False"; the location says which.
            location = f"{crash['path']}:{crash['lineno']}" if crash.get("path") else ""
            return first_line(crash.get("message") or info.get("longrepr") or ""), location
    return "", ""


def summarize(
    report: dict[str, Any],
) -> tuple[dict[str, int], list[dict[str, str]], list[str]]:
    """Outcome counts, failing tests and xpassed ids from a pytest-json-report report.

    ``errors`` covers setup/teardown errors and collection errors; ``total`` is
    the sum of all counts.
    """
    counts = dict.fromkeys(COUNT_KEYS, 0)
    failures: list[dict[str, str]] = []
    xpassed: list[str] = []
    for test in report.get("tests", []):
        outcome = "errors" if test["outcome"] == "error" else test["outcome"]
        counts[outcome] = counts.get(outcome, 0) + 1
        if outcome == "xpassed":
            xpassed.append(test["nodeid"])
        if outcome in ("failed", "errors"):
            error, location = failure_details(test)
            failures.append({"id": test["nodeid"], "outcome": test["outcome"], "error": error, "location": location})
    for collector in report.get("collectors", []):
        if collector.get("outcome") == "failed":
            counts["errors"] += 1
            failures.append(
                {
                    "id": collector.get("nodeid") or "<collection>",
                    "outcome": "collection error",
                    "error": first_line(collector.get("longrepr", "")),
                    "location": "",
                }
            )
    counts["total"] = sum(counts.values())
    return counts, failures, xpassed


def parse_args(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    """Runner options, and the pytest arguments that follow ``--``."""
    argv = list(argv)
    extra: list[str] = []
    if "--" in argv:
        split = argv.index("--")
        argv, extra = argv[:split], argv[split + 1 :]

    def device(value: str) -> str:
        if not _DEVICE_RE.match(value):
            raise argparse.ArgumentTypeError(f"expected cpu, mlx, cuda, cuda:N or a plug-in's device, got {value!r}")
        return value

    parser = argparse.ArgumentParser(
        prog="python -m conformance.run",
        description="Run data-apis/array-api-tests against an Array API namespace on one device.",
        epilog="Arguments after '--' go to pytest unchanged, e.g. -- -x --disable-extension fft",
    )
    parser.add_argument(
        "--suite", type=Path, required=True, help="path to an array-api-tests checkout (with its array-api submodule)"
    )
    parser.add_argument(
        "--device",
        type=device,
        required=True,
        help="default device under test: cpu, mlx, cuda or cuda:N (cuda = cuda:0), or a backend plug-in's "
        "(found through the unifiedarray.backends entry point group)",
    )
    parser.add_argument(
        "--module", default="unifiedarray", help="namespace to test (default: unifiedarray); others run on cpu only"
    )
    parser.add_argument(
        "--max-examples", type=int, default=100, help="hypothesis examples per test (default: 100, the suite's default)"
    )
    parser.add_argument(
        "--xfails", type=Path, default=None, help="xfails file (default: conformance/xfails-<device>.txt)"
    )
    parser.add_argument(
        "--xfail-mark",
        choices=("xfail", "skip"),
        default="xfail",
        help="run xfailed tests (xfail) or skip them (skip: much faster)",
    )
    parser.add_argument(
        "--json", type=Path, default=None, help="summary path (default: conformance/results-<device>.json)"
    )
    parser.add_argument(
        "--tests",
        nargs="+",
        default=["array_api_tests"],
        metavar="ID",
        help="test files or node ids, relative to the suite (default: all)",
    )
    parser.add_argument("--workers", type=int, default=0, help="parallel pytest workers; needs pytest-xdist")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help="hypothesis database and pytest cache (default: $XDG_CACHE_HOME/unifiedarray-conformance)",
    )
    parser.add_argument(
        "--keep-deadline",
        action="store_true",
        help="keep Hypothesis' 800 ms per-example deadline (disabled by default)",
    )
    parser.add_argument(
        "--no-hypothesis-db", action="store_true", help="use a throw-away hypothesis database instead of the cached one"
    )
    args = parser.parse_args(argv)
    if args.max_examples < 1:
        parser.error("--max-examples must be at least 1")
    if args.workers < 0:
        parser.error("--workers must be non-negative")
    return args, extra


def build_command(
    args: argparse.Namespace,
    xfails_file: Path,
    report_file: Path,
    cache_dir: Path,
    extra: list[str],
) -> list[str]:
    """The pytest command line, run from the suite root."""
    cmd = [sys.executable, "-m", "pytest", *args.tests]
    # Options taking several values (--json-report-omit here, --disable-extension
    # in ``extra``) swallow the positional ids that follow them: ids go first.
    cmd += [
        f"--max-examples={args.max_examples}",
        f"--xfails-file={xfails_file}",
        "--json-report",
        f"--json-report-file={report_file}",
        # Its "report saved to" line would name a temporary file.
        "--json-report-verbosity=-1",
        "--json-report-omit",
        "keywords",
        "streams",
        "log",
        "warnings",
        "traceback",
        # Keep pytest's cache (for -- --lf) out of the suite checkout.
        "-o",
        f"cache_dir={cache_dir}",
        "-rfE",
    ]
    if not args.keep_deadline:
        # Hypothesis' 800 ms per-example deadline measures the machine, not
        # conformance: on a loaded 2-core runner it fails tests at random.
        cmd.append("--hypothesis-disable-deadline")
    if args.workers:
        cmd += ["-n", str(args.workers)]
    return cmd + extra


def run(argv: Sequence[str]) -> int:
    """Run the suite once and write the summary; returns the process exit code."""
    args, extra = parse_args(argv)
    suite: Path = args.suite.expanduser().resolve()
    kind = device_kind(args.device)
    check_suite(suite)
    spec = module_spec(args.module, args.device)
    if args.workers and importlib.util.find_spec("xdist") is None:
        raise ConfigError("--workers needs pytest-xdist, which is not installed")
    xfails_path = args.xfails or CONFORMANCE_DIR / f"xfails-{kind}.txt"
    xfails = parse_xfails(xfails_path)
    json_path: Path = args.json or CONFORMANCE_DIR / f"results-{kind}.json"
    cache_root: Path = (args.cache_dir or default_cache_dir()).expanduser().resolve()
    pytest_cache = cache_root / "pytest" / f"{args.module}-{args.device}".replace(":", "_")

    with tempfile.TemporaryDirectory(prefix="conformance-") as tmp_name:
        tmp = Path(tmp_name)
        clean_xfails = tmp / "xfails.txt"
        clean_xfails.write_text("".join(f"{x.test_id}\n" for x in xfails), encoding="utf-8")
        report_file = tmp / "report.json"
        env = suite_environment()
        env.update(
            ARRAY_API_TESTS_MODULE=spec,
            ARRAY_API_TESTS_VERSION=API_VERSION,
            ARRAY_API_TESTS_XFAIL_MARK=args.xfail_mark,
            # Hypothesis would otherwise write .hypothesis/ into the working directory.
            HYPOTHESIS_STORAGE_DIRECTORY=str(
                tmp / "hypothesis" if args.no_hypothesis_db else cache_root / "hypothesis"
            ),
            # Lets the suite import the in-tree namespace without installing it.
            PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")])),
        )
        if args.module == "unifiedarray" and kind == "mlx":
            # MLX cannot hold complex128 (a TypeError naming mlx and the
            # dtype, by design); the suite's own switch leaves that dtype out.
            env["ARRAY_API_TESTS_SKIP_DTYPES"] = "complex128"
        cmd = build_command(args, clean_xfails, report_file, pytest_cache, extra)
        print(f"ARRAY_API_TESTS_MODULE={spec}", flush=True)
        print("$ " + " ".join(cmd), flush=True)
        started = time.monotonic()
        with subprocess.Popen(cmd, cwd=suite, env=env) as proc:
            try:
                returncode = proc.wait()
            except KeyboardInterrupt:
                # pytest sees the same SIGINT, stops, and still writes its report.
                returncode = proc.wait()
        duration = time.monotonic() - started
        report: dict[str, Any] | None = None
        if report_file.is_file():
            report = json.loads(report_file.read_text(encoding="utf-8"))

    counts, failures, xpassed = summarize(report or {})
    summary: dict[str, Any] = {
        "module": args.module,
        "device": args.device,
        "api_version": API_VERSION,
        "max_examples": args.max_examples,
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "duration_s": round(duration, 1),
        "suite_path": str(suite),
        "suite_commit": git_commit(suite),
        "spec_commit": git_commit(suite / "array-api"),
        "tests": args.tests,
        "xfails_file": str(xfails_path),
        "xfails_entries": len(xfails),
        "xfail_mark": args.xfail_mark,
        "env": {k: v for k, v in sorted(env.items()) if k.startswith("ARRAY_API_")},
        "pytest_args": cmd[3:],
        "pytest_exit_code": returncode,
        "report_missing": report is None,
        **counts,
        "failures": failures,
        # Candidates for removal from the xfails file.
        "xpassed_ids": xpassed,
    }
    return report_summary(summary, json_path)


#: Summary fields too long to print (they are in the JSON file; pytest's -rfE
#: already printed the failures).
LONG_FIELDS = ("failures", "xpassed_ids", "xfailed_ids", "pytest_args")


def report_summary(summary: dict[str, Any], json_path: Path) -> int:
    """Write ``summary`` to ``json_path``, print its short fields, and give
    the runner's exit status: 1 for a failure or error, pytest's own status
    where it is not 0 (5 nothing collected, 2 interrupted, 4 bad arguments),
    1 where pytest wrote no report."""
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in summary.items() if k not in LONG_FIELDS}, indent=2))
    print(f"{len(summary['failures'])} failing test ids written to {json_path}")
    returncode, missing = summary["pytest_exit_code"], summary["report_missing"]
    if missing:
        print(f"pytest (exit code {returncode}) wrote no report; see its output above", file=sys.stderr)
    if summary["failed"] or summary["errors"]:
        return 1
    return int(returncode) if returncode != 0 else (1 if missing else 0)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: runner errors exit with status 2 and no traceback."""
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except ConfigError as exc:
        print(f"conformance.run: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
