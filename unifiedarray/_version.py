"""The version of unifiedarray, written once (pyproject.toml reads it)."""

__version__ = "0.1.0"
