"""The compiled hot path (unifiedarray/_compiled.py): the switch back to pure
Python, a build compiled whole or not at all, and the ``.pxd`` declarations
in step with the classes they compile.

The behaviour of the two builds is held the same by running the whole suite
on each (README.md's test command), and by one corpus of calls run in both
builds and compared (``tests/build_corpus.py``); these tests hold the
machinery and the corpus."""

from __future__ import annotations

import ast
import importlib.machinery
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import unifiedarray as xp
from unifiedarray import _compiled

PACKAGE = Path(xp.__file__).parent


def _run(code: str, pure: bool, path: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter, with the switch set or not; with
    ``path``, importing the package found there (and run there)."""
    env = {k: v for k, v in os.environ.items() if k != _compiled.ENV}
    if pure:
        env[_compiled.ENV] = "1"
    if path is not None:
        env["PYTHONPATH"] = str(path)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=path, check=True)


def _copy_with_a_compiled_file(tmp_path: Path, stem: str) -> Path:
    """A copy of the package (sources only) under ``tmp_path``, with a
    compiled file for module ``stem`` beside its source: garbage, which
    would fail to load, were it imported."""
    copy = tmp_path / "unifiedarray"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.c", "__pycache__"))
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    (copy / f"{stem}{suffix}").write_bytes(b"not a module")
    return copy


# The package imported with every warning recorded (in ``caught``).
_IMPORT_RECORDING_WARNINGS = (
    "import warnings, sys\n"
    "with warnings.catch_warnings(record=True) as caught:\n"
    "    warnings.simplefilter('always')\n"
    "    import unifiedarray as xp\n"
)


@pytest.mark.parametrize(("value", "pure"), [(None, False), ("", False), ("0", False), ("1", True), ("yes", True)])
def test_the_switch_reads_the_environment(monkeypatch, value, pure):
    if value is None:
        monkeypatch.delenv(_compiled.ENV, raising=False)
    else:
        monkeypatch.setenv(_compiled.ENV, value)
    assert _compiled.pure_python_requested() is pure


def test_pure_python_runs_every_listed_module_from_its_source():
    """With the switch set at import, every module of MODULES comes from its
    .py file, whatever is installed beside it, and the package works."""
    out = _run(
        "import json, sys, unifiedarray as xp\n"
        "from unifiedarray import _compiled\n"
        "files = {m: sys.modules['unifiedarray.' + m].__file__ for m in _compiled.MODULES}\n"
        "print(json.dumps([files, _compiled.compiled_modules(), (xp.arange(3.0) + 1).tolist()]))",
        pure=True,
    )
    files, compiled, total = json.loads(out.stdout)
    assert set(files) == set(_compiled.MODULES)
    assert all(path.endswith(".py") for path in files.values()), files
    assert compiled == []
    assert total == [1.0, 2.0, 3.0]


def test_what_runs_is_compiled_whole_or_not_at_all():
    """The two builds' modules are never mixed (a mix would, for one, read
    the temporaries' reference counts of neither: _operators._TEMPORARY_REFS)."""
    compiled = _compiled.compiled_modules()
    assert compiled in ([], list(_compiled.MODULES))
    built = _compiled.built_modules()
    if not _compiled.pure_python_requested() and len(built) == len(_compiled.MODULES):
        assert compiled == built  # a whole build is what runs


def test_built_modules_are_those_with_a_compiled_module_beside_their_source(tmp_path):
    (tmp_path / "backends").mkdir()
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    assert _compiled.built_modules(str(tmp_path)) == []
    (tmp_path / f"_array{suffix}").write_text("")
    (tmp_path / "backends" / f"mlx_evaluation{suffix}").write_text("")
    (tmp_path / "_buffer.py").write_text("")  # a source alone is not a build
    assert _compiled.built_modules(str(tmp_path)) == ["_array", "backends.mlx_evaluation"]


def test_a_partial_build_runs_the_pure_python_modules_with_a_warning(tmp_path):
    """A copy of the package with one compiled module beside its sources (a
    build that failed part-way): the package imports the sources, warns, and
    reports why."""
    copy = _copy_with_a_compiled_file(tmp_path, "_index")
    out = _run(
        _IMPORT_RECORDING_WARNINGS + "from unifiedarray import _compiled, __main__ as m\n"
        "print(xp.__file__, _compiled.compiled_modules(), [str(w.message) for w in caught])\n"
        "print(m._hot_path(_compiled.compiled_modules()))",
        pure=False,
        path=tmp_path,
    )
    first, report = out.stdout.splitlines()
    assert first.startswith(str(copy)) and "[] " in first
    assert f"only 1 of {len(_compiled.MODULES)} modules were compiled" in first
    assert report.startswith(f"pure Python (only 1 of {len(_compiled.MODULES)} modules were compiled")


def test_stray_modules_are_compiled_modules_the_list_does_not_name(tmp_path):
    (tmp_path / "backends").mkdir()
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for stem in ("_array", "_ledger", "backends/numpy_backend", "_orphan", "backends/__init__"):
        (tmp_path / f"{stem}{suffix}").write_text("")
    (tmp_path / "_policy.cpython-399-x86_64-linux-gnu.so").write_text("")  # another interpreter's
    for stem in ("_array", "_ledger", "backends/numpy_backend", "_policy", "backends/__init__"):
        (tmp_path / f"{stem}.py").write_text("")
    # _array is listed; _orphan has no source to run instead (not the package's);
    # this interpreter never imports the other's _policy; a package's __init__ is not a module here
    assert _compiled.stray_modules(str(tmp_path)) == ["_ledger", "backends.numpy_backend"]


def test_a_stray_compiled_module_is_passed_over_for_its_source_with_a_warning(tmp_path):
    """A copy of the package with a compiled module that no build makes now
    (an older build's, left behind): its source runs, and the import warns."""
    copy = _copy_with_a_compiled_file(tmp_path, "_ledger")
    out = _run(
        _IMPORT_RECORDING_WARNINGS
        + "print(sys.modules['unifiedarray._ledger'].__file__, (xp.arange(2.0) + 1).tolist())\n"
        "print([str(w.message) for w in caught])",
        pure=False,
        path=tmp_path,
    )
    first, warned = out.stdout.splitlines()
    assert first == f"{copy / '_ledger.py'} [1.0, 2.0]"
    assert "compiled modules that no build makes now (left by an older one): _ledger" in warned


def test_the_report_names_the_hot_path():
    pure = _run("import runpy; runpy.run_module('unifiedarray', run_name='__main__')", pure=True)
    assert f"hot path: pure Python ({_compiled.ENV} is set)" in pure.stdout.replace("\n", " ")
    if _compiled.compiled_modules() and not _compiled.pure_python_requested():
        default = _run("import runpy; runpy.run_module('unifiedarray', run_name='__main__')", pure=False)
        assert f"hot path: compiled ({len(_compiled.MODULES)} of {len(_compiled.MODULES)} modules" in default.stdout


def _slots(module: str, cls: str) -> set[str]:
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    (body,) = (n.body for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    (slots,) = (
        n.value
        for n in body
        if isinstance(n, ast.Assign) and [t.id for t in n.targets if isinstance(t, ast.Name)] == ["__slots__"]
    )
    return set(ast.literal_eval(slots))


@pytest.mark.parametrize(("module", "cls"), [("_array", "UnifiedArray"), ("_buffer", "UnifiedBuffer")])
def test_each_compiled_class_declares_exactly_its_slots(module, cls):
    """The .pxd beside a compiled class declares its fields as struct
    members: the same names as the class's __slots__ (a slot the .pxd lacks
    would be an AttributeError only where compiled)."""
    pxd = (PACKAGE / f"{module}.pxd").read_text(encoding="utf-8")
    declared = set(re.findall(r"^\s+cdef (?:public )?\w+ (\w+)(?:  #.*)?$", pxd, flags=re.M))
    assert f"cdef class {cls}:" in pxd
    assert declared == _slots(module, cls)


def test_every_pxd_belongs_to_a_compiled_module():
    """A .pxd beside a module that is not compiled would be dead text."""
    pxds = {str(p.relative_to(PACKAGE).with_suffix("")).replace(os.sep, ".") for p in PACKAGE.rglob("*.pxd")}
    assert pxds <= set(_compiled.MODULES)
    assert {"_array", "_buffer"} <= pxds


def test_a_compiled_module_built_before_its_source_was_edited_is_stale(tmp_path):
    source, compiled = tmp_path / "m.py", tmp_path / "m.so"
    source.write_text("")
    compiled.write_text("")
    os.utime(source, (1000.0, 1000.0))
    os.utime(compiled, (1001.0, 1001.0))
    assert not _compiled.is_stale(str(source), str(compiled))  # built after its source
    os.utime(source, (1002.0, 1002.0))
    assert not _compiled.is_stale(str(source), str(compiled))  # an install writes both within the margin
    os.utime(source, (1001.0 + _compiled.STALE_AFTER_SECONDS + 1, 1001.0 + _compiled.STALE_AFTER_SECONDS + 1))
    assert _compiled.is_stale(str(source), str(compiled))  # edited after the build
    assert not _compiled.is_stale(str(tmp_path / "gone.py"), str(compiled))


def test_stale_modules_asks_each_compiled_module(monkeypatch):
    asked = []
    monkeypatch.setattr(_compiled, "is_stale", lambda source, compiled: asked.append(source) or True)
    assert _compiled.stale_modules() == _compiled.compiled_modules()
    assert [Path(s).name for s in asked] == [m.rpartition(".")[2] + ".py" for m in _compiled.compiled_modules()]


# -- both builds take arguments alike ------------------------------------------------------------

#: Python's own types, which Cython checks (and converts) where a compiled
#: parameter is annotated with one
_CHECKED_BY_CYTHON = {"str", "int", "bool", "float", "complex", "bytes", "tuple", "list", "dict", "set", "frozenset"}


def _checked_annotation(ann: ast.expr | None) -> bool:
    """Whether Cython would check an argument annotated ``ann``: Python's
    own type, alone, subscripted, or with ``| None``."""
    if ann is None:
        return False
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        parts = [ann.left, ann.right]
        rest = [p for p in parts if not (isinstance(p, ast.Constant) and p.value is None)]
        return len(rest) == 1 and _checked_annotation(rest[0])
    if isinstance(ann, ast.Subscript):
        ann = ann.value
    return isinstance(ann, ast.Name) and ann.id in _CHECKED_BY_CYTHON


def _public_parameters() -> list[tuple[str, str]]:
    found = []
    for name in _compiled.MODULES:
        tree = ast.parse((PACKAGE / (name.replace(".", "/") + ".py")).read_text(encoding="utf-8"))
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and not n.name.startswith("_")):
            for fn in (f for f in cls.body if isinstance(f, ast.FunctionDef)):
                if fn.name.startswith("_") and not (fn.name.startswith("__") and fn.name.endswith("__")):
                    continue
                args = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
                found += [(f"{name}.{cls.name}.{fn.name}", a.arg) for a in args if _checked_annotation(a.annotation)]
    return found


def test_no_public_parameter_of_a_compiled_module_is_annotated_with_pythons_own_type():
    """A compiled parameter annotated ``str`` (``int``, ``bool``, ``tuple``,
    ...) is checked by Cython, where the pure-Python build takes any object:
    the two builds would raise differently (``api_version=1``: a
    ``TypeError`` against the standard's ``ValueError``). The public methods
    of the compiled modules' classes annotate with ``_compiled.StrArg`` and
    its kin, the same types to mypy, unknown to Cython."""
    assert _public_parameters() == []


@pytest.mark.skipif(not _compiled.built_modules(), reason="no compiled build here: nothing to compare")
def test_the_two_builds_answer_every_call_of_the_corpus_alike():
    """``tests/build_corpus.py`` (every standard function in six dtypes, in
    both modes, on every device here; every operator with every kind of
    operand a user passes; the methods with odd argument types), run in a
    compiled and in a pure-Python interpreter: the same results (type,
    dtype, shape, values), the same exception classes, the same warnings."""
    root = PACKAGE.parent
    runs = {}
    for pure in (False, True):
        env = {k: v for k, v in os.environ.items() if k != _compiled.ENV}
        if pure:
            env[_compiled.ENV] = "1"
        proc = subprocess.run(
            [sys.executable, "-m", "tests.build_corpus"], capture_output=True, text=True, env=env, cwd=root, check=True
        )
        runs[pure] = json.loads(proc.stdout)
    compiled, pure = runs[False], runs[True]
    assert compiled.keys() == pure.keys()
    differ = {
        f"{section}: {call}": (compiled[section][call], pure[section].get(call))
        for section in compiled
        for call in compiled[section]
        if compiled[section][call] != pure[section].get(call)
    }
    assert sum(len(s) for s in compiled.values()) > 4000
    assert not differ, differ
