"""A few seconds of scikit-learn's, array-api-extra's, SciPy's and xarray's own tests on unifiedarray, for CI.

The full runs are ``python -m conformance.run_suites sklearn|xpx|scipy|xarray --device cpu|mlx`` (minutes; see
``conformance/README.md``). Here each suite runs a small slice through the same runner, on every
device present, and must show no failure outside its xfails file. A suite that is not installed is
skipped, with the reason.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.run import REPO_ROOT, parse_xfails
from conformance.run_suites import SUITES, parse_args
from conformance.suite_plugin import matches, read_xfails

HAS_MLX = importlib.util.find_spec("mlx") is not None
DEVICES = ["cpu", pytest.param("mlx", marks=pytest.mark.skipif(not HAS_MLX, reason="MLX is not installed"))]

# Slices that take a few seconds each and walk different parts of the library: indexing and
# in-place updates (xpx.at), sets and sorting, and scikit-learn's array API helpers and one estimator
# family's metrics. (-k narrows scikit-learn's module to the functions named, then to array_api.)
SLICES = {
    "xpx": (
        [
            "array_api_extra/tests/main/test_at.py",
            "array_api_extra/tests/main/test_set.py",
            "array_api_extra/tests/main/test_sorting.py",
            "array_api_extra/tests/main/test_manipulation.py",
        ],
        [],
    ),
    "sklearn": (
        ["sklearn/utils/tests/test_array_api.py"],
        ["-k", "test_average or test_isin or test_nanmin or test_nanmax or test_count_nonzero or test_median"],
    ),
    # tanh-sinh's vectorization and options (the tests that mix integer widths in place wait
    # for the rules of issue #19).
    "scipy": (
        ["scipy/integrate/tests/test_tanhsinh.py"],
        ["-k", "TestTanhSinh and (test_vectorization or test_minlevel or test_flags or test_jumpstart)"],
    ),
    # xarray's rolling windows, cumulative reductions and derivatives on UnifiedArray-backed DataArrays.
    "xarray": (
        ["xarray/tests/test_duck_array_wrapping.py"],
        [
            "-k",
            "test_rolling_reduce or test_rolling_construct or test_cumulative_reduce or test_differentiate "
            "or test_quantile or test_median or test_std or test_cumsum or test_coarsen_reduce",
        ],
    ),
}

#: The fewest tests a slice runs with unifiedarray's parametrizations: a plugin that failed to add
#: the namespace would give 0 rather than a failure.
MINIMUM_PASSED = {"xpx": 40, "sklearn": 40, "scipy": 8, "xarray": 10}


def _require(suite: str) -> None:
    if importlib.util.find_spec(SUITES[suite].package) is None:
        pytest.skip(f"{SUITES[suite].distribution} is not installed, so its suite cannot run")


def _run(suite: str, device: str, tmp_path: Path) -> dict:
    tests, extra = SLICES[suite]
    summary = tmp_path / "summary.json"
    cmd = [sys.executable, "-m", "conformance.run_suites", suite, "--device", device, "--tests", *tests]
    cmd += ["--json", str(summary), "--cache-dir", str(tmp_path / "cache"), "--quiet", "--", *extra]
    proc = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert summary.is_file(), f"the runner wrote no summary:\n{proc.stdout}\n{proc.stderr}"
    result = json.loads(summary.read_text(encoding="utf-8"))
    result["returncode"] = proc.returncode
    return result


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("suite", sorted(SLICES))
def test_suite_slice_passes(suite: str, device: str, tmp_path: Path) -> None:
    """The slice runs unifiedarray's parametrizations only, and none fails outside the xfails file."""
    _require(suite)
    result = _run(suite, device, tmp_path)
    failed = [f"{f['id']}: {f['error']}" for f in result["failures"]]
    assert not failed, "\n".join(failed)
    assert result["returncode"] == 0
    assert result["passed"] >= MINIMUM_PASSED[suite], result
    assert result["device"] == device


def test_reference_namespace_selects_other_parametrizations(tmp_path: Path) -> None:
    """--namespace numpy runs the same slice with NumPy's parametrizations: the reference counts."""
    _require("xpx")
    tests, _ = SLICES["xpx"]
    summary = tmp_path / "summary.json"
    cmd = [sys.executable, "-m", "conformance.run_suites", "xpx", "--namespace", "numpy", "--tests", tests[0]]
    cmd += ["--json", str(summary), "--cache-dir", str(tmp_path / "cache"), "--quiet"]
    subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, check=False)
    result = json.loads(summary.read_text(encoding="utf-8"))
    assert result["namespace"] == "numpy"
    assert result["failed"] == 0 and result["passed"] > 0, result


def test_reference_namespace_is_host_only() -> None:
    with pytest.raises(SystemExit):
        parse_args(["xpx", "--namespace", "numpy", "--device", "mlx"])


@pytest.mark.parametrize(
    ("entry", "nodeid", "expected"),
    [
        ("a/t.py::test_f", "a/t.py::test_f[unifiedarray-1]", True),
        ("a/t.py::test_f", "a/t.py::test_f", True),
        ("a/t.py::TestC", "a/t.py::TestC::test_g[unifiedarray]", True),
        ("a/t.py", "a/t.py::test_f[unifiedarray]", True),
        ("a/t.py::test_f", "a/t.py::test_f2[unifiedarray]", False),
        ("a/t.py::test_f[x-1]", "a/t.py::test_f[x-10]", False),
    ],
)
def test_xfail_entry_matching(entry: str, nodeid: str, expected: bool) -> None:
    """An entry names one parametrization, a test (all of them), a class or a file; never a prefix."""
    assert matches(entry, nodeid) is expected


def test_every_xfail_names_its_reason() -> None:
    """Each suite's xfails file parses with the runner's checks (a reason on every line)."""
    for suite in SUITES.values():
        for path in sorted(Path(__file__).parent.glob(f"xfails-{suite.name}-*.txt")):
            entries = parse_xfails(path, prefix=suite.id_prefix)
            assert [(e.test_id, e.reason) for e in entries] == read_xfails(path)
            assert all(len(e.reason) > 20 for e in entries), path
