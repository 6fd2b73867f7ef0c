"""Learned models as values and as files: an IK model (one branch) and a dynamics model.

A model file is an NPZ archive (NumPy's zip of arrays, read without pickle) holding the
network's arrays, the input scaling, and one JSON text with everything else: the robot (its
robot-file YAML, so the file stands alone), the branch, the task, the membership shape and
the training and evaluation report. Arrays are stored bit for bit and JSON writes floats
exactly, so save → load returns a model that answers identically.

>>> import kinematica as km, numpy as np, tempfile, os
>>> from kinematica.learn import train_ik
>>> m = train_ik("planar-3r", samples=600, rules=8, epochs=2, warm_start=0)
>>> path = os.path.join(tempfile.mkdtemp(), "m.npz")
>>> save_model(m, path); m2 = load_model(path)
>>> bool(np.array_equal(m2.answer(km.targets.planar([40, 20], 1.0)), m.answer(km.targets.planar([40, 20], 1.0))))
True
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import atomic
from ..errors import InputTypeError
from ..keywords import strict
from ..model.robot import Robot
from ..model.robotfile import read_text, write_text
from . import elbow as elbow_coords
from .anfis import Anfis, predict
from .sampling import Branch, LearnError, task_of
from .scaling import Scaling, apply

__all__ = ["FORMAT", "VERSION", "ModelFileError", "WrongRobotError", "same_robot", "check_robot", "IKModel",
           "DynamicsModel", "save_model", "load_model"]

FORMAT = "kinematica-anfis"
VERSION = 3  # 3: a 4/5-joint or 6R arm's network reads the wrist point from the shoulder and
# answers the elbow's cosine (`learn.elbow`, its arrays in the file); 2: it read the wrist point and
# answered joints 1–3; 1: the tool point and orientation, every joint. Dynamics and planar models
# are the same in all three, so older files of those still load


class ModelFileError(LearnError):
    """A model file cannot be read: not a model file, damaged, or of an unknown version."""


class WrongRobotError(LearnError):
    """A model is used with a robot other than the one it was trained for."""


def same_robot(a: Robot, b: Robot) -> bool:
    """Whether two robots have the same chain, joint types, limits and length unit (to 1e-12)."""
    if a is b:
        return True
    if a.n != b.n or a.joint_types != b.joint_types or a.length_unit != b.length_unit:
        return False
    pairs = [(a.before, b.before), (a.after, b.after), (a.offsets, b.offsets), (a.base, b.base), (a.tool, b.tool)]
    if not all(np.allclose(x, y, rtol=1e-12, atol=1e-12) for x, y in pairs):
        return False
    return bool(np.allclose(a.limits, b.limits, rtol=1e-12, atol=1e-12, equal_nan=False)
                or np.array_equal(a.limits, b.limits))


def check_robot(model: IKModel | DynamicsModel, robot: Robot) -> None:
    """Raise WrongRobotError unless `robot` is the robot the model was trained for."""
    if not same_robot(model.robot, robot):
        same = model.robot.name == robot.name
        raise WrongRobotError(f"this model was trained for {model.robot.name!r}, not for "
                              + (f"this {robot.name!r}: its geometry, limits or units differ" if same
                                 else f"{robot.name!r}") + "; train one for it with `kinematica learn`")


@dataclass(frozen=True, eq=False)
class IKModel:
    """A learned IK inverse for one branch of one robot: target → joint values (approximate)."""

    robot: Robot
    branch: Branch
    scaling: Scaling
    net: Anfis
    report: dict[str, Any] = field(default_factory=dict)
    elbow: elbow_coords.Elbow | None = None  # the network's coordinates (`learn.elbow`); None: the raw inputs and joints
    kind = "ik"

    @property
    def task(self) -> str:
        return task_of(self.robot)

    def answer(self, target) -> np.ndarray:
        """The model's joint values for world targets, (..., n) for a batch of shape (...):
        learned joints from the network (clipped into the branch box: the model speaks for
        its branch only), held joints at their branch value. A target that leaves free the
        orientation the network reads (a position alone, a planar point without its heading)
        is answered with the orientation the model picks (`learn.complete`)."""
        from ..ik.target import as_target
        from .complete import joints, network_inputs

        t = as_target(target)
        return joints(self, network_inputs(self, t)).reshape(t.shape + (self.robot.n,))

    def scaled_inputs(self, X: np.ndarray) -> np.ndarray:
        """The network's scaled inputs (N, d) for raw inputs X (N, ≥ d) (`sampling.inputs`): the
        elbow coordinates (ψ, s, β) where the model has them, then the scaling."""
        Z = X[:, :self.net.inputs] if self.elbow is None else elbow_coords.coordinates(self.elbow, X)
        return apply(self.scaling, Z)

    def network_outputs(self, q: np.ndarray) -> np.ndarray:
        """What the network is trained to answer for joint values q (N, n): the network joints'
        values (N, K), joint 3 as the elbow's cosine where the model answers it (`learn.elbow`)."""
        from .closed import network_joints

        J = network_joints(self.robot, self.branch)
        return q[:, J] if self.elbow is None else elbow_coords.to_outputs(self.elbow, q[:, J], int(np.flatnonzero(J == 2)[0]))

    def joints_from(self, y: np.ndarray) -> np.ndarray:
        """The network joints' values (N, K) from the network's outputs y (N, K): the elbow's
        cosine turned back into joint 3 where the model answers it (`learn.elbow`), unclipped."""
        if self.elbow is None:
            return y
        from .closed import network_joints

        k = int(np.flatnonzero(network_joints(self.robot, self.branch) == 2)[0])
        return elbow_coords.from_outputs(self.elbow, y, k, self.branch.box[2])

    def seeds_for(self, robot: Robot, target) -> np.ndarray:
        """The seed protocol of `km.ik` (q0=model): the answer, after checking the robot."""
        check_robot(self, robot)
        return self.answer(target)

    def __repr__(self) -> str:
        return (f"IKModel({self.robot.name!r}, branch {self.branch.spec!r}, {self.net.n_rules} rules, "
                f"inputs {self.report.get('inputs')})")


@dataclass(frozen=True, eq=False)
class DynamicsModel:
    """A learned inverse dynamics τ ≈ f(q, q̇, q̈) of one robot (N·m, or N for prismatic joints)."""

    robot: Robot
    scaling: Scaling
    net: Anfis
    report: dict[str, Any] = field(default_factory=dict)
    kind = "dynamics"

    def torques(self, q, qd, qdd) -> np.ndarray:
        """τ (..., n) for q, q̇, q̈ of shape (..., n) each."""
        from ..kinematics.chain import check_q

        q = check_q(self.robot, q, "q")
        n = self.robot.n
        parts = [np.broadcast_to(np.asarray(v, float), q.shape).reshape(-1, n) for v in (q, qd, qdd)]
        X = np.concatenate(parts, axis=1)
        if not np.all(np.isfinite(X)):
            raise LearnError("q, qd, qdd: contain NaN or infinity")
        return predict(self.net, apply(self.scaling, X)).reshape(q.shape)

    def __repr__(self) -> str:
        return f"DynamicsModel({self.robot.name!r}, {self.net.n_rules} rules)"


@strict
def save_model(model: IKModel | DynamicsModel, path: str | os.PathLike[str]) -> None:
    """Write a model file (see the module docstring) to `path`, exactly as given (no suffix
    added), whole or not at all (`kinematica.atomic`: a folder or a missing folder in `path` is
    a WriteError naming it, and nothing is left behind)."""
    if not isinstance(model, (IKModel, DynamicsModel)):
        swapped = " (model and path swapped?)" if isinstance(model, (str, os.PathLike)) else ""
        raise InputTypeError(f"save_model(model, path): model must be an IKModel or DynamicsModel from "
                             f"kinematica.learn, got {type(model).__name__}{swapped}")
    if not isinstance(path, (str, os.PathLike)):
        raise InputTypeError(f"save_model(model, path): path must be a file path, got {type(path).__name__}")
    meta = {"format": FORMAT, "version": VERSION, "kind": model.kind, "robot": write_text(model.robot),
            "shape": model.net.shape, "report": model.report}
    if isinstance(model, IKModel):
        meta["branch"] = model.branch.spec
    arrays = {f"net_{k}": v for k, v in model.net.arrays().items()}
    arrays.update({f"scale_{k}": v for k, v in model.scaling.arrays().items()})
    if isinstance(model, IKModel):
        arrays["branch_box"] = model.branch.box
        if model.elbow is not None:
            arrays.update({f"elbow_{k}": v for k, v in model.elbow.arrays().items()})
    buf = io.BytesIO()
    # (pyright: **arrays could fill savez's allow_pickle, a keyword since NumPy 2.2; these keys are array names)
    np.savez(buf, meta=np.array(json.dumps(meta, ensure_ascii=False, allow_nan=True)), **arrays)  # pyright: ignore[reportArgumentType]
    atomic.write_bytes(path, buf.getvalue())


@strict
def load_model(path: str | os.PathLike[str]) -> IKModel | DynamicsModel:
    """Read a model file; a file that is not one (or is damaged) raises ModelFileError naming it."""
    where = os.fspath(path)
    try:
        with np.load(where, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise ModelFileError(f"{where}: no such model file") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, KeyError) as e:
        raise ModelFileError(f"{where}: not a readable kinematica model file ({type(e).__name__}: {e})") from None
    try:
        meta = json.loads(str(data.pop("meta")))
        if meta.get("format") != FORMAT:
            raise ModelFileError(f"{where}: not a kinematica model file (format {meta.get('format')!r})")
        if meta.get("version") not in (1, 2, VERSION):
            raise ModelFileError(f"{where}: model file version {meta.get('version')!r}; this kinematica reads "
                                 f"version {VERSION}")
        robot = read_text(meta["robot"], f"{where} (its robot)")
        products = data.get("net_products", np.zeros((0, 2), np.int64))  # absent: none (files before them)
        net = Anfis(meta["shape"], data["net_c"], data["net_sigma"], data["net_rules"], data["net_theta"], products)
        _check_net(net, where)
        scaling = Scaling(data["scale_cut"], data["scale_lo"], data["scale_hi"])
        if meta["kind"] == "ik":
            return _ik_model(robot, meta, data, net, scaling, where)
        if meta["kind"] == "dynamics":
            if scaling.lo.shape != (net.inputs,) or net.inputs != 3 * robot.n:
                raise ModelFileError(f"{where}: the scaling does not fit the robot and network")
            return DynamicsModel(robot, scaling, net, meta["report"])
        raise ModelFileError(f"{where}: unknown model kind {meta['kind']!r}")
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise ModelFileError(f"{where}: damaged kinematica model file ({type(e).__name__}: {e})") from None


def _ik_model(robot: Robot, meta: dict, data: dict, net: Anfis, scaling: Scaling, where: str) -> IKModel:
    from .closed import network_joints

    if meta["version"] < VERSION and task_of(robot) != "planar":
        what = "reads the tool point" if meta["version"] == 1 else "answers joint 3 itself"
        raise ModelFileError(f"{where}: a version-{meta['version']} model of {robot.name!r} {what}; this kinematica's "
                             f"models of it read the wrist point from the shoulder and answer the elbow's cosine "
                             f"(version {VERSION}): train it again with `kinematica learn ik`")
    br = Branch(meta["branch"], data["branch_box"])
    el = None
    if "elbow_shoulder" in data:
        a = data["elbow_angles"]
        el = elbow_coords.Elbow(data["elbow_shoulder"], float(a[0]), float(a[1]))
        if (el.shoulder.shape != (2,) or a.shape != (2,) or not np.all(np.isfinite(el.shoulder))
                or not np.all(np.isfinite(a)) or abs(el.side) != 1 or 2 not in network_joints(robot, br)):
            raise ModelFileError(f"{where}: the elbow coordinates are inconsistent (damaged file)")
    if (br.box.shape != (robot.n, 2) or scaling.lo.shape != (net.inputs,)
            or net.outputs != len(network_joints(robot, br))):
        raise ModelFileError(f"{where}: the branch or scaling does not fit the robot and network")
    return IKModel(robot, br, scaling, net, meta["report"], el)


def _check_net(net: Anfis, where: str) -> None:
    K, d, m = net.c.shape
    R = net.rules.shape[0]
    P = net.products
    ok = (net.shape in ("gauss", "bell") and net.sigma.shape == (K, d, m) and net.rules.shape == (R, d)
          and P.ndim == 2 and P.shape[1] == 2 and (P.size == 0 or (P.min() >= 0 and P.max() < d))
          and net.theta.shape == (K, R, d + len(P) + 1) and net.rules.min() >= 0 and net.rules.max() < m
          and all(np.all(np.isfinite(a)) for a in (net.c, net.sigma, net.theta)) and np.all(net.sigma > 0))
    if not ok:
        raise ModelFileError(f"{where}: the network's arrays are inconsistent (damaged file)")
