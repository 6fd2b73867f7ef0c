"""The pose list and its plans without a browser (kinematica.app.playlist, posefiles): list
operations, the joint plan through every pose at its knot time, Cartesian lines / arc / spline
checked against forward kinematics, sampling, and the pose files (round trips, refusals)."""

from __future__ import annotations

import json
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import kinematica as km
from kinematica.app import playlist as pl
from kinematica.app.posefiles import (
    PoseFileError,
    poses_from_csv,
    poses_from_file,
    poses_from_json,
    poses_to_csv,
    poses_to_json,
    trajectory_text,
)
from kinematica.app.state import Pose, Session
from kinematica.trajectory import files

UR5_MID = np.array([0.3, -1.2, 1.5, -1.8, -1.5, 0.4])  # well inside the UR5's workspace
BRACCIO_MID = np.radians([0.0, -30.0, 60.0, 60.0, 0.0])
offsets = st.lists(st.floats(-0.3, 0.3), min_size=6, max_size=6).map(np.array)


def session(robot: str, Q, kind: str = "joint", seconds: float = 1.0) -> Session:
    s = Session(robot_name=robot)
    for q in Q:
        pl.add_pose(s, q)
    s.plan.kind, s.plan.seconds = kind, seconds
    return s


# --- the list ----------------------------------------------------------------------------------
def test_names_count_on_and_skip_taken_ones() -> None:
    s = Session()
    assert [pl.add_pose(s).name for _ in range(3)] == ["P1", "P2", "P3"]
    pl.rename(s, 0, "P4")
    assert pl.add_pose(s).name == "P5"
    assert pl.add_pose(s, name="  the   end ").name == "the end"


def test_rename_refuses_in_words_and_changes_nothing() -> None:
    s = Session()
    pl.add_pose(s), pl.add_pose(s)
    for bad, words in (("", "cannot be empty"), ("   ", "cannot be empty"), ("P2", "already named 'P2'"),
                       ("x" * 41, "at most 40 characters")):
        with pytest.raises(ValueError, match=words):
            pl.rename(s, 0, bad)
        assert [p.name for p in s.poses] == ["P1", "P2"]
    assert pl.rename(s, 0, " P1 ") == "P1"  # its own name is not taken
    with pytest.raises(IndexError, match="no pose 3: the list has 2"):
        pl.rename(s, 2, "x")


def test_move_and_delete() -> None:
    s = Session()
    for _ in range(3):
        pl.add_pose(s)
    assert pl.move(s, 2, -1) == 1 and [p.name for p in s.poses] == ["P1", "P3", "P2"]
    assert pl.move(s, 0, -1) == 0 and pl.move(s, 2, 1) == 2  # the ends stop it
    assert pl.delete(s, 1).name == "P3" and [p.name for p in s.poses] == ["P1", "P2"]


def test_add_refuses_a_wrong_q() -> None:
    s = Session()
    with pytest.raises(ValueError, match="5 finite joint values"):
        pl.add_pose(s, [0.0, 1.0])
    assert s.poses == []


def test_imported_names_are_made_unique() -> None:
    old = [Pose("A", np.zeros(2))]
    new = pl.unique_names(old, [Pose("A", np.ones(2)), Pose("A", np.ones(2)), Pose("B", np.ones(2))])
    assert [p.name for p in new] == ["A (2)", "A (3)", "B"]


# --- plans ---------------------------------------------------------------------------------------
@given(k=st.integers(2, 5), seconds=st.floats(0.2, 5.0), seed=st.integers(0, 2 ** 16))
@settings(max_examples=30)
def test_the_joint_plan_is_on_every_pose_at_its_knot_time(k: int, seconds: float, seed: int) -> None:
    braccio = km.load("braccio")
    lo, hi = braccio.limits.T
    Q = np.random.default_rng(seed).uniform(lo, hi, (k, braccio.n))
    tr, note = pl.plan(session("braccio", Q, "joint", seconds))
    assert tr.duration == pytest.approx((k - 1) * seconds)
    for i, q in enumerate(Q):
        np.testing.assert_allclose(pl.q_at(tr, i * seconds), q, atol=1e-9)
        j = int(np.argmin(np.abs(tr.t - i * seconds)))
        np.testing.assert_allclose(tr.qd[j], 0.0, atol=1e-9)  # at rest on the pose
    assert note == f"{k} poses, {tr.duration:.1f} s, joint space."


def _distance_to_segments(p: np.ndarray, A: np.ndarray) -> np.ndarray:
    """Distance of points p (m, 3) to the polyline through A (k, 3)."""
    best = np.full(len(p), np.inf)
    for a, b in pairwise(A):
        d = b - a
        u = np.clip((p - a) @ d / max(d @ d, 1e-300), 0.0, 1.0)
        best = np.minimum(best, np.linalg.norm(p - (a + u[:, None] * d), axis=1))
    return best


@given(d=st.lists(offsets, min_size=2, max_size=4))
@settings(max_examples=15)
def test_line_plan_keeps_the_tool_on_the_segments(d) -> None:
    ur5 = km.load("ur5")
    Q = np.array([UR5_MID + x for x in d])
    s = session("ur5", Q, "line")
    tr, note = pl.plan(s)
    assume(tr.meta["ok"])  # a path through a joint limit is reported, not followed
    assert "pose followed" in note and "every point reached" in note
    p = km.fk(ur5, tr.q)[:, :3, 3]
    A = km.fk(ur5, Q)[:, :3, 3]
    assert _distance_to_segments(p, A).max() < 1e-6
    for i, T in enumerate(km.fk(ur5, Q)):  # each pose's tool pose at its knot time
        np.testing.assert_allclose(km.fk(ur5, pl.q_at(tr, i * s.plan.seconds)), T, atol=1e-6)


@given(d=st.lists(offsets, min_size=3, max_size=3))
@settings(max_examples=15)
def test_the_arc_passes_through_the_middle_tool_position(d) -> None:
    ur5 = km.load("ur5")
    Q = np.array([UR5_MID + x for x in d])
    tr, _ = pl.plan(session("ur5", Q, "arc"))
    assume(tr is not None and tr.meta["ok"])
    p = km.fk(ur5, tr.q)[:, :3, 3]
    A = km.fk(ur5, Q)[:, :3, 3]
    assert np.linalg.norm(p - A[1], axis=1).min() < 1e-6
    np.testing.assert_allclose(p[[0, -1]], A[[0, 2]], atol=1e-6)
    assert tr.duration == pytest.approx(2.0)


def test_braccio_follows_position_and_tool_pitch_on_a_spline() -> None:
    Q = [BRACCIO_MID, BRACCIO_MID + np.radians([30, 0, 0, 0, 0]), BRACCIO_MID + np.radians([30, 0, -20, 0, 0])]
    s = session("braccio", Q, "spline", 2.0)
    tr, note = pl.plan(s)
    assert note == "3 poses, 4.0 s, Cartesian spline: approach followed at 122 points, every point reached."
    T = km.fk(s.robot, np.array(Q))
    got = km.fk(s.robot, tr.q)[:, :3, 3]
    for p in T[:, :3, 3]:
        assert np.linalg.norm(got - p, axis=1).min() < 1e-6


def test_plan_refusals_in_words() -> None:
    s = session("braccio", [BRACCIO_MID])
    assert pl.plan(s) == (None, "1 pose: add at least 2 to play them.")
    pl.add_pose(s, BRACCIO_MID + 0.1)
    s.plan.kind = "arc"
    assert pl.plan(s) == (None, "An arc goes through exactly 3 poses; the list has 2.")
    s.plan.kind = "spline"
    tr, note = pl.plan(s)
    assert tr is not None and "a spline needs 3 poses: with 2 it is the straight line" in note
    s.plan.kind = "line"
    pl.add_pose(s, BRACCIO_MID)
    s.poses[1].q = BRACCIO_MID.copy()  # three poses on one point: no circle through them
    s.plan.kind = "arc"
    tr, note = pl.plan(s)
    assert tr is None and note.startswith("Cartesian arc (3 poses) not planned:")


def test_replan_keeps_the_time_within_the_new_duration() -> None:
    s = session("braccio", [BRACCIO_MID, BRACCIO_MID + 0.2, BRACCIO_MID], seconds=2.0)
    s.t = 3.5
    assert pl.replan(s) == "ok" and s.t == 3.5
    pl.delete(s, 2)
    assert pl.replan(s) == "ok" and s.t == 2.0
    pl.delete(s, 1)
    assert pl.replan(s) == "" and s.trajectory is None and s.t == 0.0


def test_a_planar_arm_follows_x_y_and_heading() -> None:
    q = np.radians([20.0, 40.0, -30.0])
    s = session("planar-3r", [q, q + np.radians([10, -10, 5])], "line")
    tr, note = pl.plan(s)
    assert pl.task_for(s.robot) == "planar" and "planar followed" in note and tr.meta["ok"]


def test_q_at_interpolates_between_samples_and_clips() -> None:
    tr = km.trajectory.joint([[0.0, 0.0], [1.0, 2.0]], times=[0.0, 2.0], steps=2)
    np.testing.assert_allclose(pl.q_at(tr, 0.5), [0.25, 0.5])
    np.testing.assert_allclose(pl.q_at(tr, -1.0), [0.0, 0.0])
    np.testing.assert_allclose(pl.q_at(tr, 9.0), [1.0, 2.0])


# --- files ---------------------------------------------------------------------------------------
names = st.text(st.characters(codec="utf-8", exclude_categories=["Cc", "Cs", "Zl", "Zp"]), min_size=1,
                max_size=20).filter(lambda x: x.strip() != "" and not x.lstrip().startswith("#"))


@given(items=st.lists(st.tuples(names, st.lists(st.floats(0.0, 1.0), min_size=5, max_size=5)),
                      min_size=1, max_size=5))
@settings(max_examples=40)
def test_pose_files_round_trip(items) -> None:
    """Any poses the joint fields could hold (anywhere within the limits, on them included)."""
    braccio = km.load("braccio")
    lo, hi = braccio.limits.T
    poses = [Pose(" ".join(n.split()), lo + np.array(u) * (hi - lo)) for n, u in items]
    for write, read in ((poses_to_csv, poses_from_csv), (poses_to_json, poses_from_json)):
        back = read(braccio, write(braccio, poses))
        assert [p.name for p in back] == [p.name for p in poses]
        np.testing.assert_allclose([p.q for p in back], [p.q for p in poses], atol=1e-9)


def test_the_csv_header_names_joints_units_and_robot() -> None:
    braccio = km.load("braccio")
    text = poses_to_csv(braccio, [Pose("home", braccio.q_home)])
    assert text.splitlines()[:3] == [
        "# kinematica-poses: robot=braccio length_unit=mm angle_unit=deg",
        "name,M1 base [deg],M2 shoulder [deg],M3 elbow [deg],M4 wrist pitch [deg],M5 wrist roll [deg]",
        "home,0.0,-45.0,90.0,90.0,0.0"]
    doc = json.loads(poses_to_json(braccio, [Pose("home", braccio.q_home)]))
    assert doc["robot"] == "braccio" and doc["joints"][0] == {"name": "M1 base", "unit": "deg"}


def test_radians_are_converted_on_import() -> None:
    braccio = km.load("braccio")
    text = "name," + ",".join(f"{n} [rad]" for n in braccio.joint_names) + "\nA,0.1,0.2,0.3,0.4,0.5\n"
    np.testing.assert_allclose(poses_from_file(braccio, "a.csv", text.encode())[0].q, [0.1, 0.2, 0.3, 0.4, 0.5])


BRACCIO_HEAD = "name,M1 base [deg],M2 shoulder [deg],M3 elbow [deg],M4 wrist pitch [deg],M5 wrist roll [deg]\n"


@pytest.mark.parametrize("text, words", [
    ("name,a [deg],b [deg]\nX,1,2\n", "2 joints (a, b), but braccio has 5"),
    ("name," + ",".join(f"J{i} [deg]" for i in range(5)) + "\nX,1,2,3,4,5\n", "joint 'J0' where braccio has 'M1 base'"),
    ("name,M1 base,M2 shoulder [deg]\n", "column 'M1 base' has no [unit]"),
    ("joint,M1 base [deg]\n", "the first column must be 'name'"),
    ("", "empty"),
    ("name,M1 base [mm],M2 shoulder [deg],M3 elbow [deg],M4 wrist pitch [deg],M5 wrist roll [deg]\n",
     "joint 'M1 base' is in 'mm', expected an angle"),
    ("name,M1 base [deg],M2 shoulder [deg],M3 elbow [deg],M4 wrist pitch [deg],M5 wrist roll [deg]\nX,1,2,three,4,5\n",
     "row 2 (X): expected numbers"),
    ("name,M1 base [deg],M2 shoulder [deg],M3 elbow [deg],M4 wrist pitch [deg],M5 wrist roll [deg]\nX,1,2\n",
     "expected 5 joint values, got 2"),
    ("name,M1 base [deg],M2 shoulder [deg],M3 elbow [deg],M4 wrist pitch [deg],M5 wrist roll [deg]\n,1,2,3,4,5\n",
     "a pose name cannot be empty"),
    # values the joint fields would not take (state.check_joints), and names the list would not
    (BRACCIO_HEAD + "X,1e308,2,3,4,5\n", "row 2 (X): joint 1 (M1 base): 1e+308 ° is outside its range -90 … 90 °"),
    (BRACCIO_HEAD + "X,1,75.5,3,4,5\n", "row 2 (X): joint 2 (M2 shoulder): 75.5 ° is outside its range -75 … 75 °"),
    (BRACCIO_HEAD + "X,1,2,3,4,nan\n", "row 2 (X): joint 5 (M5 wrist roll): expected a finite number"),
    (BRACCIO_HEAD + "X,1,2,3,-inf,5\n", "joint 4 (M4 wrist pitch): expected a finite number"),
    (BRACCIO_HEAD + "x" * 41 + ",1,2,3,4,5\n", "a pose name has at most 40 characters"),
])
def test_bad_csv_files_are_refused_in_words(text: str, words: str) -> None:
    with pytest.raises(PoseFileError) as e:
        poses_from_csv(km.load("braccio"), text, "f.csv")
    assert str(e.value).startswith("f.csv") and words in str(e.value)


@pytest.mark.parametrize("text, words", [
    ("{", "not JSON"),
    ('{"format": "other"}', "not a Kinematica pose list"),
    ('{"format": "kinematica-poses", "version": 7}', "version 7 is not supported"),
    ('{"format": "kinematica-poses", "version": 1, "joints": [], "poses": []}', "0 joints"),
    ('{"format": "kinematica-poses", "version": 1, "joints": 3, "poses": []}', "'joints' must be a list"),
    (json.dumps({"format": "kinematica-poses", "version": 1, "joints": [{"name": n, "unit": "rad"} for n in
                 km.load("braccio").joint_names], "poses": [{"name": "far", "q": [0, 0, 0, 0, 1e300]}]}),
     "pose 1 (far): joint 5 (M5 wrist roll): 5.7"),
])
def test_bad_json_files_are_refused_in_words(text: str, words: str) -> None:
    with pytest.raises(PoseFileError) as e:
        poses_from_json(km.load("braccio"), text, "f.json")
    assert str(e.value).startswith("f.json") and words in str(e.value)


def test_trajectory_export_reads_back_with_the_core() -> None:
    tr, _ = pl.plan(session("braccio", [BRACCIO_MID, BRACCIO_MID + 0.2]))
    for fmt, read in (("csv", files.from_csv), ("json", files.from_json)):
        back = read(trajectory_text(tr, fmt))
        np.testing.assert_allclose(back.q, tr.q, atol=1e-12)
        assert back.joint_names == tr.joint_names
    with pytest.raises(ValueError, match="csv or json"):
        trajectory_text(tr, "xml")
