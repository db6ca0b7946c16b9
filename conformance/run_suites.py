"""Run scikit-learn's, array-api-extra's, SciPy's (integrate) or xarray's (rolling, integrate) own tests on
``unifiedarray``, on one device.

Usage, from the repository root::

    python -m conformance.run_suites sklearn --device mlx
    python -m conformance.run_suites xpx --device cpu
    python -m conformance.run_suites scipy --device mlx
    python -m conformance.run_suites xarray --device mlx
    python -m conformance.run_suites sklearn --namespace array_api_strict   # reference counts
    python -m conformance.run_suites xpx --device mlx --tests array_api_extra/tests/main/test_at.py -- -x

The suites are the test modules that ship in the installed ``scikit-learn`` and ``array-api-extra``
wheels; nothing of them is copied here. ``conformance/suite_plugin.py`` adds unifiedarray to each
suite's list of backends and keeps only the tests parametrized with the namespace under test. See
``conformance/README.md`` for the xfails files and the JSON summary.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.run import (
    CONFORMANCE_DIR,
    REPO_ROOT,
    ConfigError,
    Xfail,
    default_cache_dir,
    device_kind,
    git_commit,
    parse_xfails,
    report_summary,
    suite_environment,
    summarize,
)
from conformance.suite_plugin import UNIFIEDARRAY, matches

DEVICES = ("cpu", "mlx", "cuda")


@dataclass(frozen=True)
class Suite:
    """How to find and run one library's own tests."""

    name: str  # the runner's name for it, also in file names
    package: str  # the importable package whose tests run
    distribution: str  # its name on PyPI, for the version
    tests: tuple[str, ...]  # default targets, relative to the package's parent directory
    keyword: str | None  # the -k expression that selects the suite's tests
    ini: str  # pytest configuration the suite's own repository would give

    def root(self) -> Path:
        """The directory holding the installed package (pytest's rootdir: node ids start with the package)."""
        spec = importlib.util.find_spec(self.package)
        if spec is None or spec.origin is None:
            raise ConfigError(f"{self.distribution} is not installed; `pip install {self.distribution}`")
        return Path(spec.origin).resolve().parent.parent

    @property
    def id_prefix(self) -> str:
        """What every node id of the suite starts with: the package's name."""
        return self.package + "/"


SUITES = {
    "sklearn": Suite(
        name="sklearn",
        package="sklearn",
        distribution="scikit-learn",
        tests=("sklearn",),
        keyword="array_api",
        # `pytest --pyargs sklearn` on an installed wheel reads no configuration file.
        ini="[pytest]\n",
    ),
    "xpx": Suite(
        name="xpx",
        package="array_api_extra",
        distribution="array-api-extra",
        # tests/vendoring needs a vendored copy made by upstream's pixi task; tests/run_deps and
        # it test no backend, so the plugin would deselect them anyway.
        tests=("array_api_extra/tests/main",),
        keyword=None,
        # The settings of [tool.pytest.ini_options] in array-api-extra's pyproject.toml (not in the
        # wheel): its tests expect warnings to be errors and their own xfails to be strict.
        ini=(
            "[pytest]\n"
            "xfail_strict = true\n"
            "filterwarnings =\n    error\n"
            # Not the suite's: Hypothesis imports libcst to print a failure's patch, and libcst warns
            # through mypy_extensions here, which would turn the report of a failure into a crash.
            "    ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning\n"
            "markers =\n"
            "    skip_xp_backend(library, /, *, reason=None): Skip test for a specific backend\n"
            "    xfail_xp_backend(library, /, *, reason=None, strict=None): Xfail test for a specific backend\n"
            # Used by pytest-run-parallel, which registers it when installed.
            "    thread_unsafe: not safe to run in parallel threads\n"
        ),
    ),
    "scipy": Suite(
        name="scipy",
        package="scipy",
        distribution="scipy",
        # SciPy's integrate tests of nsum and tanh-sinh (TestTanhSinh, TestNSum and their helpers).
        tests=("scipy/integrate/tests/test_tanhsinh.py",),
        keyword=None,
        # SciPy's conftest registers its markers itself; the wheel carries no pytest.ini.
        ini="[pytest]\n",
    ),
    "xarray": Suite(
        name="xarray",
        package="xarray",
        distribution="xarray",
        tests=(
            "xarray/tests/test_rolling.py",
            "xarray/tests/test_dataset.py::test_integrate",
            "xarray/tests/test_dataset.py::test_cumulative_integrate",
            "xarray/tests/test_dataset.py::test_trapezoid_datetime",
            "xarray/tests/test_duck_array_wrapping.py",
        ),
        keyword=None,
        # The markers of [tool.pytest.ini_options] in xarray's pyproject.toml (not in the wheel).
        ini=(
            "[pytest]\n"
            "markers =\n"
            "    flaky: flaky tests\n"
            "    mypy: type annotation tests\n"
            "    network: tests requiring a network connection\n"
            "    slow: slow tests\n"
            "    slow_hypothesis: slow hypothesis tests\n"
        ),
    ),
}


def parse_args(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    """Runner options, and the pytest arguments that follow ``--``."""
    argv = list(argv)
    extra: list[str] = []
    if "--" in argv:
        split = argv.index("--")
        argv, extra = argv[:split], argv[split + 1 :]
    parser = argparse.ArgumentParser(
        prog="python -m conformance.run_suites",
        description="Run a library's own tests (sklearn, xpx, scipy, xarray) on unifiedarray, on one device.",
        epilog="Arguments after '--' go to pytest unchanged, e.g. -- -x --lf",
    )
    parser.add_argument(
        "suite",
        choices=sorted(SUITES),
        help="sklearn (scikit-learn), xpx (array-api-extra), scipy (integrate: nsum, tanh-sinh) "
        "or xarray (rolling, integrate)",
    )
    parser.add_argument("--device", choices=DEVICES, default="cpu", help="unifiedarray's default device (cpu)")
    parser.add_argument(
        "--namespace",
        default=UNIFIEDARRAY,
        help="namespace whose parametrizations run (default: unifiedarray; numpy or array_api_strict for reference)",
    )
    parser.add_argument(
        "--tests",
        nargs="+",
        default=None,
        metavar="ID",
        help="test files or node ids relative to the package's parent, e.g. sklearn/metrics/tests/test_common.py",
    )
    parser.add_argument("--xfails", type=Path, default=None, help="default: conformance/xfails-<suite>-<device>.txt")
    parser.add_argument("--json", type=Path, default=None, help="default: conformance/results-<suite>-<ns>-<dev>.json")
    parser.add_argument(
        "--cache-dir", type=Path, default=None, help="pytest cache (default: $XDG_CACHE_HOME/unifiedarray-conformance)"
    )
    parser.add_argument("--timeout", type=float, default=None, help="stop pytest after this many seconds")
    parser.add_argument("--quiet", action="store_true", help="only the summary, not pytest's output")
    args = parser.parse_args(argv)
    if args.namespace != UNIFIEDARRAY and args.device != "cpu":
        parser.error(f"--device {args.device} is for unifiedarray; {args.namespace} runs on cpu only")
    return args, extra


def versions(suite: Suite) -> dict[str, str | None]:
    """Versions of the suite and of the libraries under it, for the summary."""
    found: dict[str, str | None] = {}
    for dist in (suite.distribution, "numpy", "scipy", "array-api-compat", "array-api-strict", "mlx"):
        try:
            found[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            found[dist] = None
    return found


def unmatched_xfails(xfails: list[Xfail], report: dict[str, Any]) -> list[str]:
    """Entries that name no test of the run (stale or mistyped ids; meaningful on a full run)."""
    ids = [test["nodeid"] for test in report.get("tests", [])]
    return [x.test_id for x in xfails if not any(matches(x.test_id, nodeid) for nodeid in ids)]


def build_command(
    args: argparse.Namespace, suite: Suite, ini: Path, xfails: Path, report: Path, cache: Path, extra: list[str]
) -> list[str]:
    """The pytest command line (run from an empty directory, with the package's parent as rootdir)."""
    root = suite.root()
    targets = [str(root / t) for t in (args.tests or suite.tests)]
    cmd = [sys.executable, "-m", "pytest", *targets, "-p", "conformance.suite_plugin"]
    cmd += [f"--ua-suite={suite.name}", f"--ua-device={args.device}", f"--ua-namespace={args.namespace}"]
    cmd += [f"--ua-xfails={xfails}", "-c", str(ini), f"--rootdir={root}", "-o", f"cache_dir={cache}"]
    extra = list(extra)
    keyword = suite.keyword
    if "-k" in extra[:-1]:
        # pytest keeps only the last -k: fold the user's expression into the suite's.
        at = extra.index("-k")
        user = extra[at + 1]
        del extra[at : at + 2]
        keyword = f"({keyword}) and ({user})" if keyword else user
    if keyword:
        cmd += ["-k", keyword]
    cmd += [
        "--json-report",
        f"--json-report-file={report}",
        "--json-report-verbosity=-1",
        "--json-report-omit",
        "keywords",
        "streams",
        "log",
        "warnings",
        "traceback",
        "-rfE",
        "-q",
        "--tb=line",
    ]
    return cmd + extra


def run(argv: Sequence[str]) -> int:
    """Run the suite once and write the summary; returns the process exit code."""
    args, extra = parse_args(argv)
    suite = SUITES[args.suite]
    root = suite.root()
    kind = device_kind(args.device)
    xfails_path: Path = args.xfails or CONFORMANCE_DIR / f"xfails-{suite.name}-{kind}.txt"
    # The reference namespaces are not ours: our xfails say nothing about them.
    xfails = parse_xfails(xfails_path, prefix=suite.id_prefix) if args.namespace == UNIFIEDARRAY else []
    json_path: Path = args.json or CONFORMANCE_DIR / f"results-{suite.name}-{args.namespace}-{kind}.json"
    cache_root: Path = (args.cache_dir or default_cache_dir()).expanduser().resolve()
    cache = cache_root / "pytest" / f"{suite.name}-{args.namespace}-{kind}"

    with tempfile.TemporaryDirectory(prefix=f"suite-{suite.name}-") as tmp_name:
        tmp = Path(tmp_name)
        ini = tmp / "pytest.ini"
        ini.write_text(suite.ini, encoding="utf-8")
        clean_xfails = tmp / "xfails.txt"
        clean_xfails.write_text("".join(f"{x.test_id}  # {x.reason}\n" for x in xfails), encoding="utf-8")
        report_file = tmp / "report.json"
        env = suite_environment()
        env.update(
            # scikit-learn skips its array API tests without it (and SciPy needs it to take our arrays).
            SCIPY_ARRAY_API="1",
            HYPOTHESIS_STORAGE_DIRECTORY=str(cache_root / "hypothesis"),
            # The in-tree unifiedarray and the plugin, ahead of any installed copy.
            PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")])),
        )
        cmd = build_command(args, suite, ini, clean_xfails, report_file, cache, extra)
        print("$ " + " ".join(cmd), flush=True)
        started = time.monotonic()
        out = subprocess.DEVNULL if args.quiet else None
        with subprocess.Popen(cmd, cwd=tmp, env=env, stdout=out) as proc:
            try:
                returncode = proc.wait(timeout=args.timeout)
            except subprocess.TimeoutExpired:
                proc.terminate()
                returncode = proc.wait()
            except KeyboardInterrupt:
                returncode = proc.wait()
        duration = time.monotonic() - started
        report: dict[str, Any] | None = None
        if report_file.is_file():
            report = json.loads(report_file.read_text(encoding="utf-8"))

    counts, failures, xpassed = summarize(report or {})
    summary: dict[str, Any] = {
        "suite": suite.name,
        "namespace": args.namespace,
        "device": args.device,
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "duration_s": round(duration, 1),
        "commit": git_commit(REPO_ROOT),
        "versions": versions(suite),
        "suite_root": str(root),
        "tests": args.tests,
        "xfails_file": str(xfails_path),
        "xfails_entries": len(xfails),
        "xfails_unmatched": unmatched_xfails(xfails, report or {}) if not args.tests else [],
        "pytest_args": cmd[3:],
        "pytest_exit_code": returncode,
        "report_missing": report is None,
        **counts,
        "failures": failures,
        "xpassed_ids": xpassed,
        # The suite's own xfail marks count here too, and may hide a failure of ours: look.
        "xfailed_ids": [t["nodeid"] for t in (report or {}).get("tests", []) if t["outcome"] == "xfailed"],
    }
    return report_summary(summary, json_path)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: runner errors exit with status 2 and no traceback."""
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except ConfigError as exc:
        print(f"conformance.run_suites: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
