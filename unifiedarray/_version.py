"""The package's version, written in this one place.

``pyproject.toml`` reads it (setuptools' dynamic version) and
``unifiedarray.__version__`` re-exports it.

>>> from unifiedarray._version import __version__
>>> __version__.count(".") >= 2
True
"""

__version__ = "0.1.0"
