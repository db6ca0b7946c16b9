"""The compiled hot path: Cython compiles the modules that
``unifiedarray/_compiled.py`` names, from their ``.py`` files, where it can.

Everything else about the package is in pyproject.toml.  Each extension is
optional (``_OptionalBuildExt``): where no C compiler is at hand (or it fails), the build warns
(``pip install -v`` shows it) and the package stays pure Python (the same
behaviour, slower on small arrays).
``UNIFIEDARRAY_PURE_PYTHON=1`` at install compiles nothing.
"""

from __future__ import annotations

import importlib.util
import os
from types import ModuleType

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def _compiled_module() -> ModuleType:
    # unifiedarray/_compiled.py by path: importing the package would need
    # its dependencies, which a build environment does not have.
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "unifiedarray", "_compiled.py")
    spec = importlib.util.spec_from_file_location("_unifiedarray_compiled", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _extensions() -> list[Extension]:
    compiled = _compiled_module()
    if compiled.pure_python_requested():
        return []
    from Cython.Build import cythonize  # a build requirement (pyproject.toml)

    extensions = [
        Extension(f"unifiedarray.{name}", [os.path.join("unifiedarray", *name.split(".")) + ".py"])
        for name in compiled.MODULES
    ]
    return cythonize(extensions, compiler_directives={"language_level": 3}, quiet=True)


class _OptionalBuildExt(build_ext):
    """A module that cannot be compiled (no C compiler, a failing one) stays
    pure Python, with a warning; the package runs the pure-Python modules
    wherever any listed module was not built (``unifiedarray/_compiled.py``)."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # the compiler's own errors have no common class
            self.warn(f"unifiedarray: nothing compiled ({exc}); the package runs as pure Python")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            self.warn(f"unifiedarray: {ext.name} not compiled ({exc}); the package runs as pure Python")


setup(ext_modules=_extensions(), cmdclass={"build_ext": _OptionalBuildExt})
