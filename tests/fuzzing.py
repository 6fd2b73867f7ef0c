"""What the fuzz tests (tests/test_fuzz_*.py) share: their Hypothesis settings, a hang and
memory guard around each example, hostile values, and tree mutations of parsed files.

Each fuzz test feeds an input to one reader (robot file, URDF, project file, the command line)
and accepts exactly two outcomes: a clear error (the reader's error class, with a message) or an
answer the test checks. Anything else — another exception, a hang, a memory blow-up — fails and
names the input.

Example counts: KINEMATICA_FUZZ_EXAMPLES (default 40) is the count for a test of weight 1;
each test scales it by its cost. Raise it (e.g. 2000) for a long local hunt; CI keeps the default,
with which the whole fuzz suite takes about 35 s of CPU on a 2-core machine (measured
2026-11-25; one hang, caught at the bound, adds its 60 s).
"""

from __future__ import annotations

import contextlib
import copy
import math
import os
import signal
import warnings
from typing import Any, Iterator

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

EXAMPLES = max(1, int(os.environ.get("KINEMATICA_FUZZ_EXAMPLES", "40")))
# Wall-clock bound per example: far above any legitimate example here (they take well under a
# second) so that it only ever catches a hang, never a slow machine. Not a timing assertion.
HANG_SECONDS = float(os.environ.get("KINEMATICA_FUZZ_HANG_SECONDS", "60"))
# Address space an example may add: an unbounded allocation (a count of 1e8) fails with
# MemoryError here instead of taking the machine down.
MEMORY_BYTES = 2 << 30


def fuzz_settings(weight: float = 1.0) -> settings:
    """Settings for a fuzz test costing `weight` times a cheap one: fewer examples when dearer."""
    return settings(max_examples=max(1, round(EXAMPLES * weight)), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large, HealthCheck.large_base_example])


class Hang(BaseException):
    """An input ran past HANG_SECONDS. A BaseException, so no `except Exception` in the code under
    test can swallow it; Hypothesis lets it through at once instead of shrinking a hang."""


def _address_space() -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError):
        return None


@contextlib.contextmanager
def bounded(what: str, seconds: float = HANG_SECONDS) -> Iterator[None]:
    """Run the block with a wall-clock bound (SIGALRM raises Hang naming `what`; if the process is
    stuck in C code, faulthandler dumps every thread's stack and exits at three times the bound)
    and, on Linux, an address-space bound of MEMORY_BYTES more than the process uses now."""
    import faulthandler
    import resource

    def alarm(signum, frame):
        raise Hang(f"no answer after {seconds:g} s (a hang): {what}")

    old_handler = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    faulthandler.dump_traceback_later(3 * seconds, exit=True)
    old_limit = resource.getrlimit(resource.RLIMIT_AS)
    used = _address_space()
    if used is not None:
        cap = used + MEMORY_BYTES
        if old_limit[1] == resource.RLIM_INFINITY or cap < old_limit[1]:
            resource.setrlimit(resource.RLIMIT_AS, (cap, old_limit[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, old_limit)
        faulthandler.cancel_dump_traceback_later()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_handler)


@contextlib.contextmanager
def no_user_warnings(what: str) -> Iterator[None]:
    """Fail if the block emits a warning a user would see on the console (Python's default filters
    hide DeprecationWarning and friends from users; RuntimeWarning such as numpy's
    'overflow encountered' is printed, two lines of source location, not a clear message)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    hidden = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)
    shown = [w for w in caught if not issubclass(w.category, hidden)]
    assert not shown, (f"{what}: emitted {shown[0].category.__name__}: {shown[0].message} "
                       f"({shown[0].filename}:{shown[0].lineno})")


# --- hostile values ------------------------------------------------------------------------------
NASTY_NUMBERS = [math.nan, math.inf, -math.inf, 1e308, -1e308, 1e-308, 5e-324, 0.0, -0.0, -1.0,
                 -1e9, 1e9, 2**63, -(2**63), 10**40]
NASTY_SCALARS: list[Any] = NASTY_NUMBERS + ["", "abc", "nan", "1e999", True, False, None, [], {},
                                            [1, 2], {"a": 1}, "0x10", "١"]

nasty_numbers = st.sampled_from(NASTY_NUMBERS) | st.floats() | st.integers()
nasty_scalars = st.sampled_from(NASTY_SCALARS) | st.floats() | st.integers() | st.text(max_size=8)


# --- mutating a parsed tree (dicts and lists, as from YAML or JSON) ------------------------------
def paths(tree: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (keys / indices) to a node of a dict/list tree, the root first."""
    out = [prefix]
    if isinstance(tree, dict):
        for k, v in tree.items():
            out += paths(v, prefix + (k,))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            out += paths(v, prefix + (i,))
    return out


def _at(tree: Any, path: tuple) -> Any:
    for key in path:
        tree = tree[key]
    return tree


@st.composite
def mutated_tree(draw, tree: Any, max_mutations: int = 3) -> Any:
    """A deep copy of `tree` with 1..max_mutations of: a node replaced by a hostile scalar or a
    random number, a key or item deleted, duplicated or renamed, a list grown or emptied."""
    tree = copy.deepcopy(tree)
    for _ in range(draw(st.integers(1, max_mutations))):
        where = draw(st.sampled_from(paths(tree)))
        op = draw(st.sampled_from(["replace", "delete", "duplicate", "rename", "grow", "empty"]))
        if not where:
            if op == "replace":
                tree = draw(nasty_scalars)
            continue
        parent, key = _at(tree, where[:-1]), where[-1]
        if op == "replace":
            parent[key] = draw(nasty_scalars)
        elif op == "delete":
            del parent[key]
        elif op == "duplicate" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif op == "duplicate":
            parent[f"{key}_copy"] = copy.deepcopy(parent[key])
        elif op == "rename" and isinstance(parent, dict):
            parent[draw(st.sampled_from([f"{key}x", str(key).upper(), "", " ", "name", "joints"]))] = parent.pop(key)
        elif op == "grow" and isinstance(parent[key], list):
            parent[key] = parent[key] * draw(st.integers(2, 4))
        elif op == "empty" and isinstance(parent[key], (list, dict)):
            parent[key] = type(parent[key])()
    return tree


@st.composite
def mutated_text(draw, text: str) -> str:
    """`text` truncated, with a span deleted or duplicated, or with random characters spliced in."""
    op = draw(st.sampled_from(["truncate", "delete", "duplicate", "splice"]))
    i = draw(st.integers(0, len(text)))
    j = draw(st.integers(i, min(len(text), i + 200)))
    if op == "truncate":
        return text[:i]
    if op == "delete":
        return text[:i] + text[j:]
    if op == "duplicate":
        return text[:j] + text[i:j] + text[j:]
    return text[:i] + draw(st.text(max_size=20)) + text[j:]


# --- checking a robot that loaded ----------------------------------------------------------------
def reference_q(robot) -> "np.ndarray":
    """A configuration every robot has: 0 clipped into the joint limits."""
    import numpy as np

    return np.clip(np.zeros(robot.n), robot.limits[:, 0], robot.limits[:, 1])


def assert_sound_robot(robot, what: str) -> None:
    """A robot a reader accepted is usable: finite pose and Jacobian at reference_q, finite
    gravity torques when it has inertials, and its robot file reads back to the same pose."""
    import numpy as np

    import kinematica as km
    from kinematica.model.robotfile import read_text, write_text

    for q in (reference_q(robot), robot.q_home):
        T = km.fk(robot, q)
        assert np.all(np.isfinite(T)), f"{what}: loaded, but FK at q={q} is not finite:\n{T}"
        assert np.all(np.isfinite(km.jacobian(robot, q))), f"{what}: loaded, but J(q={q}) is not finite"
        if robot.has_inertials:
            tau = km.gravity_torques(robot, q)
            assert np.all(np.isfinite(tau)), f"{what}: loaded, but gravity torques at q={q} are {tau}"
    again = read_text(write_text(robot), f"{what} written back")
    # The writer keeps 15 significant digits: relative 1e-15 per parameter. A length L moves the
    # pose by ~1e-15·L; an angle θ (rad) by ~1e-15·|θ| times the reach. So 1e-9 of the pose's
    # size, widened by the largest parameter (a file may say θ = 1e18°, where one ulp is 100
    # rad), is loose for sane robots and still catches a wrong frame.
    biggest = max(_magnitudes(robot.table.rows if robot.table else ()) + [float(np.abs(robot.offsets).max())])
    scale = 1.0 + float(np.abs(T).max())
    assert np.allclose(km.fk(again, q), T, rtol=0, atol=scale * (1e-9 + 1e-14 * biggest)), \
        f"{what}: written back as a robot file, it reads as a different robot"


def _magnitudes(x: Any) -> list[float]:
    """|v| of every number in nested tuples/lists/arrays (a parameter table's rows)."""
    if isinstance(x, (bool, str)) or x is None:
        return []
    if isinstance(x, (int, float)):
        return [abs(float(x))]
    try:
        return [m for v in x for m in _magnitudes(v)]
    except TypeError:
        return [abs(float(x))]
