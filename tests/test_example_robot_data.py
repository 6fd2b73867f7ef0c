"""Every chain of every URDF in example-robot-data against Pinocchio: FK, link frames, the
Jacobian, RNE and the mass matrix at random configurations.

The chains are found here from the XML itself (lxml), not from kinematica: one per distinct
sequence of movable joints from the root link to a leaf, stopping before the first mimic,
floating or planar joint (which no serial chain holds). Each is loaded with
`km.load(path, tip=...)` and compared with Pinocchio's model of the whole tree reduced to that
chain, the other joints locked where kinematica held them (pin_tree.py), at 3 random
configurations within the limits.

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
from pin_tree import RESULTS, Reduced, compare, pin_model  # noqa: E402  (needs pinocchio)
# Files with a mimic of a joint they never define warn on every read; the loads that matter
# record their warnings and check them.
pytestmark = pytest.mark.filterwarnings("ignore::kinematica.URDFWarning")

ROBOTS = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix/share/example-robot-data/robots"
FILES = sorted(ROBOTS.glob("**/*.urdf"))
if not FILES:
    pytest.skip(f"example-robot-data's URDFs not found under {ROBOTS} (pip install example-robot-data, "
                "a test dependency)", allow_module_level=True)


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
        said = [w for w in caught if issubclass(w.category, km.OffChainBodiesWarning)
                and "the dynamics treat them" in str(w.message)]  # the scene's held shapes have their own words
        assert bool(said) == (oracle.held_mass > 0), (tip, oracle.held_mass, [str(w.message) for w in said])
        said = {re.search(r"joint '(.*)' has no <limit>", str(w.message))[1] for w in caught
                if issubclass(w.category, km.MissingLimitWarning)}
        assert said == unlimited & set(key)
        compare(robot, oracle, rng)
        COUNT["chains"] += 1
    COUNT["files"] += 1


@pytest.fixture(scope="module", autouse=True)
def report(request):
    """After the module: how many chains were compared and the worst errors, on the terminal."""
    yield
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None and COUNT["files"]:
        with capture.global_and_fixture_disabled():
            reporter.write_line(
                f"\nexample-robot-data: {COUNT['chains']} chains in {COUNT['files']} files matched Pinocchio "
                f"({COUNT['skipped']} files refused by Pinocchio too, {COUNT['refused chains']} chains refused "
                "for a non-physical inertia); worst error / scale: "
                + ", ".join(f"{k} {v:.1e}" for k, v in RESULTS.items()))
