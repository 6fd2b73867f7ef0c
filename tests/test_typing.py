"""The shape-annotated types on the public verbs (kinematica/typing.py) say what the verbs do:
each declared shape, with `...` the batch and `n` the joint count, is the shape the call takes
and returns, over random batch shapes and robots."""

from __future__ import annotations

import typing

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import kinematica as km
from kinematica.typing import Jacobians, PoseLike, Poses, Q, QD, QDD, Torques, shape_of

ROBOTS = ("planar-3r", "arm-5dof", "puma560", "panda")


def hints(fn) -> dict:
    return typing.get_type_hints(fn, include_extras=True)


def test_the_verbs_carry_the_aliases():
    assert hints(km.fk)["q"] == Q and hints(km.fk)["return"] == Poses
    assert hints(km.jacobian)["q"] == Q and hints(km.jacobian)["return"] == Jacobians
    h = hints(km.rne)
    assert (h["q"], h["qd"], h["qdd"], h["return"]) == (Q, QD, QDD, Torques)
    h = hints(km.ik)
    assert PoseLike in typing.get_args(h["target"]) and Q in typing.get_args(h["q0"])


def expected(alias, batch: tuple[int, ...], n: int) -> tuple[int, ...]:
    """The shape `alias` declares for this batch and joint count."""
    dims = [d.strip() for d in shape_of(alias).strip("()").split(",")]
    assert dims[0] == "..."  # batch first, always
    return batch + tuple(n if d == "n" else int(d) for d in dims[1:])


batches = st.lists(st.integers(1, 3), max_size=2).map(tuple)


@settings(max_examples=20, deadline=None)
@given(name=st.sampled_from(ROBOTS), batch=batches, seed=st.integers(0, 2**32 - 1))
def test_declared_shapes_are_the_shapes(name, batch, seed):
    robot = km.load(name)
    rng = np.random.default_rng(seed)
    lo, hi = np.nan_to_num(robot.limits.T, posinf=np.pi, neginf=-np.pi)
    q = rng.uniform(lo, hi, batch + (robot.n,))
    assert q.shape == expected(Q, batch, robot.n)
    assert km.fk(robot, q).shape == expected(Poses, batch, robot.n)
    assert km.jacobian(robot, q).shape == expected(Jacobians, batch, robot.n)
    if robot.inertials is not None:
        assert km.rne(robot, q, 0 * q, 0 * q).shape == expected(Torques, batch, robot.n)


@settings(max_examples=8, deadline=None)
@given(batch=batches)
def test_ik_takes_poses_and_returns_q_of_the_declared_shapes(batch):
    robot = km.load("puma560")
    q = np.broadcast_to(np.radians([10.0, -20.0, 30.0, 10.0, 40.0, 5.0]), batch + (robot.n,))
    T = km.fk(robot, q)
    assert T.shape == expected(PoseLike, batch, robot.n)
    res = km.ik(robot, T, q + 0.05)
    assert np.shape(res.q) == expected(Q, batch, robot.n)
