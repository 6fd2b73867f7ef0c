"""Shared test setup: the tests folder on sys.path (for `strategies`), Hypothesis profiles.

The strategies themselves live in tests/strategies.py: `from strategies import dh_robots, …`.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))

# NiceGUI's simulated users keep their storage in files: in a scratch folder, not ./.nicegui.
_STORAGE = tempfile.mkdtemp(prefix="kinematica-test-storage-")
atexit.register(shutil.rmtree, _STORAGE, ignore_errors=True)  # one per test process: none left behind
os.environ["NICEGUI_STORAGE_PATH"] = _STORAGE
if "nicegui.storage" in sys.modules:  # imported already (a plugin): move it too
    from pathlib import Path

    sys.modules["nicegui.storage"].Storage.path = Path(_STORAGE)

# NumPy-heavy properties have variable first-call times: no per-example deadline anywhere.
settings.register_profile("kinematica", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "kinematica"))


@pytest.fixture(scope="session")
def dist(tmp_path_factory):
    """The sdist and the wheel of this checkout, built once for the session — once for all its
    processes (minutes: the C++ core is compiled): tests/test_release.py and tests/test_extras.py
    install the same wheel."""
    from installs import build, once, shared_root

    return once(shared_root(tmp_path_factory), "dist", build)


try:
    import pytest_asyncio
except ImportError:  # the UI tests need it; everything else runs without
    pytest_asyncio = None

if pytest_asyncio is not None:
    @pytest_asyncio.fixture
    async def user():
        """The simulator page (served with the Braccio) opened by NiceGUI's simulated user."""
        from nicegui.testing import user_simulation

        from kinematica.app import main as app_main

        app_main.configure(None)
        async with user_simulation(root=app_main.root) as u:
            await u.open("/")
            yield u

# --doctest-modules imports every collected .py file, and two conftest.py files (here and in
# tests/browser/, neither in a package) would both be imported as the module `conftest` and clash:
# "import file mismatch". They hold fixtures, not doctests; pytest still loads them as conftests.
collect_ignore = ["conftest.py", "browser/conftest.py"]
