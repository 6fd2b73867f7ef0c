"""The simulator's "collision shapes" toggle (issue 32 item 7), through NiceGUI's simulated user:
the arm's collision capsules drawn over it and taken away, saved with the view."""

from __future__ import annotations

import numpy as np
import pytest
from app_user import one
from nicegui.testing import User

import kinematica as km
from kinematica.app.collision import SHAPE
from kinematica.app.grid import GridScale
from kinematica.scene.linkgeom import link_geometry


def overlay(user: User) -> list:
    """The overlay's objects on show."""
    return [o for o in one(user, "arm-scene").objects.values() if (o.color, o.opacity) == SHAPE and o.visible_]


@pytest.mark.asyncio
async def test_the_toggle_draws_the_fitted_capsules_over_the_arm_and_takes_them_away(user: User) -> None:
    one(user, "robot-select").value = "kuka-kr6-r900"
    await user.should_see("kuka-kr6-r900: 6 joints")
    assert overlay(user) == []
    one(user, "collision-shapes").value = True
    kuka = km.load("kuka-kr6-r900")
    geom = link_geometry(kuka)
    drawn = overlay(user)
    assert len(drawn) == sum(3 if p.shape.kind == "capsule" else 1 for p in geom.parts)  # cylinder + 2 balls
    # each body's shapes sit in its group at their placements (grid squares): a capsule's balls
    # at its axis ends, a sphere at its centre — the fitted geometry, not the skeleton's
    step = GridScale.for_robot(kuka).step
    ends = [(p.placement @ [0, 0, z, 1])[:3] / step for p in geom.parts
            for z in ((-p.shape.length / 2, p.shape.length / 2) if p.shape.kind == "capsule" else (0.0,))]
    balls = [np.array([o.x, o.y, o.z]) for o in drawn if o.type == "sphere"]
    assert len(balls) == len(ends) and all(any(np.allclose(b, e, atol=1e-12) for b in balls) for e in ends)
    one(user, "collision-shapes").value = False
    assert overlay(user) == []
    one(user, "collision-shapes").value = True
    one(user, "view-projection").value = "xy"  # a new view: the overlay is drawn in it again
    assert len(overlay(user)) == len(drawn)
