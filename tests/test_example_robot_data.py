"""Every chain of every URDF in example-robot-data against Pinocchio: FK, link frames, the
Jacobian, RNE and the mass matrix at random configurations.

The chains are found here from the XML itself (lxml), not from kinematica: one per distinct
sequence of movable joints from the root link to a leaf, stopping before the first mimic,
floating or planar joint (which no serial chain holds). Each is loaded with
`km.load(path, tip=...)` and compared with Pinocchio's model of the whole tree reduced to that
chain (`pin.buildReducedModel`), every other joint locked at the configuration kinematica says it
held (`robot.extras["urdf"]["held"]`, checked to lie within the limits): locked subtrees then
ride along as rigid bodies in both, which is what the dynamics of a held tree are.

Files Pinocchio itself refuses are skipped with its reason, after checking that kinematica refuses
them too with a clear RobotFileError.
"""

from __future__ import annotations

import re
import sysconfig
import warnings
import zlib
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

import kinematica as km

pin = pytest.importorskip("pinocchio")
# Files with a mimic of a joint they never define warn on every read; the loads that matter
# record their warnings and check them.
pytestmark = pytest.mark.filterwarnings("ignore::kinematica.URDFWarning")

ROBOTS = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix/share/example-robot-data/robots"
FILES = sorted(ROBOTS.glob("**/*.urdf"))
if not FILES:
    pytest.skip(f"example-robot-data's URDFs not found under {ROBOTS} (pip install example-robot-data, "
                "a test dependency)", allow_module_level=True)

G = 9.80665  # kinematica's standard gravity; Pinocchio's default is 9.81
SAMPLES = 3  # configurations per chain: ~360 chains, a few seconds in all
RESULTS: dict[str, float] = {}  # worst relative error per quantity, over every chain, for the report


def chains(path: Path) -> list[tuple[str, ...]]:
    """Movable-joint sequences root → leaf, cut before mimic/floating/planar joints, distinct."""
    root = etree.parse(str(path)).getroot()
    joints = root.findall("joint")
    parent_joint = {j.find("child").get("link"): j for j in joints}
    parents = {j.find("parent").get("link") for j in joints}
    out: dict[tuple[str, ...], None] = {}
    for leaf in (el.get("name") for el in root.findall("link")):
        if leaf in parents:
            continue
        seq, link = [], leaf
        while link in parent_joint:
            seq.append(parent_joint[link])
            link = seq[-1].find("parent").get("link")
        names = []
        for j in reversed(seq):
            if j.get("type") in ("floating", "planar") or j.find("mimic") is not None:
                break
            if j.get("type") != "fixed":
                names.append(j.get("name"))
        if names:
            out[tuple(names)] = None
    return list(out)


def pin_refuses(path: Path) -> str | None:
    """Pinocchio's reason for refusing the file, or None."""
    try:
        pin.buildModelFromUrdf(str(path))
    except (ValueError, RuntimeError) as e:
        return str(e).strip().splitlines()[0]
    return None


def non_psd_links(path: Path) -> set[str]:
    """Links whose <inertia> has a negative principal moment (no rigid body has one)."""
    out = set()
    for el in etree.parse(str(path)).getroot().findall("link/inertial/inertia"):
        v = {k: float(el.get(k)) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
        I = np.array([[v["ixx"], v["ixy"], v["ixz"]], [v["ixy"], v["iyy"], v["iyz"]], [v["ixz"], v["iyz"], v["izz"]]])
        if np.linalg.eigvalsh(I).min() < -1e-12 * max(1.0, np.abs(I).max()):
            out.add(el.getparent().getparent().get("name"))
    return out


def sample(robot: km.Robot, rng: np.random.Generator, count: int) -> np.ndarray:
    """Configurations within the limits; ±π rad or ±1 m where a limit is infinite."""
    wide = np.where(robot.revolute, np.pi, 1.0)
    lo = np.where(np.isfinite(robot.limits[:, 0]), robot.limits[:, 0], -wide)
    hi = np.where(np.isfinite(robot.limits[:, 1]), robot.limits[:, 1], wide)
    return lo + rng.random((count, robot.n)) * (hi - lo)


def body(link: str) -> str:
    return f"{link} (body)"


def pin_model(path: Path) -> "pin.Model":
    """Pinocchio's model of the whole tree, its link frames renamed `body(link)`: some files name
    a joint like a link, and buildReducedModel refuses such a pair of frames."""
    model = pin.buildModelFromUrdf(str(path))
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


def compare(robot: km.Robot, oracle: Reduced, rng: np.random.Generator) -> None:
    """FK of every link and the tool, the base-frame Jacobian, RNE and M equal Pinocchio's."""
    model, data = oracle.model, oracle.data
    # Length scale L (m): 1 + the chain's constant offsets. FK and J are products of ≲ 40 rigid
    # transforms, each adding a few ulps relative to L: |error| ≲ 40·10·eps·L < 1e-12·L.
    L = 1.0 + float(np.linalg.norm(robot.C[:, :3, 3], axis=-1).sum())
    # Dynamics: τ and M are sums over links of m·(lengths)·(accelerations) and I·(rates);
    # round-off is a few ulps of the largest *term*, not of the result (terms cancel, e.g. two
    # links' gravity torques). S bounds every term: total mass·L·(g + L·a) + inertia·a, with
    # a = Σ(q̇² + |q̈|) (|q̇|, |q̈| ≤ 1 here); M's terms are bounded by mass·L² + inertia.
    mass = sum(i.mass for i in robot.inertials)
    inertia = sum(np.abs(i.inertia).max() for i in robot.inertials)
    for q in sample(robot, rng, SAMPLES):
        qd, qdd = rng.uniform(-1, 1, (2, robot.n))
        qp = oracle.q(q)
        pin.framesForwardKinematics(model, data, qp)
        ref = np.stack([data.oMf[f].homogeneous for f in oracle.frames])
        F = km.fk_frames(robot, q)[1:]
        assert _rel(np.abs(F - ref).max(), L, "FK (links and tool)") < 1e-12, f"frames at q = {q}"
        Jp = pin.computeFrameJacobian(model, data, qp, oracle.frames[-1], pin.LOCAL_WORLD_ALIGNED)
        J = km.jacobian(robot, q)
        assert _rel(np.abs(J - Jp.reshape(6, -1)).max(), L, "Jacobian") < 1e-12, f"Jacobian at q = {q}"
        a = float(np.sum(qd**2) + np.sum(np.abs(qdd)))
        S = 1.0 + mass * L * (G + L * a) + inertia * a
        tau, tau_p = km.rne(robot, q, qd, qdd), pin.rnea(model, data, qp, qd, qdd)
        assert _rel(np.abs(tau - tau_p).max(), S, "RNE") < 1e-12, f"RNE at q = {q}: {tau} vs {tau_p}"
        Mp = pin.crba(model, data, qp)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T  # Pinocchio fills the upper triangle
        M = km.mass_matrix(robot, q)
        assert _rel(np.abs(M - Mp).max(), 1.0 + mass * L * L + inertia, "mass matrix") < 1e-12, f"M at q = {q}"


COUNT = {"files": 0, "chains": 0, "skipped": 0, "refused chains": 0}


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROBOTS)) for p in FILES])
def test_every_chain_matches_pinocchio(path):
    refused = pin_refuses(path)
    if refused:
        with pytest.raises(km.RobotFileError):
            km.urdf_tips(path)
        COUNT["skipped"] += 1
        pytest.skip(f"Pinocchio refuses it too: {refused}")
    expected = chains(path)
    tips = km.urdf_tips(path)
    assert sorted(tips.values()) == sorted(expected)
    if not expected:
        with pytest.raises(km.RobotFileError, match="no movable joint"):
            km.load(path)
    rng = np.random.default_rng(zlib.crc32(path.name.encode()))
    full = pin_model(path)
    unphysical = non_psd_links(path)
    unlimited = {j.get("name") for j in etree.parse(str(path)).getroot().findall("joint")
                 if j.get("type") in ("revolute", "prismatic") and j.find("limit") is None}
    for tip, key in tips.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                robot = km.load(path, tip=tip)
            except km.RobotFileError as e:  # only for a link whose inertia no body can have
                assert re.search(r"line \d+: link '(.*)': <inertial>: inertia tensor must be positive "
                                 r"semi-definite", str(e)), str(e)
                assert re.search(r"link '(.*)'", str(e))[1] in unphysical, str(e)
                COUNT["refused chains"] += 1
                continue
        assert robot.joint_names == key
        assert robot.has_inertials, f"{tip}: dynamics turned off"
        oracle = Reduced(full, robot, tip)
        said = [w for w in caught if issubclass(w.category, km.OffChainBodiesWarning)]
        assert bool(said) == (oracle.held_mass > 0), (tip, oracle.held_mass, [str(w.message) for w in said])
        said = {re.search(r"joint '(.*)' has no <limit>", str(w.message))[1] for w in caught
                if issubclass(w.category, km.MissingLimitWarning)}
        assert said == unlimited & set(key)
        compare(robot, oracle, rng)
        COUNT["chains"] += 1
    COUNT["files"] += 1


def test_report():
    """Not a check: prints how many chains were compared and the worst relative errors (-s)."""
    print(f"\nexample-robot-data: {COUNT['chains']} chains in {COUNT['files']} files matched Pinocchio "
          f"({COUNT['skipped']} files refused by Pinocchio too, {COUNT['refused chains']} chains refused for a "
          "non-physical inertia); worst error / scale: "
          + ", ".join(f"{k} {v:.1e}" for k, v in RESULTS.items()))
