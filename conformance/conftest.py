"""The differential suite runs on every registered backend's first device:
the sealed backend of ``tests/sealed_backend.py`` (a backend written in one
file by following CONTRIBUTING's guide) is registered here too."""

from __future__ import annotations

from tests.sealed_backend import register_sealed

register_sealed()
