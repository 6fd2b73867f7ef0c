"""Hypothesis strategies shared by the test modules: random robots and configurations.

Random robots are standard-DH or modified-DH chains of 1–8 joints, revolute and prismatic
mixed, with random a/d/α/θ (lengths in m), random rigid base and tool transforms and finite
joint limits. `robot_and_q` draws a robot together with configurations inside its limits.
"""

from __future__ import annotations

import os

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st

import kinematica as km
from kinematica import spatial

# Modest example counts: the whole suite is meant to run in seconds. KINEMATICA_EXAMPLES_SCALE=20
# multiplies them for a thorough run.
_SCALE = max(1, int(os.environ.get("KINEMATICA_EXAMPLES_SCALE", "1")))
FAST = settings(max_examples=25 * _SCALE, deadline=None)
MEDIUM = settings(max_examples=50 * _SCALE, deadline=None)

lengths = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False)
angles = st.floats(-np.pi, np.pi, allow_nan=False, allow_infinity=False)
joint_types = st.sampled_from(["revolute", "prismatic"])


@st.composite
def rotations(draw) -> np.ndarray:
    """A uniformly spread 3x3 rotation (from a random unit quaternion)."""
    q = np.array(draw(st.lists(st.floats(-1, 1, allow_nan=False), min_size=4, max_size=4)))
    if np.linalg.norm(q) < 1e-3:
        q = np.array([1.0, 0.0, 0.0, 0.0])
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


@st.composite
def rigid_transforms(draw) -> np.ndarray:
    """A random 4x4 rigid transform, translation within ±1 m."""
    R = draw(rotations())
    p = np.array(draw(st.lists(lengths, min_size=3, max_size=3)))
    return spatial.homogeneous(R, p)


@st.composite
def dh_rows(draw, n: int | None = None) -> list[dict]:
    """DH table rows (1–8 by default): a, d in m, alpha/theta in rad, a joint type and limits."""
    n = draw(st.integers(1, 8)) if n is None else n
    rows = []
    for i in range(n):
        jt = draw(joint_types)
        lo = draw(st.floats(-3.0, 0.0) if jt == "revolute" else st.floats(-0.5, 0.0))
        width = draw(st.floats(0.01, 3.0) if jt == "revolute" else st.floats(0.01, 1.0))
        rows.append({"name": f"j{i + 1}", "type": jt, "a": draw(lengths), "d": draw(lengths),
                     "alpha": draw(angles), "theta": draw(angles),
                     "limits": [lo, lo + width]})
    return rows


@st.composite
def dh_robots(draw, modified: bool | None = None, n: int | None = None,
              with_base_tool: bool = True) -> km.Robot:
    """A random standard (or modified, or either) DH robot with random base and tool."""
    rows = draw(dh_rows(n))
    modified = draw(st.booleans()) if modified is None else modified
    base = draw(rigid_transforms()) if with_base_tool else None
    tool = draw(rigid_transforms()) if with_base_tool else None
    build = km.from_mdh if modified else km.from_dh
    return build(rows, name="random-mdh" if modified else "random-dh", base=base, tool=tool)


@st.composite
def configurations(draw, robot: km.Robot, shape: tuple[int, ...] = ()) -> np.ndarray:
    """Joint values of the given leading shape, each inside the robot's (finite) limits."""
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    u = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=int(np.prod(shape, dtype=int)) * robot.n,
                               max_size=int(np.prod(shape, dtype=int)) * robot.n)))
    return lo + u.reshape(shape + (robot.n,)) * (hi - lo)


@st.composite
def robot_and_q(draw, modified: bool | None = None, n: int | None = None,
                shape: tuple[int, ...] = ()) -> tuple[km.Robot, np.ndarray]:
    """A random DH/MDH robot and configurations of leading shape `shape` within its limits."""
    robot = draw(dh_robots(modified=modified, n=n))
    return robot, draw(configurations(robot, shape))


def random_q(robot: km.Robot, rng: np.random.Generator, shape: tuple[int, ...] = ()) -> np.ndarray:
    """Uniform joint values inside the limits (non-hypothesis helper for large batches)."""
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    return lo + rng.random(shape + (robot.n,)) * (hi - lo)
