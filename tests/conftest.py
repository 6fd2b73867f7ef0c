"""Shared test setup: the tests folder on sys.path (for `strategies`), Hypothesis profiles.

The strategies themselves live in tests/strategies.py: `from strategies import dh_robots, …`.
"""

from __future__ import annotations

import os
import sys

from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))

# NumPy-heavy properties have variable first-call times: no per-example deadline anywhere.
settings.register_profile("kinematica", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "kinematica"))
