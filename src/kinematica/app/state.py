"""One browser tab's simulator session: the robot, its joint values, the mode, the IK target and
the solutions found for it. Plain Python over the core — no NiceGUI — so every transition the
panels trigger can be tested on its own.

Joint values are kept as the core takes them (rad for revolute joints, the robot's length unit
for prismatic ones); the panels show degrees and lengths (`to_display`, `from_display`).

>>> s = Session()
>>> s.robot.name, s.robot.length_unit, s.display_q().round(1).tolist()
('braccio', 'mm', [0.0, -45.0, 90.0, 90.0, 0.0])
>>> s.set_joint(0, 30.0)
>>> s.readout().position.round(2).tolist()
[-55.11, -31.82, 184.64]
>>> s.target = s.target_from_tool()
>>> s.target.position = (150.0, 50.0, 100.0)
>>> s.solve().solved, s.status
(True, 'ok')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

import kinematica as km
from kinematica import spatial
from kinematica.viz.geometry import size_scale

from ..errors import InputError, KinematicaError
from . import learned

DEFAULT_ROBOT = "braccio"
MODES = ("fk", "ik")
# What an IK target constrains; the values are the labels the panel shows.
TARGET_KINDS = {"position": "position only",
                "pose": "position + orientation (roll, pitch, yaw)",
                "approach": "position + pitch of the tool axis"}
# The core's IK methods (km.ik), with the names the panel shows.
METHODS = {"lm": "Levenberg–Marquardt", "gn": "Gauss–Newton", "transpose": "Jacobian transpose",
           "dls": "damped least squares", "analytic": "closed form (analytic)"}
UNLIMITED_DEG = 180.0  # slider range of a revolute joint without limits
# How a pose list is played: the values are the labels the panel shows.
PLAN_KINDS = {"joint": "joint space", "line": "Cartesian lines", "arc": "Cartesian arc (3 poses)",
              "spline": "Cartesian spline"}
PROJECTIONS = {"3d": "3-D", "xy": "top (XY)", "xz": "front (XZ)", "yz": "side (YZ)"}
# OMPL's planners behind km.plan (kinematica.plan.PLANNERS), with the names the Workspace card shows
PLANNERS = {"rrtconnect": "RRT-Connect", "rrtstar": "RRT*", "bitstar": "BIT*", "prm": "PRM"}


def triple(values: Iterable[float]) -> tuple[float, float, float]:
    """Three numbers as a tuple of Python floats (a position, roll-pitch-yaw); ValueError for
    another count."""
    x, y, z = (float(v) for v in values)
    return x, y, z


@dataclass
class TargetSpec:
    """An IK target as the user types it: position in the robot's length unit, angles in
    degrees (roll, pitch, yaw about fixed x, y, z; pitch of the tool z axis above the horizontal)."""

    kind: str = "position"
    position: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rpy_deg: tuple[float, float, float] = (0.0, 0.0, 0.0)
    pitch_deg: float = 0.0

    def build(self) -> km.Target:
        """The core's Target; raises `km.TargetError` (a ValueError) on malformed numbers."""
        p = np.asarray(self.position, dtype=float)
        if self.kind == "pose":
            return km.targets.orientation(p, rpy=np.radians(self.rpy_deg))
        if self.kind == "approach":
            return km.targets.approach(p, pitch=np.radians(self.pitch_deg))
        if self.kind == "position":
            return km.targets.position(p)
        raise km.TargetError(f"target kind must be one of {', '.join(TARGET_KINDS)}, got {self.kind!r}")

    def pose(self) -> np.ndarray:
        """A 4x4 for drawing the marker: the position, and the orientation a pose target asks for
        (the approach of a pitch target as the z axis; identity for a position target)."""
        T = spatial.transl(self.position)
        if self.kind == "pose":
            T[:3, :3] = spatial.rpy_to_matrix(np.radians(self.rpy_deg))
        elif self.kind == "approach":
            T[:3, :3] = spatial.axis_to_z(
                km.targets.approach(self.position, pitch=np.radians(self.pitch_deg)).approach_axis)
        return T


@dataclass
class Pose:
    """A saved configuration: its name in the list and q (core units)."""

    name: str
    q: np.ndarray


@dataclass
class PlanSpec:
    """How the pose list is played: `kind` (a key of PLAN_KINDS), `seconds` per segment between
    consecutive poses, the player's `speed` factor, and whether it loops."""

    kind: str = "joint"
    seconds: float = 2.0
    speed: float = 1.0
    loop: bool = False


@dataclass
class PathSpec:
    """The Workspace card's Plan: `goal` "target" (the IK target) or "pose:<name>" (a pose of
    the list), the OMPL `planner` (a key of PLANNERS) and its `time_limit` in s."""

    goal: str = "target"
    planner: str = "rrtconnect"
    time_limit: float = 1.0


@dataclass
class ViewSpec:
    """How the arm is shown: `projection` (a key of PROJECTIONS), the link frames on or off,
    `looks`: the robot as it looks (its visual shapes, where it has any) or its skeleton, and
    its collision shapes over it or not."""

    projection: str = "3d"
    frames: bool = False
    looks: bool = True
    collision: bool = False


@dataclass(frozen=True)
class Solution:
    """One configuration reaching the target: q (core units), a label, whether it is within the
    joint limits, and the verdict in words."""

    q: np.ndarray
    label: str
    within_limits: bool
    reason: str


@dataclass(frozen=True)
class Readout:
    """The end-effector pose at q: position (length unit), roll-pitch-yaw (deg), the 4x4, and
    the singularity verdict in words."""

    position: np.ndarray
    rpy_deg: np.ndarray
    T: np.ndarray
    singularity: str
    singular: bool
    near_singular: bool


@dataclass(frozen=True)
class Outcome:
    """What one Solve did: whether q changed, and the message shown."""

    solved: bool
    message: str


def to_display(robot: km.Robot, q: np.ndarray) -> np.ndarray:
    """Joint values as shown: degrees for revolute joints, the length unit for prismatic ones."""
    return np.asarray(q, dtype=float) * robot.angle_scale


def from_display(robot: km.Robot, values: np.ndarray) -> np.ndarray:
    """The inverse of `to_display`."""
    return np.asarray(values, dtype=float) / robot.angle_scale


def joint_unit(robot: km.Robot, i: int) -> str:
    return "°" if robot.revolute[i] else robot.length_unit


# --- what the fields accept: one rule for the panels and for every file read into a session ----
# A value this close to a limit (deg or length unit) is taken as on it: files written in degrees
# round to 1e-9 (posefiles), far below this and far below any joint's resolution.
ROUND_OFF = 1e-6
SECONDS_RANGE = (0.1, 600.0)  # the plan's seconds per segment
TIME_LIMIT_RANGE = (0.05, 60.0)  # s: the Workspace card's planner time limit
SPEEDS = {0.25: "0.25×", 0.5: "0.5×", 1.0: "1×", 2.0: "2×", 4.0: "4×"}  # the player's speeds


class FieldError(KinematicaError, ValueError):
    """A value no field of the simulator would take; the message names the field and its range."""


def slider_range(robot: km.Robot, i: int, reach: float | None = None) -> tuple[float, float]:
    """The displayed range of joint i: its limits, or ±180° (revolute) / ±reach (prismatic;
    default the arm's reach, `viz.geometry.size_scale`) where a limit is infinite."""
    lo, hi = robot.limits[i] * robot.angle_scale[i]
    if robot.revolute[i]:
        wide = UNLIMITED_DEG
    else:
        wide = size_scale(robot) if reach is None else reach
    return (float(lo) if np.isfinite(lo) else -wide, float(hi) if np.isfinite(hi) else wide)


def check_joint(robot: km.Robot, i: int, value: float, where: str = "",
                span: tuple[float, float] | None = None) -> float:
    """Joint i's displayed value (degrees, or the length unit) as its field takes it: a finite
    number within `slider_range` (`span` when already known), a value within ROUND_OFF of an end
    put on it. A revolute joint without limits turns any way: its angle is wrapped into ±180°
    (the same joint position). FieldError names the joint otherwise."""
    name = f"{where}{': ' if where else ''}joint {i + 1} ({robot.joint_names[i]})"
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise FieldError(f"{name}: expected a number, got {value!r}")
    x = float(value)
    if not np.isfinite(x):
        raise FieldError(f"{name}: expected a finite number, got {value!r}")
    if robot.revolute[i] and not np.isfinite(robot.limits[i]).any():
        return (x + 180.0) % 360.0 - 180.0
    lo, hi = span or slider_range(robot, i)
    if not lo - ROUND_OFF <= x <= hi + ROUND_OFF:
        unit = joint_unit(robot, i)
        raise FieldError(f"{name}: {x:g} {unit} is outside its range {lo:g} … {hi:g} {unit}")
    return min(max(x, lo), hi)


def check_joints(robot: km.Robot, values: list | tuple | np.ndarray, where: str = "q") -> np.ndarray:
    """Every joint's displayed value checked by `check_joint`, returned in core units (rad or
    the length unit). FieldError names the first joint a field would not take."""
    if not (isinstance(values, (list, tuple)) or (isinstance(values, np.ndarray) and values.ndim == 1)) \
            or len(values) != robot.n:
        raise FieldError(f"{where}: expected {robot.n} joint values, got {values!r}")
    shown = [check_joint(robot, i, x, where, slider_range(robot, i)) for i, x in enumerate(values)]
    return from_display(robot, np.array(shown, dtype=float))


def check_seconds(value: object, where: str = "seconds per segment") -> float:
    """Seconds per segment of the plan, as its field takes them: a number in SECONDS_RANGE
    (anything else, None from an empty field included, is a FieldError)."""
    lo, hi = SECONDS_RANGE
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
        raise FieldError(f"{where}: expected a number from {lo:g} to {hi:g} s, got {value!r}")
    return float(value)


def check_speed(value: float, where: str = "speed") -> float:
    """The player's speed factor: one of SPEEDS, as its select offers."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value not in SPEEDS:
        raise FieldError(f"{where}: expected one of {', '.join(f'{v:g}' for v in SPEEDS)}, got {value!r}")
    return float(value)


def target_kinds(robot: km.Robot) -> dict[str, str]:
    """The target kinds that make sense for the robot (no pitch for a planar arm)."""
    planar = robot.table is not None and robot.table.kind == "planar"
    return {k: v for k, v in TARGET_KINDS.items() if not (planar and k == "approach")}


def default_target_kind(robot: km.Robot) -> str:
    """Pose for arms with six or more joints, position for smaller ones (a 5-DOF arm cannot
    reach most full poses)."""
    return "pose" if robot.n >= 6 else "position"


@cache
def bundled(name: str) -> km.Robot:
    """The bundled robot `name` (a key of `km.robot_names()`), read once and shared by every
    session: robots are immutable, and the core's caches keyed by robot (closed forms, link
    parameters, analytic solvers) then serve all sessions instead of filling with copies of one
    arm that keep each closed session's share alive."""
    if name not in km.robot_names():
        raise InputError(f"{name!r} is not a bundled robot (bundled: {', '.join(km.robot_names())})")
    return km.load(name)


def robot_choices(extra: dict[str, km.Robot] | None = None) -> list[str]:
    """The names the robot select offers: the bundled robots, then robots loaded from files."""
    return list(km.robot_names()) + [n for n in (extra or {}) if n not in km.robot_names()]


class OpenScene(NamedTuple):
    """The workspace scene open in a session, and which of its robots (`seat`) the arm is."""

    scene: km.Scene
    seat: str


@dataclass
class Session:
    """The state of one simulator tab. `loaded` holds robots read from files (by label), so
    the robot select can offer them beside the bundled ones."""

    robot_name: str = DEFAULT_ROBOT
    loaded: dict[str, km.Robot] = field(default_factory=dict)
    robot: km.Robot = field(init=False)
    q: np.ndarray = field(init=False)
    mode: str = "fk"
    target: TargetSpec = field(default_factory=TargetSpec)
    method: str = "lm"
    solutions: list[Solution] = field(default_factory=list)
    message: str = ""
    status: str = ""  # "", "ok", "warning" or "error": how the message is shown
    ghosts_outside: bool = False  # draw the solutions outside the joint limits too
    ik_run: km.IKResult | None = None  # the last Solve, with its iteration history
    ik_start: np.ndarray | None = None  # the q the last Solve started from (for its explanation)
    pose_lists: dict[str, list[Pose]] = field(default_factory=dict)  # per robot label
    plan: PlanSpec = field(default_factory=PlanSpec)
    path: PathSpec = field(default_factory=PathSpec)  # the Workspace card's Plan (not saved with the project)
    trajectory: km.Trajectory | None = None  # the pose list planned (derived: never saved)
    trajectory_note: str = ""  # what planning it said (a failure, points not reached)
    t: float = 0.0  # the player's time on the trajectory, s
    view: ViewSpec = field(default_factory=ViewSpec)
    scene: km.Scene | None = None  # the workspace around the arm (kinematica.scene), if one is open
    seat: str | None = None  # which robot of `scene` the arm is
    models: dict[str, learned.LoadedModel] = field(default_factory=dict)  # learned IK models, per robot label
    seed: str = "current"  # where a numeric Solve starts: a key of learned.SEEDS
    ik_model: learned.LoadedModel | None = None  # the model the last Solve used, as method or start
    # the projection the user had before a planar robot put the view in its plane ("xy"); None
    # while the view was not put there by a planar robot
    view_before_planar: str | None = None

    def __post_init__(self) -> None:
        self.set_robot(self.robot_name)

    @property
    def poses(self) -> list[Pose]:
        """The saved poses of the current robot (each robot keeps its own list)."""
        return self.pose_lists.setdefault(self.robot_name, [])

    @property
    def open_scene(self) -> OpenScene | None:
        """The open workspace scene with the arm's seat in it (`scene` and `seat` are set
        together), or None when no scene is open."""
        if self.scene is None or self.seat is None:
            return None
        return OpenScene(self.scene, self.seat)

    # --- robot and joints -----------------------------------------------------------------
    def set_robot(self, name: str) -> None:
        """Switch to a bundled robot or one in `loaded`; q goes home, the target to the tool. An
        open scene closes unless the arm's seat in it is this robot."""
        robot = self.loaded[name] if name in self.loaded else bundled(name)
        self.robot_name, self.robot, self.q = name, robot, robot.q_home
        current = self.open_scene
        if current is not None and current.scene.robots[current.seat].robot.name != name:
            self.scene, self.seat = None, None
        self.target = self.target_from_tool(default_target_kind(robot))
        self.solutions, self.message, self.status, self.ik_run, self.ik_start = [], "", "", None, None
        self.trajectory, self.trajectory_note, self.t = None, "", 0.0
        self._fit_model_choices()
        self._project_for(robot)

    def _project_for(self, robot: km.Robot) -> None:
        """A planar arm opens in its plane (the 2-D "xy" view); leaving it for a spatial arm
        gives back the projection the user had before, unless the user chose another since."""
        if robot.table is not None and robot.table.kind == "planar":
            if self.view_before_planar is None:
                self.view_before_planar = self.view.projection
            self.view.projection = "xy"
        elif self.view_before_planar is not None:
            if self.view.projection == "xy":
                self.view.projection = self.view_before_planar
            self.view_before_planar = None

    def add_robot_file(self, path: str | Path, tip: str | None = None, hold: dict | None = None,
                       package_dirs: tuple = ()) -> str:
        """Load a .yaml or .urdf robot file (a URDF's chain to link `tip`, joints off it held at
        `hold`, its meshes' packages under `package_dirs`) and switch to it; returns its label."""
        robot = km.load(str(path), tip=tip, hold=hold, **({"package_dirs": package_dirs} if package_dirs else {}))
        label = robot.name if robot.name not in km.robot_names() else f"{robot.name} ({Path(path).name})"
        label += f" to {tip}" if tip else ""
        self.loaded[label] = robot
        self.set_robot(label)
        return label

    @property
    def model(self) -> learned.LoadedModel | None:
        """The learned IK model loaded for the current robot, if any."""
        return self.models.get(self.robot_name)

    def add_model_file(self, path: str | Path, name: str) -> learned.LoadedModel:
        """Read the IK model file at `path` (the user's `name` for it) for the current robot; it
        replaces an earlier one. ValueError (nothing changed) for a file that is not an IK model
        of this robot."""
        loaded = learned.read_ik_model(path, name, self.robot)
        self.models[self.robot_name] = loaded
        return loaded

    def _fit_model_choices(self) -> None:
        """Without a model for the robot, the model's method and seed fall back to LM from q."""
        if self.model is None:
            self.method = "lm" if self.method == learned.METHOD else self.method
            self.seed = "current"

    def display_q(self) -> np.ndarray:
        return to_display(self.robot, self.q)

    def set_joint(self, i: int, value: float) -> None:
        """Set joint i from its displayed value (degrees, or the length unit); FieldError (q
        unchanged) for a value its field would not take (`check_joint`)."""
        q = self.q.copy()
        q[i] = check_joint(self.robot, i, value) / self.robot.angle_scale[i]
        self.q = q

    def set_q(self, q: np.ndarray) -> None:
        q = np.asarray(q, dtype=float)
        if q.shape != (self.robot.n,) or not np.all(np.isfinite(q)):
            raise InputError(f"q: expected {self.robot.n} finite joint values, got {q}")
        self.q = q.copy()

    def home(self) -> None:
        self.q = self.robot.q_home

    # --- what is shown ----------------------------------------------------------------------
    def readout(self) -> Readout:
        T = km.fk(self.robot, self.q)
        s = km.singularity(self.robot, self.q)
        return Readout(T[:3, 3].copy(), np.degrees(spatial.matrix_to_rpy(T[:3, :3])), T,
                       s.message, bool(s.singular), bool(s.near))

    def target_from_tool(self, kind: str | None = None) -> TargetSpec:
        """A target at the tool's current pose (so a fresh target is always reachable)."""
        T = km.fk(self.robot, self.q)
        a = T[:3, 2]
        pitch = np.degrees(np.arcsin(np.clip(a[2], -1.0, 1.0)))
        return TargetSpec(kind or self.target.kind, triple(_tidy(T[:3, 3])),
                          triple(_tidy(np.degrees(spatial.matrix_to_rpy(T[:3, :3])))), _tidy([pitch])[0])

    # --- inverse kinematics -------------------------------------------------------------------
    def solve(self) -> Outcome:
        """Solve the target from the current q with the chosen method. On success q moves to
        the solution; on failure (unreachable, refused, no convergence) q stays and the message
        says why. Either way every solution `km.ik_all` finds is listed. With a learned model
        loaded for the robot, method "anfis" gives the model's answer alone (listed to adopt; the
        arm moves only when FK says it meets the tolerances), and seed "model" starts the
        numeric method from the model's answer instead of q."""
        self.solutions, self.ik_run, self.ik_start, self.ik_model = [], None, None, None
        self._fit_model_choices()
        model = self.model.model if self.model is not None else None
        seed_model = model if self.seed == "model" and self.method != learned.METHOD else None  # None: from q
        try:
            target = self.target.build()
            if self.method == learned.METHOD:  # the model's answer alone, judged by FK
                result = km.ik(self.robot, target, method=self.method, model=model)
                start = np.asarray(result.q, dtype=float)
            else:
                start = seed_model.answer(target) if seed_model is not None else self.q.copy()
                result = km.ik(self.robot, target, seed_model if seed_model is not None else self.q,
                               method=self.method, history=True)
        except ValueError as e:  # TargetError, a target off a planar arm's plane, no closed form
            return self.say(False, _sentence(e), "error")
        self.ik_run, self.ik_start = result, start
        self.ik_model = self.model if seed_model is not None or self.method == learned.METHOD else None
        others = self._all_solutions(target)
        self.solutions = _merge(self.robot, result, others)
        if self.method == learned.METHOD:
            return self._model_answer(result)
        if not result.success:
            found = ""
            if others:
                inside = sum(s.within_limits for s in others)
                found = (f" {len(others)} other solution{'s' if len(others) > 1 else ''} found, "
                         + (f"{inside} within the joint limits: see the list below." if inside else
                            "none within the joint limits: listed below, to look at, not to adopt."))
            return self.say(False, f"Not solved — {result.reason}.{found} The arm was not moved.",
                             "error" if not result.reachable else "warning")
        self.q = np.asarray(result.q, dtype=float).copy()
        s = km.singularity(self.robot, self.q)
        words = f"Solved ({METHODS.get(result.method, result.method)}"
        words += (f" from the ANFIS model's answer{learned.picked_words(seed_model, target)}): "
                  if seed_model is not None else "): ")
        words += f"{result.reason}. "
        words += f"At this pose the arm is {s.message}."
        return self.say(True, words, "warning" if (s.singular or s.near) else "ok")

    def adopt(self, index: int) -> Outcome:
        """Move the arm to listed solution `index` (only one within the joint limits)."""
        sol = self.solutions[index]
        if not sol.within_limits:
            return self.say(False, f"Solution {index + 1} ({sol.label}) is outside the joint "
                                    "limits; the arm was not moved.", "warning")
        self.q = sol.q.copy()
        return self.say(True, f"Adopted solution {index + 1} ({sol.label}).", "ok")

    def _model_answer(self, result: km.IKResult) -> Outcome:
        """The verdict on the model's answer alone; an answer that misses is listed to adopt
        (first), the arm stays."""
        q = np.asarray(result.q, dtype=float)
        if result.success:
            self.q = q.copy()
            return self.say(True, learned.answer_words(result, self.robot.length_unit), "ok")
        miss = f"misses by {float(result.position_error):.3g} {self.robot.length_unit}"
        self.solutions.insert(0, Solution(q.copy(), f"the ANFIS model's answer ({miss})",
                                          bool(result.within_limits), str(result.reason)))
        return self.say(False, learned.answer_words(result, self.robot.length_unit),
                        "error" if not result.reachable else "warning")

    def _all_solutions(self, target: km.Target) -> list[km.IKResult]:
        method = self.method if self.method in METHODS and self.method != "analytic" else "lm"
        try:
            return km.ik_all(self.robot, target, self.q, method=method)
        except ValueError:
            return []

    def say(self, solved: bool, message: str, status: str) -> Outcome:
        self.message, self.status = message, status
        return Outcome(solved, message)


def _merge(robot: km.Robot, result: km.IKResult, others: list[km.IKResult]) -> list[Solution]:
    """The listed solutions: the solve's own answer first (when it succeeded), then the other
    distinct ones, those within the limits before those outside."""
    out: list[Solution] = []
    if result.success:
        out.append(Solution(np.asarray(result.q, float).copy(), _label(result, "this solve"), True,
                            str(result.reason)))
    for r in sorted(others, key=lambda r: not r.within_limits):
        q = np.asarray(r.q, dtype=float)
        if any(_same(robot, q, s.q) for s in out):
            continue
        out.append(Solution(q.copy(), _label(r, f"solution {len(out) + 1}"), bool(r.within_limits),
                            str(r.reason)))
    return out


def _label(r: km.IKResult, fallback: str) -> str:
    return str(r.branch) if r.branch else fallback


def _same(robot: km.Robot, a: np.ndarray, b: np.ndarray, tol: float = 1e-4) -> bool:
    d = a - b
    d = np.where(robot.revolute, (d + np.pi) % (2 * np.pi) - np.pi, d)
    return bool(np.linalg.norm(d) < tol)


def _tidy(values) -> list[float]:
    """Numbers rounded for an input field (6 significant digits after the point, -0 → 0)."""
    return [float(round(float(v), 6)) + 0.0 for v in np.atleast_1d(values)]


def _sentence(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text[0].upper() + text[1:] + ("" if text.endswith(".") else ".") + " The arm was not moved."
