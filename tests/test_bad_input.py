"""Bad input to the API: counts and sizes over their bounds, a simulation that would run for
hours, and a robot given by name or as something that is not a robot.

Every count argument of the public API goes through `kinematica.bounds.count`: an oversized one
is refused before any work with the function's own error class, naming the argument and the
limit (a test below finds the count arguments by their names, so a new one cannot slip by).
"""

from __future__ import annotations

import inspect
import tracemalloc

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.integrate import solve_ivp

import kinematica as km
from kinematica import bounds, learn, viz
from kinematica.explain import explain
from kinematica.model.coerce import as_robot
from kinematica.trajectory import TrajectoryError
from kinematica.viz import VizError

from strategies import FAST

PUMA = km.load("puma560")
T0 = km.fk(PUMA, [0.1, 0.2, -0.3, 0.2, 0.5, 0.1])
T1 = km.fk(PUMA, [0.4, 0.1, -0.2, 0.3, 0.6, 0.2])
P3 = ([1, 0, 0], [0, 1, 0], [-1, 0, 0])
BIG = 10**9

# (call, error class, argument named in the message, limit named in the message)
OVER_THE_LIMIT = [
    (lambda: km.trajectory.line(T0, T1, steps=10**8), TrajectoryError, "steps", bounds.SAMPLES),
    (lambda: km.trajectory.line(T0, T1, duration=1e3, dt=1e-6), TrajectoryError, "duration / dt", bounds.SAMPLES),
    (lambda: km.trajectory.arc_through(*P3, steps=BIG), TrajectoryError, "steps", bounds.SAMPLES),
    (lambda: km.trajectory.circle_through(*P3, steps=BIG), TrajectoryError, "steps", bounds.SAMPLES),
    (lambda: km.trajectory.spline([[0, 0, 0], [1, 1, 0], [2, 0, 0]], steps=BIG), TrajectoryError, "steps",
     bounds.SAMPLES),
    (lambda: km.trajectory.cubic([0], [1], 1.0, steps=BIG), TrajectoryError, "steps", bounds.SAMPLES),
    (lambda: km.trajectory.quintic([0], [1], 1.0, dt=1e-12), TrajectoryError, "duration / dt", bounds.SAMPLES),
    (lambda: km.trajectory.trapezoidal([0], [1], 1.0, 1.0, steps=BIG), TrajectoryError, "steps", bounds.SAMPLES),
    (lambda: km.trajectory.via([[0], [1], [0]], 1.0, 1.0, steps=10 * BIG), TrajectoryError, "steps",
     bounds.SAMPLES),
    (lambda: km.trajectory.joint([[0], [1]], steps=BIG), TrajectoryError, "steps", bounds.SAMPLES),
    (lambda: km.trajectory.cubic([0], [1], 1.0).resample(dt=1e-12), TrajectoryError, "duration / dt",
     bounds.SAMPLES),
    (lambda: km.trajectory.follow(PUMA, km.trajectory.line(T0, T1, steps=2), restarts=BIG), TrajectoryError,
     "restarts", bounds.RESTARTS),
    (lambda: km.ik(PUMA, T0, restarts=100_000_000), ValueError, "restarts", bounds.RESTARTS),
    (lambda: km.ik(PUMA, T0, method="gn", max_iter=BIG), ValueError, "max_iter", bounds.ITERATIONS),
    (lambda: km.ik_all(PUMA, T0, seeds=BIG), ValueError, "seeds", bounds.SEEDS),
    (lambda: km.self_motion(km.load("planar-3r"), [-10, 35], np.radians([30, 30, 20]), samples=BIG), ValueError,
     "samples", bounds.SOLVES),
    (lambda: km.simulate(PUMA, 1e4, PUMA.q_home, dt=1e-6), ValueError, "duration / dt", bounds.SAMPLES),
    (lambda: km.simulate(PUMA, 1.0, PUMA.q_home, max_evaluations=10**12), ValueError, "max_evaluations",
     bounds.EVALUATIONS),
    (lambda: viz.workspace_points(PUMA, samples=BIG), VizError, "samples", bounds.POINTS),
    (lambda: viz.frame_times(km.trajectory.cubic([0], [1], 1.0), fps=10, frames=BIG), VizError, "frames",
     bounds.FRAMES),
    # the workspace maps and the learned models (issue 30: the new APIs' counts)
    (lambda: km.workspace.envelope(PUMA, samples=10 * BIG), km.workspace.WorkspaceError, "samples", bounds.ENVELOPE),
    (lambda: km.workspace.envelope(PUMA, chunk=10 * BIG), km.workspace.WorkspaceError, "chunk", bounds.ENVELOPE),
    (lambda: km.workspace.preview(PUMA, samples=10 * BIG), km.workspace.WorkspaceError, "samples", bounds.POINTS),
    (lambda: km.workspace.reachability(PUMA, samples=10 * BIG), km.workspace.WorkspaceError, "samples",
     bounds.ENVELOPE),
    (lambda: km.workspace.reachability(PUMA, chunk=BIG), km.workspace.WorkspaceError, "chunk", bounds.VOXELS),
    (lambda: km.workspace.reachability(PUMA, orientations=BIG), km.workspace.WorkspaceError, "orientations",
     bounds.ORIENTATIONS),
    (lambda: km.workspace.reachability(PUMA, rolls=BIG), km.workspace.WorkspaceError, "rolls", bounds.ORIENTATIONS),
    (lambda: km.workspace.reachability(PUMA, restarts=BIG), km.workspace.WorkspaceError, "restarts", bounds.RESTARTS),
    (lambda: km.workspace.orientation_set(PUMA, directions=BIG), km.workspace.WorkspaceError, "orientations",
     bounds.ORIENTATIONS),
    (lambda: km.workspace.orientation_set(PUMA, rolls=BIG), km.workspace.WorkspaceError, "rolls",
     bounds.ORIENTATIONS),
    (lambda: learn.train_ik("planar-3r", samples=BIG), learn.LearnError, "samples", bounds.TRAINING),
    (lambda: learn.train_ik("planar-3r", rules=BIG), learn.LearnError, "rules", bounds.RULES),
    (lambda: learn.train_ik("planar-3r", epochs=BIG), learn.LearnError, "epochs", bounds.EPOCHS),
    (lambda: learn.train_ik("planar-3r", warm_start=BIG), learn.LearnError, "warm_start", bounds.TRAINING),
    (lambda: learn.train_dynamics(PUMA, trajectories=BIG), learn.LearnError, "trajectories", bounds.TRAINING),
    (lambda: learn.train_dynamics(PUMA, rules=BIG), learn.LearnError, "rules", bounds.RULES),
    (lambda: learn.train_dynamics(PUMA, epochs=BIG), learn.LearnError, "epochs", bounds.EPOCHS),
]


@pytest.mark.parametrize("call, error, argument, limit", OVER_THE_LIMIT)
def test_counts_over_their_limit_are_refused_before_any_work(call, error, argument, limit):
    tracemalloc.start()
    try:
        with pytest.raises(error) as e:
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(e.value)
    assert argument in message and limit.name in message and f"{limit.value:,}" in message
    # Refused before the arrays were made: far less than the 10⁸-sample line's 13 GB (the
    # bound is loose, the building of the small inputs above counts too).
    assert peak < 50e6


# Every public function's parameters that count something; each must be bounded (see the table
# above). A new count argument added to the API must be added there too.
COUNT_NAMES = {"steps", "samples", "restarts", "seeds", "frames", "max_iter", "max_evaluations", "max_frames",
               "n", "count", "points", "iterations", "chunk", "orientations", "directions", "rolls", "rules", "epochs",
               "trajectories", "warm_start"}
BOUNDED = {("envelope", "samples"), ("envelope", "chunk"), ("preview", "samples"), ("reachability", "samples"), ("reachability", "chunk"),
           ("reachability", "orientations"), ("reachability", "rolls"), ("reachability", "restarts"),
           ("orientation_set", "directions"), ("orientation_set", "rolls"), ("train_ik", "samples"),
           ("train_ik", "rules"), ("train_ik", "epochs"), ("train_ik", "warm_start"), ("train_dynamics", "trajectories"),
           ("train_dynamics", "rules"), ("train_dynamics", "epochs"),
           ("line", "steps"), ("arc_through", "steps"), ("circle_through", "steps"), ("spline", "steps"),
           ("cubic", "steps"), ("quintic", "steps"), ("trapezoidal", "steps"), ("via", "steps"),
           ("joint", "steps"), ("follow", "restarts"), ("ik", "restarts"), ("ik_all", "seeds"),
           ("self_motion", "samples"), ("simulate", "max_evaluations"), ("workspace_points", "samples"),
           ("workspace", "samples"), ("frame_times", "frames"), ("frame_times", "max_frames"),
           ("animate", "frames"), ("animate", "max_frames"),  # animate's go to frame_times
           ("dexterity", "samples"), ("dexterity", "chunk"), ("dexterity", "orientations"),  # dexterity's go to
           ("dexterity", "rolls"), ("dexterity", "restarts")}  # reachability, which bounds them
NOT_COUNTS = {("curve", "points"), ("spline", "points"),  # the points themselves, an array
              ("arm", "frames")}  # whether to draw the link frames


def _public_functions():
    from kinematica import learn

    for module in (km, km.trajectory, viz, km.workspace, learn, km.export):
        for name in getattr(module, "__all__", dir(module)):
            obj = getattr(module, name, None)
            if inspect.isfunction(obj):
                yield name, obj
    for name, obj in vars(km.Scene).items():
        if inspect.isfunction(obj) and not name.startswith("_"):
            yield f"Scene.{name}", obj


def test_every_count_argument_of_the_public_api_is_bounded():
    found = {(name, p) for name, fn in _public_functions() for p in inspect.signature(fn).parameters
             if p in COUNT_NAMES} - NOT_COUNTS
    assert found, "the scan found no count arguments at all"
    assert found <= BOUNDED, f"count arguments without a bound test: {sorted(found - BOUNDED)}"


def test_max_frames_goes_through_the_same_bound():
    tr = km.trajectory.cubic([0], [1], 1000.0)
    with pytest.raises(VizError, match=bounds.FRAMES.name):  # 10 001 frames let through by max_frames
        viz.frame_times(tr, fps=10, max_frames=BIG)


@given(st.integers(-5, 3 * bounds.RESTARTS.value))
@FAST
def test_count_accepts_exactly_the_whole_numbers_in_range(k):
    inside = 0 <= k <= bounds.RESTARTS.value
    if inside:
        assert bounds.count(k, "restarts", bounds.RESTARTS, minimum=0) == k
        assert bounds.count(float(k), "restarts", bounds.RESTARTS, minimum=0) == k  # 10.0 is a whole number
    else:
        with pytest.raises(ValueError, match="restarts"):
            bounds.count(k, "restarts", bounds.RESTARTS, minimum=0)


@pytest.mark.parametrize("value", [True, 2.5, float("nan"), float("inf"), "10", None, [3]])
def test_count_refuses_what_is_not_a_whole_number(value):
    with pytest.raises(TrajectoryError, match="steps: expected a whole number"):
        bounds.count(value, "steps", bounds.SAMPLES, error=TrajectoryError)


@pytest.mark.parametrize("call", [lambda: km.trajectory.line(T0, T1, steps=0),
                                  lambda: km.ik(PUMA, T0, restarts=-1),
                                  lambda: km.ik_all(PUMA, T0, seeds=0)])
def test_counts_below_their_minimum_are_refused(call):
    with pytest.raises(ValueError, match=">= "):
        call()


# --- simulate: bounded, reported, cancellable --------------------------------------------------
def test_simulate_steps_like_solve_ivp():
    """The solver is stepped here (for the cap and progress) but must give solve_ivp's answer."""
    robot = km.load("arm-5dof")
    q0 = np.array([0.3, 0.5, -0.4, 0.2, 0.1])
    sim = km.simulate(robot, 0.5, q0, dt=0.05, method="DOP853", rtol=1e-10, atol=1e-12)

    def f(t, y):
        return np.concatenate([y[5:], km.forward_dynamics(robot, y[:5], y[5:], np.zeros(5))])

    ref = solve_ivp(f, (0, 0.5), np.concatenate([q0, np.zeros(5)]), method="DOP853", t_eval=sim.t,
                    rtol=1e-10, atol=1e-12)
    # Both take the same steps and interpolate the same dense output: equal to rounding, far
    # below the 1e-10 tolerance the integration itself is run at.
    np.testing.assert_allclose(sim.q, ref.y[:5].T, rtol=0, atol=1e-12)


def test_a_runaway_simulation_stops_at_the_cap_saying_where_and_why():
    # A constant 100 N·m spins the Puma's light wrist to 10⁶ rad/s: solved exactly it needs
    # millions of evaluations; the cap stops it and says so.
    with pytest.raises(km.SimulationStopped) as e:
        km.simulate(PUMA, 1.0, PUMA.q_home, torque=np.full(6, 100.0), dt=0.001, max_evaluations=3000)
    stop = e.value
    message = str(stop)
    assert "max_evaluations = 3,000" in message and "stopped at t = " in message
    assert "rad/s" in message  # the fastest joint, the likely cause
    assert 0 < stop.t < 1.0
    part = stop.trajectory
    assert len(part) >= 2 and part.t[-1] <= stop.t and np.all(np.isfinite(part.q))
    # The motion up to there is the motion: an uncapped run over that span agrees with it
    # (same steps from the same start; tolerance far above the integration's own 1e-8 rtol
    # times the size of q).
    again = km.simulate(PUMA, part.t[-1], PUMA.q_home, torque=np.full(6, 100.0), dt=0.001)
    np.testing.assert_allclose(again.q, part.q[:len(again)], rtol=1e-5, atol=1e-6)


def test_simulate_reports_progress_and_stops_when_asked():
    seen: list[tuple[float, int]] = []

    def progress(t, evaluations):
        seen.append((t, evaluations))
        return len(seen) < 5

    with pytest.raises(km.SimulationStopped, match="cancelled") as e:
        km.simulate(PUMA, 1.0, PUMA.q_home, torque=np.full(6, 100.0), progress=progress)
    assert len(seen) == 5
    t, n = np.array(seen).T
    assert np.all(np.diff(t) > 0) and np.all(np.diff(n) > 0) and e.value.t == t[-1]


def test_ctrl_c_inside_the_dynamics_ends_the_simulation():
    calls = []

    def torque(t, q, qd):
        calls.append(t)
        if len(calls) == 50:
            raise KeyboardInterrupt
        return np.zeros(6)

    with pytest.raises(KeyboardInterrupt):
        km.simulate(PUMA, 1.0, PUMA.q_home, torque=torque)
    assert len(calls) == 50  # it stopped there, and did not go on


# --- a robot by name, by path, or a clear TypeError --------------------------------------------
Q6 = np.array([0.1, 0.2, -0.3, 0.2, 0.5, 0.1])
VERBS = [
    ("fk", lambda r: km.fk(r, Q6)),
    ("fk_frames", lambda r: km.fk_frames(r, Q6)),
    ("fk_jacobian", lambda r: km.fk_jacobian(r, Q6)[1]),
    ("jacobian", lambda r: km.jacobian(r, Q6)),
    ("jacobian_derivative", lambda r: km.jacobian_derivative(r, Q6)),
    ("task_rows", lambda r: km.task_rows(r)),
    ("singularity", lambda r: km.singularity(r, Q6).message),
    ("ik", lambda r: km.ik(r, T0).q),
    ("ik_all", lambda r: np.array([s.q for s in km.ik_all(r, T0)])),
    ("rne", lambda r: km.rne(r, Q6, Q6, Q6)),
    ("mass_matrix", lambda r: km.mass_matrix(r, Q6)),
    ("gravity_torques", lambda r: km.gravity_torques(r, Q6)),
    ("coriolis", lambda r: km.coriolis(r, Q6, Q6)),
    ("forward_dynamics", lambda r: km.forward_dynamics(r, Q6, Q6, Q6)),
    ("with_payload", lambda r: km.mass_matrix(km.with_payload(r, 1.0), Q6)),
    ("simulate", lambda r: km.simulate(r, 0.05, Q6).q),
    ("pd_gravity", lambda r: km.pd_gravity(r, Q6)(0.0, Q6, Q6)),
    ("computed_torque", lambda r: km.computed_torque(r, km.trajectory.cubic(Q6, Q6 + 0.1, 1.0, robot=PUMA))(
        0.5, Q6, Q6)),
    ("energy", lambda r: km.energy(r, Q6, Q6)),
    ("to_urdf", lambda r: km.to_urdf(r)),
    ("follow", lambda r: km.trajectory.follow(r, km.trajectory.line(T0, T1, steps=3), q0=Q6)[0].q),
    ("for_robot", lambda r: km.trajectory.for_robot(r, [0.0], [Q6], [Q6], [Q6]).joint_names),
    ("cubic(robot=)", lambda r: km.trajectory.cubic(Q6, Q6, 1.0, robot=r).joint_names),
    ("explain", lambda r: explain(r, "fk", q=Q6).title),
    ("workspace_points", lambda r: viz.workspace_points(r, 10)[0]),
    ("arm_geometry", lambda r: viz.arm_geometry(r, Q6).joints),
]


def _same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        np.testing.assert_array_equal(a, b)  # the very same robot, the very same computation
    else:
        assert a == b


@pytest.mark.parametrize("verb, call", VERBS, ids=[v for v, _ in VERBS])
def test_every_verb_takes_a_robot_name_or_file(verb, call, tmp_path):
    path = tmp_path / "my-puma.yaml"
    km.save(PUMA, path)
    expected = call(PUMA)
    _same(call("puma560"), expected)
    _same(call(path), call(km.load(path)))


def test_servo_mappings_take_a_robot_name():
    braccio = km.load("braccio")
    q = np.radians([10, 20, 30, 40, 50])
    np.testing.assert_array_equal(km.to_servo("braccio", q), km.to_servo(braccio, q))
    np.testing.assert_array_equal(km.from_servo("braccio", km.to_servo(braccio, q)),
                                  km.from_servo(braccio, km.to_servo(braccio, q)))


@pytest.mark.parametrize("bad", [None, 3, [1, 2, 3], np.zeros(6)])
def test_a_robot_that_is_not_one_is_a_type_error_saying_what_is_expected(bad):
    with pytest.raises(TypeError, match="expected a Robot, a bundled robot name"):
        km.fk(bad, Q6)
    with pytest.raises(TypeError, match="expected a Robot"):
        km.rne(bad, Q6, Q6, Q6)


def test_an_unknown_robot_name_says_which_exist():
    with pytest.raises(ValueError, match="did you mean puma560"):
        km.fk("pumaa", Q6)


def test_every_public_verb_taking_a_robot_coerces_it():
    """One shared coercion: every public function whose first parameter is `robot` goes through it."""
    plain = [name for name, fn in _public_functions()
             if list(inspect.signature(fn).parameters)[:1] == ["robot"] and not hasattr(fn, "__wrapped__")]
    assert plain == []


def test_the_robot_wrapper_has_the_verbs_own_parameters():
    """takes_robot writes a wrapper with the verb's parameters (cheaper than *args, **kwargs):
    it must pass positional, default, variadic and keyword-only arguments exactly as given."""
    from kinematica.model.coerce import takes_robot

    marker = []

    def verb(robot, q, b=marker, *rest, k=1, m, **extra):
        return robot, q, b, rest, k, m, extra

    wrapped = takes_robot(verb)
    assert inspect.signature(wrapped) == inspect.signature(verb) and wrapped.__wrapped__ is verb
    assert wrapped(PUMA, 1, m=2) == (PUMA, 1, marker, (), 1, 2, {})
    assert wrapped("puma560", 1, m=2)[0].name == "puma560"
    assert wrapped(PUMA, 1, 5, 6, 7, m=2, k=3, z=4) == (PUMA, 1, 5, (6, 7), 3, 2, {"z": 4})
    assert wrapped(PUMA, 1, m=0)[2] is marker  # the default object itself, not a copy
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'm'"):
        wrapped(PUMA, 1)
    with pytest.raises(TypeError, match="expected a Robot"):
        wrapped(None, 1, m=0)


def test_as_robot_reads_a_bundled_robot_once():
    assert as_robot("puma560") is as_robot("puma560")
    assert as_robot(PUMA) is PUMA


# --- unknown keywords: refused by the function called, naming what it takes ---------------------
def _strict_api():
    """(what, callable) for every public function of km, km.trajectory, km.viz, km.workspace,
    kinematica.learn and km.export, the constructor and public methods of km.Scene and
    km.export.JointStateSender, and Robot.replace (the path `from_poe(..., frame=)` used to fail in)."""
    for module in (km, km.trajectory, viz, km.workspace, learn, km.export):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                yield f"{module.__name__}.{name}", obj
    scene = km.Scene()
    yield "Scene", km.Scene
    for name, obj in vars(km.Scene).items():
        if not name.startswith("_") and callable(getattr(obj, "__func__", obj)):
            yield f"Scene.{name}", getattr(scene, name)
    yield "JointStateSender", km.export.JointStateSender
    for name in ("send", "close"):
        yield f"JointStateSender.{name}", getattr(km.export.JointStateSender, name)
    yield "Robot.replace", PUMA.replace


def _dummies(fn) -> tuple[list, dict]:
    """None for every parameter the call needs (the keyword check comes before any other)."""
    params = list(inspect.signature(fn).parameters.values())
    args = [None for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if params and params[0].name == "robot":  # a verb taking **options checks them after taking the robot
        args[0] = PUMA
    kwargs = {p.name: None for p in params if p.default is p.empty and p.kind == p.KEYWORD_ONLY}
    return args, kwargs


STRICT = list(_strict_api())


def test_the_strict_keyword_scan_sees_the_whole_api():
    names = {what for what, _ in STRICT}
    # The modules named in issue 30 and the functions the issue met: a scan that lost them
    # would pass vacuously.
    assert {"kinematica.from_poe", "kinematica.identify", "kinematica.regressor", "kinematica.workspace.dexterity",
            "kinematica.learn.save_model", "kinematica.export.to_glb", "Scene.check", "Scene.add_obstacle",
            "Scene.load", "Robot.replace"} <= names
    assert len(STRICT) > 100


@pytest.mark.parametrize("what, fn", STRICT, ids=[w for w, _ in STRICT])
def test_every_public_function_refuses_an_unknown_keyword_naming_itself_and_what_it_takes(what, fn):
    from kinematica.keywords import accepted

    args, kwargs = _dummies(fn)
    with pytest.raises(km.InputTypeError) as e:
        fn(*args, **kwargs, frobnicate=1)
    message = str(e.value)
    own = getattr(fn, "__func__", fn)
    title = (own.__init__ if inspect.isclass(own) else own).__qualname__
    assert message.startswith(f"{title}(): unknown keyword argument 'frobnicate'"), message
    takes = message.split("; it takes ", 1)[1]
    assert set(accepted(fn)) <= set(takes.split(", ")), message


def test_a_builder_refuses_an_unknown_keyword_before_making_a_robot():
    """Issue 30: `frame=` went through **meta into Robot.__init__; metadata now has its own `meta=`."""
    M, S = np.eye(4), [[0, 0, 1, 0, 0, 0]]
    with pytest.raises(TypeError, match=r"^from_poe\(\): unknown keyword argument 'frame'.*it takes M, screws, form"):
        km.from_poe(M, S, frame="space")
    assert km.from_poe(M, S, meta={"description": "one joint"}).description == "one joint"
    with pytest.raises(km.RobotError, match="meta: unknown field.*'frame'.*it takes description"):
        km.from_poe(M, S, meta={"frame": "space"})
    with pytest.raises(TypeError, match=r"^Robot.replace\(\): unknown keyword argument 'tol'"):
        PUMA.replace(tol=1)
    with pytest.raises(TypeError, match=r"^dexterity\(\): unknown keyword argument 'bogus'"):
        km.workspace.dexterity(PUMA, bogus=1)
    with pytest.raises(TypeError, match=r"^ik\(\): unknown keyword argument 'tolerance'.*tol_position"):
        km.ik(PUMA, T0, tolerance=1e-3)


# --- raw errors of the new APIs (issue 30) -----------------------------------------------------------
@pytest.mark.parametrize("radius", [-1, 0, float("nan"), float("inf"), 1e308])
def test_a_glb_radius_must_be_a_positive_finite_length(radius):
    with pytest.raises(km.InputError, match=r"radius: expected a positive number of at most 1e\+12 mm"):
        km.export.to_glb("braccio", radius=radius)


def test_a_glb_trajectory_is_a_trajectory_or_its_file(tmp_path):
    braccio = km.load("braccio")
    with pytest.raises(FileNotFoundError, match="br.csv"):
        km.export.to_glb(braccio, str(tmp_path / "br.csv"))
    with pytest.raises(km.InputTypeError, match="trajectory: expected a km.Trajectory or a trajectory file path"):
        km.export.to_glb(braccio, 3)
    tr = km.trajectory.cubic(braccio.q_home, braccio.q_home + 0.1, 1.0, steps=5)
    tr = km.Trajectory(tr.t, tr.q, tr.qd, tr.qdd, joint_names=braccio.joint_names, revolute=tuple(braccio.revolute))
    path = km.trajectory.save(tr, tmp_path / "br.csv")
    assert km.export.to_glb(braccio, path) == km.export.to_glb(braccio, km.trajectory.load(path))


def test_save_model_refuses_what_is_not_a_model_and_a_path_it_cannot_write(tmp_path):
    from kinematica.learn import load_model, save_model, train_ik

    model = train_ik("planar-3r", samples=300, rules=8, epochs=1, seed=0)
    with pytest.raises(km.InputTypeError, match=r"model must be an IKModel or DynamicsModel.*got str \(model and path swapped\?\)"):
        save_model("p3.npz", model)
    with pytest.raises(km.WriteError, match=f"cannot write {tmp_path}: it is a folder"):
        save_model(model, tmp_path)
    with pytest.raises(km.WriteError, match="folder .*missing does not exist"):
        save_model(model, tmp_path / "missing" / "m.npz")
    assert list(tmp_path.iterdir()) == []
    save_model(model, tmp_path / "m.npz")
    assert load_model(tmp_path / "m.npz").net.n_rules == model.net.n_rules


def test_scene_save_to_a_folder_or_a_missing_one_names_it_and_writes_nothing(tmp_path):
    scene = km.Scene("cell")
    scene.add_robot("arm", km.load("planar-3r"))  # a Robot object: its file is written beside the scene's
    for bad, why in ((tmp_path, "it is a folder"), (tmp_path / "no" / "cell.yaml", "does not exist")):
        with pytest.raises(km.WriteError, match=why):
            scene.save(bad)
    assert list(tmp_path.iterdir()) == []


# --- batch sizes of the new APIs -----------------------------------------------------------------------
# How each function of km.Scene, km.workspace, kinematica.learn, km.export, km.identify and
# km.regressor keeps its work bounded besides its count arguments (checked above): "single" (no
# batch: one robot, pose, name or file), "counts" (the size is its count arguments'), or a batch
# input with the test that shows its bound. A function added to these APIs must be added here.
SIZE_GUARDS = {
    "kinematica.workspace.envelope": "counts", "kinematica.workspace.reachability": "counts",
    "kinematica.workspace.preview": "counts",
    "kinematica.workspace.dexterity": "counts of reachability",  # its options are reachability's
    "kinematica.workspace.orientation_set": "counts",
    "kinematica.learn.train_ik": "counts", "kinematica.learn.train_dynamics": "counts",
    "kinematica.learn.load_model": "single", "kinematica.learn.save_model": "single",
    "kinematica.learn.branch": "single",
    "IKModel.answer": "chunked: test_a_learned_model_answers_any_batch_in_bounded_memory",
    "IKModel.seeds_for": "chunked: test_a_learned_model_answers_any_batch_in_bounded_memory",
    "DynamicsModel.torques": "chunked: test_a_learned_model_answers_any_batch_in_bounded_memory",
    # row by row, out as large as in (a few arrays of the caller's N rows): the coordinates `answer` uses
    "IKModel.scaled_inputs": "batch: element-wise", "IKModel.network_outputs": "batch: element-wise",
    "IKModel.joints_from": "batch: element-wise",
    "kinematica.export.to_glb": "trajectory within bounds.SAMPLES: test_a_glb_animation_is_bounded_like_a_trajectory",
    "JointStateSender": "single", "JointStateSender.send": "single", "JointStateSender.close": "single",
    "Scene": "single", "Scene.add_robot": "single", "Scene.add_obstacle": "single", "Scene.set_q": "single",
    "Scene.move": "single", "Scene.remove": "single", "Scene.allow": "single", "Scene.robot_entry": "single",
    "Scene.geometry": "single", "Scene.excluded": "single", "Scene.compiled": "single", "Scene.to_dict": "single",
    "Scene.save": "single", "Scene.load": "single",
    # issue 30's batch limits, held by their own tests (test_scene.py, test_identify.py)
    "Scene.check": "batch: passes of bounded size, refused over bounds.QUERY",
    "Scene.distance": "batch: passes of bounded size, refused over bounds.QUERY",
    "Scene.for_robot": "batch: its Seat.check is Scene.check's",
    "kinematica.identify": "batch: refused in words before allocating",
    "kinematica.regressor": "batch: refused in words before allocating",
}


def test_every_function_of_the_new_apis_says_how_its_size_is_bounded():
    from kinematica.learn import DynamicsModel, IKModel

    new = {"kinematica.workspace", "kinematica.learn", "kinematica.export", "kinematica.identify",
           "kinematica.regressor"}
    names = {what for what, _ in STRICT if what.rpartition(".")[0] in new or what in new
             or what.startswith(("Scene", "JointStateSender"))}
    names |= {f"{cls.__name__}.{m}" for cls in (IKModel, DynamicsModel) for m, v in vars(cls).items()
              if inspect.isfunction(v) and not m.startswith("_")}
    assert names == set(SIZE_GUARDS), (sorted(names - set(SIZE_GUARDS)), sorted(set(SIZE_GUARDS) - names))
    public = dict(_public_functions())
    for what, how in SIZE_GUARDS.items():
        if how.startswith("counts"):  # it has count arguments, each bounded (the table above)
            name = how.split()[-1] if how.startswith("counts of") else what.rpartition(".")[2]
            counts = {(name, p) for p in inspect.signature(public[name]).parameters if p in COUNT_NAMES}
            assert counts and counts <= BOUNDED, what
        elif how.startswith(("chunked", "trajectory")):
            assert how.rpartition(": ")[2] in globals(), f"{what}: no test {how}"


def test_a_glb_animation_is_bounded_like_a_trajectory():
    one = km.from_planar([1.0])  # a one-joint arm: the over-long trajectory costs 8 MB an array
    t = np.linspace(0.0, 10.0, bounds.SAMPLES.value + 1)
    q = np.zeros((t.size, 1))
    tr = km.Trajectory(t, q, q, q, joint_names=one.joint_names, revolute=(True,))
    tracemalloc.start()
    try:
        with pytest.raises(km.InputError, match=r"trajectory: samples = 1000001 is over the limit of 1,000,000"):
            km.export.to_glb(one, tr)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5e6  # refused before the animation's arrays were made


def test_a_learned_model_answers_any_batch_in_bounded_memory(monkeypatch):
    """Predictions run in chunks of rows (learn.anfis.PREDICT_BYTES): a million rows of a
    dynamics model needed ~4 GB at once. Same answers chunked or not; memory set by the chunk."""
    from kinematica.learn import anfis, train_dynamics

    model = train_dynamics(PUMA, trajectories=20, rules=2, epochs=1, seed=0)
    rng = np.random.default_rng(3)
    q, qd, qdd = (rng.uniform(-1, 1, (3000, 6)) for _ in range(3))
    whole = model.torques(q, qd, qdd)
    monkeypatch.setattr(anfis, "PREDICT_BYTES", 64 * 1024)  # ~20 rows a chunk: 150 chunks
    # each row is the same arithmetic in any chunk; BLAS may block a matrix product differently
    # by its size, so equal to rounding of the torques' scale
    np.testing.assert_allclose(model.torques(q, qd, qdd), whole, rtol=1e-12, atol=1e-12 * np.abs(whole).max())
    tracemalloc.start()
    try:
        model.torques(q, qd, qdd)
        chunked = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    monkeypatch.setattr(anfis, "PREDICT_BYTES", 2**40)
    tracemalloc.start()
    try:
        model.torques(q, qd, qdd)
        at_once = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert chunked < at_once / 3, (chunked, at_once)
