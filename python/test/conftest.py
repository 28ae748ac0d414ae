"""Every test compiles what it runs: no compile cache, unless a test turns it on
with a directory of its own (test_compiled.py's cache_dir)."""
import pytest


@pytest.fixture(autouse=True)
def _no_compile_cache(monkeypatch):
    monkeypatch.setenv("HX_CACHE", "0")
