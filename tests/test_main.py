"""``python -m unifiedarray``: its options, its JSON, and a closed pipe, each in a real subprocess."""

from __future__ import annotations

import doctest
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import unifiedarray
import unifiedarray.__main__ as cli
import unifiedarray._version as version_module
from unifiedarray.backends import registry

ROOT = Path(__file__).resolve().parent.parent


def _env() -> dict[str, str]:
    # The subprocess imports this checkout's package, not an installed one.
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "unifiedarray", *args],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=timeout,
        cwd=ROOT,
    )


def test_help() -> None:
    proc = run("--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: python -m unifiedarray")
    for option in ("--version", "--json", "--no-demo"):
        assert option in proc.stdout
    assert proc.stderr == ""


def test_version_is_the_one_written_in_version_module() -> None:
    proc = run("--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"unifiedarray {version_module.__version__}"
    assert unifiedarray.__version__ == version_module.__version__


def test_pyproject_reads_the_version_module() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in meta["project"], "the version is written in unifiedarray/_version.py only"
    assert "version" in meta["project"]["dynamic"]
    assert meta["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "unifiedarray._version.__version__"}


def test_unknown_option_is_an_error_without_traceback() -> None:
    proc = run("--bogus")
    assert proc.returncode == 2
    assert "unrecognized arguments: --bogus" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_json_report_matches_this_machine() -> None:
    proc = run("--json")
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert info["unifiedarray"] == version_module.__version__
    rows = {row["backend"]: row for row in info["backends"]}
    backends = {backend.name: backend for backend in registry().values()}
    assert set(rows) == set(backends)
    for name, backend in backends.items():
        row = rows[name]
        assert row["available"] is backend.available
        assert row["reason"] == backend.unavailable_reason
        expected = [str(d) for d in backend.devices()] if backend.available else []
        assert [d["device"] for d in row["devices"]] == expected
    host = rows["numpy"]["devices"][0]
    assert host["device"] == "cpu"
    assert 0 < host["free"] <= host["total"]
    assert info["metal"]["available"] is (info["metal"]["reason"] is None)
    assert "demo" not in proc.stdout  # --json prints the report only


def test_default_run_reports_then_demonstrates() -> None:
    proc = run()
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"unifiedarray {version_module.__version__}: backends and devices")
    assert "demo:" in proc.stdout
    assert "total" in proc.stdout  # the ledger's table ends the demonstration
    if registry()["mlx"].available or registry()["cuda"].available:
        # The stale read moves once, the second read does not: the point of the demonstration
        # (on the machine's first accelerator: a GPU, simulated in the tests, or MLX).
        assert "(stale copy read: one move)" in proc.stdout
        lines = [line for line in proc.stdout.splitlines() if "buf.read('" in line]
        assert [line.rsplit("moves=", 1)[1] for line in lines] == ["1", "0"]


def test_no_demo() -> None:
    proc = run("--no-demo")
    assert proc.returncode == 0, proc.stderr
    assert "backends and devices" in proc.stdout
    assert "demo:" not in proc.stdout


@pytest.mark.parametrize("args", [(), ("--json",), ("--help",), ("--no-demo",)])
def test_closed_pipe_ends_quietly(args: tuple[str, ...]) -> None:
    # A pipe whose read end is closed before the program starts: its first write fails
    # (EPIPE), deterministically, as when `| head -1` has read its line and gone.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "unifiedarray", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
            timeout=120,
            cwd=ROOT,
        )
    finally:
        os.close(write_end)
    assert "Traceback" not in proc.stderr
    assert "BrokenPipeError" not in proc.stderr
    assert proc.stderr == ""
    assert proc.returncode == 0


def test_head_in_a_shell() -> None:
    # The case from the issue, as a user types it.
    exe = f"{sys.executable} -m unifiedarray | head -1"
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", exe], capture_output=True, text=True, env=_env(), cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"unifiedarray {version_module.__version__}: backends and devices\n"
    assert proc.stderr == ""


def test_module_docstring_examples() -> None:
    for module in (cli, version_module):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert result.attempted > 0 and result.failed == 0, module.__name__
