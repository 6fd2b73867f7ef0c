"""Shared pieces of the simulator's UI tests (NiceGUI's simulated user): the `user` fixture's
body and reading marked elements. `from app_user import one, shown_q`; the `user` fixture
itself lives in conftest.py."""

from __future__ import annotations

import numpy as np

import kinematica as km


def one(user, marker: str):
    """The one element marked `marker` (fails on none or several)."""
    found = user.find(marker=marker).elements
    assert len(found) == 1, f"{len(found)} elements marked {marker!r}"
    return next(iter(found))


def shown(obj) -> bool:
    """Whether a scene object is drawn: it and every group it sits in visible."""
    while obj is not None and hasattr(obj, "visible_"):
        if not obj.visible_:
            return False
        obj = getattr(obj, "parent", None)
    return True


def shown_q(user, robot: km.Robot) -> np.ndarray:
    """q (core units) as the joint sliders hold it."""
    return np.array([one(user, f"joint-{i + 1}-slider").value for i in range(robot.n)]) / robot.angle_scale


async def solve(user, expect: str = "Solved", **target: float) -> None:
    """In IK mode, type the target fields given (x=…, roll=…), press Solve, and wait for `expect`
    in the verdict."""
    one(user, "mode").value = "ik"
    for name, v in target.items():
        one(user, f"target-{name}").value = v
    user.find(marker="solve").click()
    await user.should_see(expect)
