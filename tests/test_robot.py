"""The immutable Robot: construction checks, read-only arrays, replace, limits, home, C, and
the Inertial solids."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given

import kinematica as km
from kinematica import spatial
from kinematica.model import InertialError
from strategies import FAST, dh_robots


def make(**over) -> km.Robot:
    """A valid 2-joint robot with some fields overridden."""
    kw = dict(name="two", joint_types=("revolute", "prismatic"), before=np.tile(np.eye(4), (2, 1, 1)),
              after=np.stack([spatial.trans(x=0.5), spatial.rotx(np.pi / 2)]), offsets=np.zeros(2),
              limits=np.array([[-1.0, 1.0], [0.0, 0.3]]), joint_names=("a", "b"))
    kw.update(over)
    return km.Robot(**kw)


# --- construction errors ------------------------------------------------------------------
def test_valid_robot():
    r = make()
    assert r.n == 2 and repr(r) == "Robot('two', 2 joints RP, unit m)"
    np.testing.assert_array_equal(r.revolute, [True, False])
    np.testing.assert_allclose(r.angle_scale, [180 / np.pi, 1.0])


def test_robot_error_is_a_value_error():
    assert issubclass(km.RobotError, ValueError)


@pytest.mark.parametrize("field, value, match", [
    ("before", np.tile(np.eye(4), (3, 1, 1)), r"before transforms: expected shape \(2, 4, 4\), got \(3, 4, 4\)"),
    ("after", np.eye(4), r"after transforms: expected shape \(2, 4, 4\)"),
    ("base", np.eye(3), r"base transform: expected shape \(4, 4\), got \(3, 3\)"),
    ("tool", np.eye(4)[None], r"tool transform: expected shape \(4, 4\)"),
    ("offsets", np.zeros(3), r"joint offsets: expected shape \(2,\), got \(3,\)"),
    ("limits", np.zeros(2), r"joint limits: expected shape \(2, 2\), got \(2,\)"),
    ("home", np.zeros(3), r"home configuration: expected shape \(2,\), got \(3,\)"),
    ("joint_names", ("a",), r"joint names: expected 2, got 1"),
    ("link_names", ("l1", "l2", "l3"), r"link names: expected 2, got 3"),
    ("inertials", (None,), r"inertials: expected one per link \(2\), got 1"),
])
def test_wrong_shapes(field, value, match):
    with pytest.raises(km.RobotError, match=match):
        make(**{field: value})


def test_no_joints():
    with pytest.raises(km.RobotError, match="at least one joint"):
        make(joint_types=(), before=np.zeros((0, 4, 4)), after=np.zeros((0, 4, 4)), offsets=[], limits=np.zeros((0, 2)),
             joint_names=())
    with pytest.raises(km.RobotError, match="at least one row"):
        km.from_dh([])
    with pytest.raises(km.RobotError, match="at least one joint"):
        km.from_link_frames([])


def test_dh_rows_given_as_plain_lists_are_refused_in_words():
    # (NumPy-style rows used to fail inside the builder: 'list' object has no attribute 'get')
    for build in (km.from_dh, km.from_mdh):
        with pytest.raises(km.InputTypeError, match=r"row 1: expected a mapping of named parameters.*list \[0, 0, 1, 0\]"):
            build([[0, 0, 1, 0], [0, 0, 1, 0]])


@pytest.mark.parametrize("field", ["before", "after", "base", "tool", "offsets", "home"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_and_inf_in_arrays(field, bad):
    r = make()
    value = np.array(getattr(r, field) if getattr(r, field) is not None else np.zeros(2), dtype=float)
    value.flat[0 if field in ("offsets", "home") else 3] = bad  # a translation entry
    with pytest.raises(km.RobotError, match="NaN"):
        make(**{field: value})


def test_nan_in_limits_but_inf_allowed():
    with pytest.raises(km.RobotError, match="NaN"):
        make(limits=np.array([[np.nan, 1.0], [0.0, 0.3]]))
    r = make(limits=np.array([[-np.inf, np.inf], [0.0, np.inf]]))
    assert np.isinf(r.limits).sum() == 3


@pytest.mark.parametrize("field", ["before", "after", "base", "tool"])
@pytest.mark.parametrize("kind", ["scaled", "sheared", "reflected", "bottom row"])
def test_non_rigid_transforms(field, kind):
    T = np.eye(4)
    if kind == "scaled":
        T[:3, :3] *= 1.01
    elif kind == "sheared":
        T[0, 1] = 0.1
    elif kind == "reflected":
        T[2, 2] = -1
    else:
        T[3, 0] = 0.5
    value = np.stack([T, np.eye(4)]) if field in ("before", "after") else T
    with pytest.raises(km.RobotError, match="not a rigid transform"):
        make(**{field: value})


def test_rigid_check_tolerates_rounding():
    R = spatial.rotz(0.3)
    R[:3, :3] += 1e-9  # a table printed to 9 decimals
    make(base=R)


def test_lower_above_upper_limit():
    with pytest.raises(km.RobotError, match=r"joint limits of joint 2: lower 0.5 > upper 0.3"):
        make(limits=np.array([[-1.0, 1.0], [0.5, 0.3]]))
    with pytest.raises(km.RobotError, match="lower"):
        km.from_dh([{"a": 1, "limits": [1, -1]}])
    make(limits=np.array([[0.2, 0.2], [0.0, 0.3]]))  # a locked joint is fine


def test_duplicate_joint_names():
    with pytest.raises(km.RobotError, match="unique"):
        make(joint_names=("a", "a"))
    with pytest.raises(km.RobotError, match="unique"):
        km.from_dh([{"name": "j"}, {"name": "j"}])


def test_unknown_joint_type():
    with pytest.raises(km.RobotError, match=r"joint type 'spherical' unknown"):
        make(joint_types=("revolute", "spherical"))
    with pytest.raises(km.RobotError, match=r"joint 2: type 'screw' unknown"):
        km.from_dh([{"a": 1}, {"type": "screw"}])
    r = km.from_dh([{"type": "R"}, {"type": "p"}, {"type": "Prismatic"}])  # short and any case
    assert r.joint_types == ("revolute", "prismatic", "prismatic")


def test_unknown_length_unit():
    with pytest.raises(km.RobotError, match=r"length unit 'cm' unknown"):
        make(length_unit="cm")
    with pytest.raises(km.RobotError, match="length unit"):
        km.from_dh([{"a": 1}], length_unit="inch")


def test_builder_errors():
    with pytest.raises(km.RobotError, match=r"joint 1: a must be a number, got 'x'"):
        km.from_dh([{"a": "x"}])
    with pytest.raises(km.RobotError, match=r"joint 1: d must be finite"):
        km.from_mdh([{"d": float("nan")}])
    with pytest.raises(km.RobotError, match=r"limits must be \[lower, upper\]"):
        km.from_dh([{"limits": [1, 2, 3]}])
    with pytest.raises(km.RobotError, match=r"limits: expected shape \(2, 2\)"):
        km.from_dh([{}, {}], limits=[1, 2])
    with pytest.raises(km.RobotError, match="planar link lengths"):
        km.from_planar([1, -2])
    with pytest.raises(km.RobotError, match="planar link lengths"):
        km.from_planar([])
    with pytest.raises(km.RobotError, match="axis must be a non-zero"):
        km.from_link_frames([{"axis": [0, 0, 0]}])
    with pytest.raises(km.RobotError, match="xyz must be 3"):
        km.from_link_frames([{"xyz": [0, 0]}])
    with pytest.raises(km.RobotError, match="rotation must be a 3x3 orthonormal"):
        km.from_link_frames([{"rotation": np.eye(3) * 2}])
    with pytest.raises(km.RobotError, match="either rotation or rpy"):
        km.from_link_frames([{"rotation": np.eye(3), "rpy": [0, 0, 0]}])


@pytest.mark.parametrize("lim", [5, ["a", 1]], ids=["scalar", "string"])
def test_bad_row_limits_are_a_robot_error(lim):
    with pytest.raises(km.RobotError, match="joint 1: limits"):
        km.from_dh([{"limits": lim}])


# --- immutability ---------------------------------------------------------------------------
@pytest.mark.parametrize("field", ["before", "after", "base", "tool", "offsets", "limits", "home", "C",
                                   "revolute"])
def test_arrays_are_read_only(field):
    r = km.load("kuka-kr6-r900")
    arr = getattr(r, field)
    assert not arr.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        arr.flat[0] = 42.0


def test_inertial_arrays_are_read_only():
    inert = km.load("arm-5dof").inertials[1]
    with pytest.raises(ValueError, match="read-only"):
        inert.com[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        inert.inertia[0, 0] = 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        inert.mass = 3.0


def test_dataclass_is_frozen():
    r = km.load("arm-4dof")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.name = "other"
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.base = np.eye(4)
    assert isinstance(r.joint_types, tuple) and isinstance(r.joint_names, tuple)


def test_constructor_copies_its_inputs():
    before = np.tile(np.eye(4), (2, 1, 1))
    limits = np.array([[-1.0, 1.0], [0.0, 0.3]])
    r = make(before=before, limits=limits)
    before[0, 0, 3] = 9.0
    limits[0, 0] = -9.0
    assert r.before[0, 0, 3] == 0.0 and r.limits[0, 0] == -1.0
    assert before.flags.writeable  # the caller's array is left writeable


def test_q_home_is_a_copy():
    r = km.load("planar-3r")
    q = r.q_home
    q[0] = 99.0
    np.testing.assert_allclose(r.q_home, np.radians([30, 30, 20]))


def test_extras_are_immutable():
    r = km.load("arm-5dof")
    with pytest.raises(TypeError):
        r.extras["notes"] = "changed"


def test_link_names_are_a_tuple():
    r = km.from_dh([{"a": 1}, {"a": 1}], meta={"link_names": ["upper", "fore"]})
    assert isinstance(r.link_names, tuple)


# --- replace --------------------------------------------------------------------------------
def test_replace_gives_a_new_robot_and_leaves_the_old_one():
    r = km.load("arm-4dof")
    T0 = km.fk(r, r.q_home)
    r2 = r.replace(tool=spatial.trans(z=10.0), name="with tool")
    assert r2 is not r and isinstance(r2, km.Robot)
    assert r.name == "arm-4dof" and r2.name == "with tool"
    np.testing.assert_array_equal(r.tool, np.eye(4))
    np.testing.assert_allclose(km.fk(r, r.q_home), T0, atol=0)
    np.testing.assert_allclose(km.fk(r2, r.q_home), T0 @ spatial.trans(z=10.0), atol=1e-12)
    assert not r2.tool.flags.writeable
    # cached derived values are not carried over stale
    _ = r.C
    r3 = r.replace(base=spatial.trans(1, 2, 3))
    np.testing.assert_allclose(r3.C[0], spatial.trans(1, 2, 3) @ r.C[0], atol=1e-12)
    np.testing.assert_allclose(r.C[0], r.base @ r.before[0], atol=0)


def test_replace_is_validated():
    r = km.load("arm-4dof")
    with pytest.raises(km.RobotError, match="lower"):
        r.replace(limits=np.array([[1.0, -1.0]] * 4))
    with pytest.raises(km.RobotError, match="length unit"):
        r.replace(length_unit="ft")
    with pytest.raises(TypeError):
        r.replace(colour="red")


# --- limits and home -------------------------------------------------------------------------
def test_within_limits():
    r = make()
    assert r.within_limits([0.0, 0.1])
    assert r.within_limits([1.0, 0.3])  # on the boundary
    assert r.within_limits([1.0 + 1e-10, 0.3])  # inside the default tolerance
    assert not r.within_limits([1.0 + 1e-6, 0.3])
    assert r.within_limits([1.0 + 1e-6, 0.3], tol=1e-5)
    assert not r.within_limits([0.0, -0.01])
    out = r.within_limits(np.array([[[0.0, 0.1], [2.0, 0.1], [0.0, 0.4]]]))
    assert out.shape == (1, 3)
    np.testing.assert_array_equal(out, [[True, False, False]])
    assert make(limits=np.array([[-np.inf, np.inf]] * 2)).within_limits([1e9, -1e9])


def test_q_home():
    assert make().home is None
    np.testing.assert_array_equal(make().q_home, [0.0, 0.0])  # zeros when inside the limits
    r = make(limits=np.array([[0.2, 1.0], [-0.5, -0.1]]))
    np.testing.assert_allclose(r.q_home, [0.2, -0.1])  # else clipped into them
    assert r.within_limits(r.q_home)
    np.testing.assert_allclose(make(home=[0.5, 0.1]).q_home, [0.5, 0.1])
    np.testing.assert_allclose(km.load("planar-3r").q_home, np.radians([30, 30, 20]))


def test_builders_convert_degrees():
    r = km.from_dh([{"alpha": 90, "theta": 45, "limits": [-90, 90]},
                    {"type": "prismatic", "theta": 90, "d": 5, "limits": [0, 10]}],
                   deg=True, home=[30, 2], length_unit="mm")
    np.testing.assert_allclose(r.offsets, [np.pi / 4, 5.0])
    np.testing.assert_allclose(r.limits, [[-np.pi / 2, np.pi / 2], [0, 10]])
    np.testing.assert_allclose(r.home, [np.pi / 6, 2.0])
    assert r.table.angle_unit == "deg" and r.table.rows[0][2] == 45  # the user's own numbers kept


# --- the canonical constants -----------------------------------------------------------------
@FAST
@given(robot=dh_robots())
def test_C_is_the_canonical_products(robot):
    C = robot.C
    n = robot.n
    assert C.shape == (n + 1, 4, 4)
    np.testing.assert_allclose(C[0], robot.base @ robot.before[0], atol=1e-15)
    for i in range(1, n):
        np.testing.assert_allclose(C[i], robot.after[i - 1] @ robot.before[i], atol=1e-15)
    np.testing.assert_allclose(C[n], robot.after[-1] @ robot.tool, atol=1e-15)
    # and T(q) = C0 · J1 · C1 · … · Jn · Cn
    q = np.linspace(-0.5, 0.5, n)
    T = C[0]
    for i in range(n):
        v = q[i] + robot.offsets[i]
        J = spatial.rotz(v) if robot.revolute[i] else spatial.trans(z=v)
        T = T @ J @ C[i + 1]
    np.testing.assert_allclose(km.fk(robot, q), T, atol=1e-12)


def test_C_of_a_dh_robot():
    r = km.from_dh([{"d": 0.1, "a": 0.2, "alpha": 0.3}, {"d": 0.4, "a": 0.5, "alpha": 0.6}])
    A = [spatial.trans(z=d) @ spatial.trans(x=a) @ spatial.rotx(al) for d, a, al in ((0.1, 0.2, 0.3), (0.4, 0.5, 0.6))]
    np.testing.assert_allclose(r.C, [np.eye(4), A[0], A[1]], atol=1e-15)


def test_parameter_table_as_dicts():
    t = km.load("arm-4dof").table
    assert t.kind == "dh" and t.columns == ("name", "type", "theta", "d", "a", "alpha")
    rows = t.as_dicts()
    assert rows[0] == {"name": "q1", "type": "revolute", "theta": 0.0, "d": 70.0, "a": 0.0, "alpha": 90.0}


# --- inertials ---------------------------------------------------------------------------------
def test_cylinder():
    m, r, h = 0.102, 0.06, 0.071
    for axis, k in (("x", 0), ("y", 1), ("z", 2)):
        I = km.Inertial.cylinder(m, r, h, axis, com=(0, 0.1, 0))
        d = np.full(3, m * (3 * r * r + h * h) / 12)
        d[k] = m * r * r / 2
        np.testing.assert_allclose(I.inertia, np.diag(d), rtol=1e-15)
        np.testing.assert_array_equal(I.com, [0, 0.1, 0])
        assert I.mass == m and "cylinder" in I.shape
    np.testing.assert_allclose(km.Inertial.cylinder(0.102, 0.06, 0.071).inertia.diagonal(),
                               [0.0001346, 0.0001346, 0.0001836], atol=5e-8)


def test_box():
    I = km.Inertial.box(2.0, (0.1, 0.2, 0.3))
    np.testing.assert_allclose(I.inertia, np.diag([2 / 12 * (0.04 + 0.09), 2 / 12 * (0.01 + 0.09),
                                                   2 / 12 * (0.01 + 0.04)]), rtol=1e-15)
    cube = km.Inertial.box(6.0, (1.0, 1.0, 1.0))
    np.testing.assert_allclose(cube.inertia, np.eye(3), rtol=1e-15)


def test_sphere():
    I = km.Inertial.sphere(5.0, 0.2, com=[1, 2, 3])
    np.testing.assert_allclose(I.inertia, np.eye(3) * 0.4 * 5.0 * 0.04, rtol=1e-15)
    np.testing.assert_array_equal(I.com, [1, 2, 3])


def test_inertia_triangle_inequality_of_solids():
    for I in (km.Inertial.cylinder(1.0, 0.1, 0.7), km.Inertial.box(1.0, (0.1, 0.5, 0.9)), km.Inertial.sphere(1.0, 1.0)):
        a, b, c = I.inertia.diagonal()
        assert a + b >= c and b + c >= a and a + c >= b


def test_zero_mass_is_allowed():
    I = km.Inertial(0.0, [0, 0, 0], np.zeros((3, 3)))
    assert I.mass == 0.0


@pytest.mark.parametrize("args, match", [
    ((-1.0, [0, 0, 0], np.eye(3)), "mass must be a finite number >= 0"),
    ((float("nan"), [0, 0, 0], np.eye(3)), "mass"),
    ((float("inf"), [0, 0, 0], np.eye(3)), "mass"),
    ((1.0, [0, np.nan, 0], np.eye(3)), "finite"),
    ((1.0, [0, 0, 0], np.diag([1.0, np.inf, 1.0])), "finite"),
    ((1.0, [0, 0, 0], np.array([[1.0, 0.5, 0], [0, 1, 0], [0, 0, 1]])), "symmetric"),
    ((1.0, [0, 0, 0], np.diag([1.0, -1.0, 1.0])), "positive semi-definite"),
])
def test_inertial_errors(args, match):
    with pytest.raises(InertialError, match=match):
        km.Inertial(*args)
    assert issubclass(InertialError, ValueError)


def test_inertial_solid_errors():
    with pytest.raises(InertialError, match="axis must be 'x', 'y' or 'z'"):
        km.Inertial.cylinder(1.0, 0.1, 0.2, axis="w")
    with pytest.raises(InertialError, match="mass"):
        km.Inertial.sphere(-1.0, 0.1)
    with pytest.raises(InertialError, match="mass"):
        km.Inertial.box(-1.0, (1, 1, 1))


def test_inertials_on_a_robot():
    r = km.load("arm-5dof")
    assert len(r.inertials) == r.n and all(isinstance(i, km.Inertial) for i in r.inertials)
    assert r.inertials[0].mass == pytest.approx(0.102)


def test_has_inertials_needs_every_link():
    assert km.load("puma560").has_inertials and km.load("braccio").has_inertials
    assert not km.load("planar-3r").has_inertials  # a kinematic-only paper arm
    puma = km.load("puma560")
    assert not puma.replace(inertials=puma.inertials[:-1] + (None,)).has_inertials
