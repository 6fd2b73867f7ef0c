"""What a learned IK model reads from a target that gives less than it was trained on.

A model's network reads a full target of its task (`sampling.inputs`): a planar arm's (x, y, φ),
a 4/5-joint arm's position + pitch, a 6R arm's pose. LM accepts less — a position alone, a planar
point without its heading, a position + approach for a 6R arm — and the model, as LM's start,
must answer those too: the orientation the target leaves free is the model's to pick.

It picks its own best guess: the network is asked with the target's position and each of a
fixed set of candidate orientations, each answer is judged by a fresh FK against what the
target does constrain, and the candidate whose answer lands nearest is kept (score
‖p − p*‖ / R_max + angle / π on the constrained rows, R_max the reach bound: both in [0, ~1]).
Candidates per task:
  planar  headings φ every 10° (36);
  pitch   pitches every 10° round the full turn (36) in the vertical plane through the target;
  pose    a position + approach: rolls about the approach every 15° (24); a position alone:
          the orientations of 64 joint vectors of the model's branch (a fixed draw), i.e.
          orientations the model was trained on.
Not the arm's current orientation: the library has no "current" pose (q0 *is* the model),
and the best candidate is at least as near as any one fixed orientation among them. The work is
K network answers and K FKs per target (K ≤ 64): ~ms for one target.
"""

from __future__ import annotations

import numpy as np

from ..ik.frame import fit_target, solver_problem
from ..ik.reach import bound as _bound
from ..ik.residual import errors
from ..ik.target import Target
from ..kinematics.fk import fk
from ..spatial import axis_to_z
from .anfis import predict
from .closed import finish, network_joints
from .sampling import fk_targets, front, inputs, sample_joints, task_of

__all__ = ["HEADINGS", "ROLLS", "ORIENTATIONS", "needs_orientation", "network_inputs", "joints"]

HEADINGS = np.radians(np.arange(-180.0, 180.0, 10.0))  # planar φ and pitch candidates
ROLLS = np.radians(np.arange(-180.0, 180.0, 15.0))  # about a given approach (6R pose models)
ORIENTATIONS = 64  # branch orientations tried for a position alone (6R pose models)


def needs_orientation(model, t: Target) -> bool:
    """Whether the target (a world Target, any shape) lacks the orientation the model's task reads."""
    robot, task = model.robot, task_of(model.robot)
    if task == "planar":
        tp = solver_problem(robot, fit_target(robot, t))[1]
        return not (tp.kind == "planar" and tp.phi is not None)
    if task == "pitch":
        return fit_target(robot, t).kind == "position"
    return t.kind != "pose"


def network_inputs(model, t: Target) -> np.ndarray:
    """The model's raw network inputs (N, d) for the world targets t (flattened): the target's
    own when it gives what the task reads, else those of the best candidate orientation."""
    robot, br = model.robot, model.branch
    psi0 = front(robot, br)
    if not needs_orientation(model, t):
        return inputs(robot, t, psi0, br)
    t = fit_target(robot, t).reshape(-1)
    N = len(t.p)
    X = _candidate_inputs(model, t, psi0)  # (K, N, d)
    K = len(X)
    q = joints(model, X.reshape(K * N, -1))
    pos, ori = errors(t[np.tile(np.arange(N), K)], fk(robot, q))
    score = (pos / max(_bound(robot)[1], 1e-12) + ori / np.pi).reshape(K, N)
    return X[np.argmin(score, axis=0), np.arange(N)]


def joints(model, X: np.ndarray) -> np.ndarray:
    """Joint values (N, n) for raw inputs X (N, d): the network's joints from its leading inputs
    (read in the model's coordinates, `IKModel.scaled_inputs` and `joints_from`), the wrist
    joints after them in closed form (`learn.closed`), clipped into the branch box; held joints
    at their branch value."""
    box = model.branch.box
    q = np.tile(box[:, 0], (len(X), 1))
    q[:, network_joints(model.robot, model.branch)] = model.joints_from(predict(model.net, model.scaled_inputs(X)))
    return np.clip(finish(model, q, X), box[:, 0], box[:, 1])


def _candidate_inputs(model, t: Target, psi0: float) -> np.ndarray:
    """Raw inputs (K, N, d) of the target's position with each candidate orientation (one
    `inputs` call on all K·N candidates: its fixed cost is most of the work for one target)."""
    robot, br, task = model.robot, model.branch, task_of(model.robot)
    N = len(t.p)
    if task == "planar":
        xy = solver_problem(robot, t)[1].p[:, :2]
        return np.stack([np.column_stack([xy, np.full(N, h)]) for h in HEADINGS])
    K = len(HEADINGS) if task == "pitch" else len(ROLLS) if t.kind == "approach" else ORIENTATIONS
    p = np.tile(t.p, (K, 1))
    if task == "pitch":
        C0 = robot.C[0]
        local = (p - C0[:3, 3]) @ C0[:3, :3]
        az, h = np.arctan2(local[:, 1], local[:, 0]), np.repeat(HEADINGS, N)
        a = np.column_stack([np.cos(h) * np.cos(az), np.cos(h) * np.sin(az), np.sin(h)])
        cand = Target("approach", p, a=a @ C0[:3, :3].T)
    elif t.kind == "approach":
        R = np.concatenate([axis_to_z(t.approach_axis) @ _rz(r) for r in ROLLS])
        cand = Target("pose", p, R=R)
    else:
        R = fk_targets(robot, sample_joints(br, ORIENTATIONS, np.random.default_rng(0), robot)).rotation
        cand = Target("pose", p, R=np.repeat(R, N, axis=0))
    return inputs(robot, cand, psi0, br).reshape(K, N, -1)


def _rz(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
