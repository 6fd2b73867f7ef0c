"""Fuzz: the simulator's project files (kinematica/app/project.py) — random bytes, and saved
projects with fields deleted, duplicated, renamed or set to NaN, inf, 1e308, negative numbers,
strings, lists.

Opening one must give a ProjectError with a message, or a session that works: its readout is
finite, its pose list plans (or says in words why not) without an exception, and saving it and
opening the file again gives the same project.
"""

from __future__ import annotations

import json
import math

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

import kinematica as km
from kinematica.app import playlist, project
from kinematica.app.state import PlanSpec, Pose, Session, TargetSpec

from fuzzing import bounded, fuzz_settings, mutated_text, mutated_tree, no_user_warnings


def _sessions() -> dict[str, dict]:
    """Saved projects that use every field: bundled and embedded robots, poses, plans."""
    plain = Session()
    busy = Session(robot_name="puma560")
    busy.set_q([0.1, -0.4, 0.3, 0.2, -0.5, 0.6])
    busy.mode, busy.method, busy.ghosts_outside = "ik", "analytic", True
    busy.target = TargetSpec("pose", (0.5, 0.1, 0.2), (10.0, 20.0, 30.0), 5.0)
    busy.poses.extend([Pose("start", busy.robot.q_home), Pose("reach", busy.q.copy()),
                       Pose("back", busy.robot.q_home + 0.1)])
    busy.plan = PlanSpec("line", 1.5, 2.0, True)
    busy.t = 0.75
    embedded = Session()
    embedded.loaded["my-arm"] = km.load("planar-3r").replace(name="my-arm")
    embedded.set_robot("my-arm")
    embedded.poses.extend([Pose("a", embedded.q.copy()), Pose("b", embedded.q + 0.2)])
    embedded.plan = PlanSpec("joint", 0.5, 1.0, False)
    return {"plain": project.to_dict(plain), "busy": project.to_dict(busy),
            "embedded": project.to_dict(embedded)}


SAVED = _sessions()


def _close(a, b, path: str = "") -> str | None:
    """Where two JSON trees differ beyond float round-off (deg ↔ rad: a few ulps), else None."""
    if isinstance(a, float) or isinstance(b, float):
        ok = isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
            math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
        return None if ok else f"{path}: {a!r} != {b!r}"
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return f"{path}: keys {sorted(a)} != {sorted(b)}"
        return next((d for k in a if (d := _close(a[k], b[k], f"{path}.{k}"))), None)
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        return next((d for i, (x, y) in enumerate(zip(a, b)) if (d := _close(x, y, f"{path}[{i}]"))), None)
    return None if a == b else f"{path}: {a!r} != {b!r}"


def open_project(text: str | bytes) -> None:
    """Open `text` as a project file: a ProjectError, or a session that works (see above)."""
    what = f"project {text[:300]!r}{'...' if len(text) > 300 else ''}"
    with bounded(what), no_user_warnings(what):
        try:
            s = project.loads(text)
        except project.ProjectError as e:
            assert str(e).strip(), f"{what}: ProjectError with an empty message"
            return
        assert s.robot.within_limits(s.q), f"{what}: opened with q = {s.q} outside the joint limits"
        for p in s.poses:
            assert s.robot.within_limits(p.q), f"{what}: opened with pose {p.name!r} outside the joint limits"
        r = s.readout()
        assert np.all(np.isfinite(r.T)) and np.all(np.isfinite(r.rpy_deg)), f"{what}: opened, readout {r}"
        status = playlist.replan(s)
        assert status in ("", "ok", "warning", "error"), f"{what}: plan status {status!r}"
        assert "NaN" not in s.trajectory_note and "infinity" not in s.trajectory_note, \
            f"{what}: opened, but its plan fails with {s.trajectory_note!r}: a field the file should have refused"
        if s.trajectory is not None:
            assert np.all(np.isfinite(s.trajectory.q)) and np.all(np.isfinite(s.trajectory.t)), \
                f"{what}: the pose list planned to a trajectory that is not finite"
            assert np.all(np.isfinite(playlist.q_at(s.trajectory, s.t))), f"{what}: player at t={s.t}"
        saved = json.loads(project.dumps(s))
        again = project.to_dict(project.loads(json.dumps(saved)))
        diff = _close(saved, again)
        assert diff is None, f"{what}: saved and opened again, the project changed at {diff}"


@fuzz_settings(3)
@given(data=st.data(), which=st.sampled_from(sorted(SAVED)))
@example(data=None, which="busy").via("joint 1 at 1e308 degrees")
@example(data=None, which="embedded").via("1e-300 s per segment")
def test_mutated_project(data, which):
    if data is None:  # the two examples of issue 11
        tree = json.loads(json.dumps(SAVED[which]))
        if which == "busy":
            tree["q"][0] = 1e308
        else:
            tree["plan"]["seconds"] = 1e-300
    else:
        tree = data.draw(mutated_tree(SAVED[which]))
    open_project(json.dumps(tree))  # NaN and inf go in as JSON's NaN / Infinity, as Python writes them


@fuzz_settings(1)
@given(data=st.data(), which=st.sampled_from(sorted(SAVED)))
def test_damaged_project_text(data, which):
    open_project(data.draw(mutated_text(json.dumps(SAVED[which], indent=1))))


@fuzz_settings(1)
@given(data=st.binary(max_size=500))
@example(data=b"\xff\xfe")
@example(data=b"null")
@example(data=b"[]")
@example(data=b'{"format": "kinematica-project", "version": 1, "plan": {"seconds": 1e-300}}')
def test_random_bytes(data):
    open_project(data)
