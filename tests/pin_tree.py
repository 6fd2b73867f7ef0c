"""Pinocchio as the oracle for one chain of a URDF tree: the whole tree's model reduced to the
chain (`pin.buildReducedModel`), every other joint locked where kinematica held it
(`robot.extras["urdf"]["held"]`), compared for FK, the Jacobian, RNE and the mass matrix.
Locked subtrees then ride along as rigid bodies in both: what the dynamics of a held tree are."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pinocchio as pin

import kinematica as km

G = 9.80665  # kinematica's standard gravity; Pinocchio's default is 9.81
RESULTS: dict[str, float] = {}  # worst relative error per quantity, for reports


def sample(robot: km.Robot, rng: np.random.Generator, count: int) -> np.ndarray:
    """Configurations within the limits; ±π rad or ±1 m where a limit is infinite."""
    wide = np.where(robot.revolute, np.pi, 1.0)
    lo = np.where(np.isfinite(robot.limits[:, 0]), robot.limits[:, 0], -wide)
    hi = np.where(np.isfinite(robot.limits[:, 1]), robot.limits[:, 1], wide)
    return lo + rng.random((count, robot.n)) * (hi - lo)


def body(link: str) -> str:
    return f"{link} (body)"


def pin_model(urdf: Path | str) -> "pin.Model":
    """Pinocchio's model of a whole URDF tree (a path or the XML text), its link frames renamed
    `body(link)`: some files name a joint like a link, and buildReducedModel refuses such a pair."""
    model = pin.buildModelFromXML(urdf) if isinstance(urdf, str) else pin.buildModelFromUrdf(str(urdf))
    for i, frame in enumerate(model.frames):
        if frame.type == pin.FrameType.BODY:
            frame.name = body(frame.name)
            model.frames[i] = frame
    return model


class Reduced:
    """Pinocchio's model of the tree reduced to the chain of `robot`, the rest locked as held;
    `held_mass`: the mass (kg) of the locked joints' bodies that hang from a chain link."""

    def __init__(self, full: "pin.Model", robot: km.Robot, tip: str):
        held = dict(robot.extras["urdf"]["held"])
        q_ref, lock = pin.neutral(full), []
        for jid in range(1, full.njoints):
            name, j = full.names[jid], full.joints[jid]
            if name in robot.joint_names:
                continue
            lock.append(jid)
            value = held.get(name, 0.0)  # a joint kinematica never held is off every moving link
            if j.nq == 2:  # continuous: (cos, sin)
                q_ref[j.idx_q:j.idx_q + 2] = [np.cos(value), np.sin(value)]
            else:
                lo, hi = full.lowerPositionLimit[j.idx_q], full.upperPositionLimit[j.idx_q]
                assert lo - 1e-12 <= value <= hi + 1e-12, f"{name} held at {value} outside [{lo}, {hi}]"
                q_ref[j.idx_q] = value
        self.held_mass = 0.0
        for jid in lock:
            up = full.parents[jid]
            while up in lock:
                up = full.parents[up]
            if up != 0:  # the nearest moving ancestor is a chain joint: it carries this body
                self.held_mass += full.inertias[jid].mass
        self.model = pin.buildReducedModel(full, lock, q_ref)
        self.model.gravity.linear = np.array([0.0, 0.0, -G])
        self.data = self.model.createData()
        assert [self.model.names[i] for i in range(1, self.model.njoints)] == list(robot.joint_names)
        self.joints = [self.model.joints[i] for i in range(1, self.model.njoints)]
        self.frames = [self.model.getFrameId(body(name), pin.BODY) for name in (*robot.link_names, tip)]

    def q(self, q: np.ndarray) -> np.ndarray:
        out = np.empty(self.model.nq)
        for j, v in zip(self.joints, q):
            out[j.idx_q:j.idx_q + j.nq] = [np.cos(v), np.sin(v)] if j.nq == 2 else [v]
        return out


def _rel(err: float, scale: float, what: str) -> float:
    """err / scale, remembered as the worst of its kind."""
    RESULTS[what] = max(RESULTS.get(what, 0.0), err / scale)
    return err / scale


def compare(robot: km.Robot, oracle: Reduced, rng: np.random.Generator, samples: int = 3) -> None:
    """FK of every link and the tool, the base-frame Jacobian, RNE and M equal Pinocchio's."""
    model, data = oracle.model, oracle.data
    # Length scale L (m): 1 + the chain's constant offsets. FK and J are products of ≲ 40 rigid
    # transforms, each adding a few ulps relative to L: |error| ≲ 40·10·eps·L < 1e-12·L.
    L = 1.0 + float(np.linalg.norm(robot.C[:, :3, 3], axis=-1).sum())
    # Dynamics: τ and M are sums over links of m·(lengths)·(accelerations) and I·(rates);
    # round-off is a few ulps of the largest *term*, not of the result (terms cancel, e.g. two
    # links' gravity torques). S bounds every term: total mass·L·(g + L·a) + inertia·a, with
    # a = Σ(q̇² + |q̈|) (|q̇|, |q̈| ≤ 1 here); M's terms are bounded by mass·L² + inertia.
    dynamics = robot.inertials is not None  # a chain without mass has kinematics only
    mass = sum(i.mass for i in robot.inertials) if dynamics else 0.0
    inertia = sum(np.abs(i.inertia).max() for i in robot.inertials) if dynamics else 0.0
    for q in sample(robot, rng, samples):
        qd, qdd = rng.uniform(-1, 1, (2, robot.n))
        qp = oracle.q(q)
        pin.framesForwardKinematics(model, data, qp)
        ref = np.stack([data.oMf[f].homogeneous for f in oracle.frames])
        F = km.fk_frames(robot, q)[1:]
        assert _rel(np.abs(F - ref).max(), L, "FK (links and tool)") < 1e-12, f"frames at q = {q}"
        Jp = pin.computeFrameJacobian(model, data, qp, oracle.frames[-1], pin.LOCAL_WORLD_ALIGNED)
        J = km.jacobian(robot, q)
        assert _rel(np.abs(J - Jp.reshape(6, -1)).max(), L, "Jacobian") < 1e-12, f"Jacobian at q = {q}"
        if not dynamics:
            continue
        a = float(np.sum(qd**2) + np.sum(np.abs(qdd)))
        S = 1.0 + mass * L * (G + L * a) + inertia * a
        tau, tau_p = km.rne(robot, q, qd, qdd), pin.rnea(model, data, qp, qd, qdd)
        assert _rel(np.abs(tau - tau_p).max(), S, "RNE") < 1e-12, f"RNE at q = {q}: {tau} vs {tau_p}"
        Mp = pin.crba(model, data, qp)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T  # Pinocchio fills the upper triangle
        M = km.mass_matrix(robot, q)
        assert _rel(np.abs(M - Mp).max(), 1.0 + mass * L * L + inertia, "mass matrix") < 1e-12, f"M at q = {q}"
