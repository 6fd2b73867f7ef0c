"""Write a bundled SO-ARM robot — the SO-100 or the SO-101 — from example-robot-data's
`so_arm_description` (TheRobotStudio's SO-ARM100 repository, Apache-2.0):
src/kinematica/model/robots/ARM.yaml and the folder ARM/.

What it ships, and why it is small: the URDF copied verbatim (provenance), its license, and the
robot file built from that URDF (the five arm joints up to the tool; the moving jaw turns with
the gripper as a `grip` shape, as the Braccio's fingers do). The STL meshes (SO-101: 13 parts,
16 MB; SO-100: 13 parts, 3 MB) are decimated by vertex clustering on a 2 mm grid — each cluster
of vertices becomes its centroid, the triangles that collapse are dropped — and stored as
indexed glTF binaries: the arm's silhouette within ~1 mm, enough for the simulator's view; load
the URDF from example-robot-data for the full-resolution parts.

The two URDFs differ in more than their parts (the SO-100's description in its robot file says
how): the SO-101's is LeRobot's "new calibration" one, its zero pose the middle of every joint's
travel and its tool frame `gripper_frame_link`; the SO-100's zero is the folded rest pose with
ranges off centre, and it has no tool frame. So for the SO-100 the home — the middle pose, where
a LeRobot-calibrated servo reads its middle tick — is the middle of each URDF range, each
servo's sense is its joint axis compared with the SO-101's at that pose (`servo_signs`), and the
tool point sits on the fixed jaw as the SO-101's `gripper_frame_link` sits on its own.

Run after example-robot-data changes:   python scripts/so_arm_bundle.py so100   (or so101)
"""

from __future__ import annotations

import argparse
import shutil
import sysconfig
import tempfile
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import trimesh
import yaml

import kinematica as km
from kinematica import spatial
from kinematica.model.schema import dump

FOLDER = Path(__file__).resolve().parents[1] / "src/kinematica/model/robots"
GRID = 0.002  # m: the clustering cell; the parts are 25–140 mm across, their fillets ~1 mm
LICENSE = Path("/usr/share/common-licenses/Apache-2.0")  # the verbatim license text (Debian)
OPEN = round(float(np.radians(100)), 5)  # rad: the jaw's turn at the gripper servo's 100° (open)
PRINTED, SERVO = "#f2c318", "#1f1f1f"  # PLA yellow, the STS3215's black
# m: how far the SO-101's gripper_frame_link lies behind the tip of its fixed jaw, along the
# approach, on the jaw's inner face (measured on its meshes: tests/test_so_arms.py checks both arms)
TOOL_DEPTH = 0.0063


def source() -> Path:
    share = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix/share/example-robot-data/robots"
    return share / "so_arm_description"


def cluster(mesh: trimesh.Trimesh, grid: float) -> trimesh.Trimesh:
    """`mesh` with its vertices merged per grid cell (the cell's centroid) and the triangles that
    collapsed or repeat dropped."""
    v, f = np.asarray(mesh.vertices), np.asarray(mesh.faces)
    _, cell = np.unique(np.floor(v / grid).astype(np.int64), axis=0, return_inverse=True)
    cell = cell.ravel()
    count = np.bincount(cell)
    centroid = np.stack([np.bincount(cell, v[:, k]) / count for k in range(3)], axis=1)
    g = cell[f]
    g = g[(g[:, 0] != g[:, 1]) & (g[:, 1] != g[:, 2]) & (g[:, 0] != g[:, 2])]
    _, first = np.unique(np.sort(g, axis=1), axis=0, return_index=True)
    return trimesh.Trimesh(centroid, g[np.sort(first)], process=True)


def _origin(element: ET.Element | None) -> np.ndarray:
    """The 4×4 placement an URDF <origin> gives (identity when there is none)."""
    if element is None:
        return np.eye(4)
    return spatial.homogeneous(spatial.rpy_to_matrix(np.array(element.get("rpy", "0 0 0").split(), float)),
                               np.array(element.get("xyz", "0 0 0").split(), float))


def jaw_grip(urdf: Path, origin: np.ndarray, jaw_link: str) -> dict:
    """The moving jaw's turn about the URDF's `gripper` joint, in the frame of the link that
    carries it (body 5): open (100° of the servo) at +OPEN — both URDFs open the jaw with a
    positive turn — closed at 0."""
    root = ET.parse(urdf).getroot()
    joint = next(j for j in root.iter("joint") if j.get("name") == "gripper")
    X = _origin(joint.find("origin"))
    axis = X[:3, :3] @ np.array(joint.find("axis").get("xyz").split(), float)  # type: ignore[union-attr]
    link = next(k for k in root.iter("link") if k.get("name") == jaw_link)
    # checks that body 5's frame is the jaw joint's parent's: the mesh sits where the joint puts it
    assert np.allclose(origin, X @ _origin(link.find("visual/origin")), atol=1e-6)
    return {"axis": [round(float(x), 9) + 0.0 for x in axis], "pivot": [float(x) for x in X[:3, 3]],
            "open": OPEN, "closed": 0}


def snapped(urdf: Path, out: Path) -> Path:
    """A copy of `urdf` whose origins say what the CAD exporter meant: an rpy angle within 1e-4
    rad of a multiple of π/2 is that multiple (it wrote π as 3.14159 or 3.14158, π/2 as 1.5708
    or 1.57079, and 1e-15 dust), a coordinate under 1 µm is 0. The exact right angles keep the
    chain's closed forms (km.explain, the Math tab) free of sin(3.14159) dust that sympy cannot
    fold away."""
    tree = ET.parse(urdf)
    for o in tree.getroot().iter("origin"):
        rpy = np.array(o.get("rpy", "0 0 0").split(), float)
        k = np.round(rpy / (np.pi / 2))
        rpy = np.where(np.abs(rpy - k * np.pi / 2) < 1e-4, k * np.pi / 2, rpy)
        xyz = np.array(o.get("xyz", "0 0 0").split(), float)
        xyz = np.where(np.abs(xyz) < 1e-6, 0.0, xyz)
        o.set("rpy", " ".join(repr(float(v) + 0.0) for v in rpy))
        o.set("xyz", " ".join(repr(float(v) + 0.0) for v in xyz))
    tree.write(out)
    return out


def fixed_jaw_tool(mesh: trimesh.Trimesh) -> dict:
    """The SO-100's tool frame in its `gripper` link (the fixed jaw's mesh sits at the link's
    origin): z along the approach (−y, out along the wrist roll axis), x into the fixed jaw, the
    origin on the jaw's inner face TOOL_DEPTH behind its tip — as the SO-101's frame sits."""
    v = np.asarray(mesh.vertices)
    tip = v[:, 1].min()
    near = v[v[:, 1] < tip + 0.01]  # the jaw's last centimetre
    face = near[:, 0].min()  # its inner face (the moving jaw lies at −x)
    return {"xyz": [round(float(face), 4) + 0.0, round(float(tip + TOOL_DEPTH), 4), 0.0],
            "rotation": [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]}


def servo_signs(robot: km.Robot, home: np.ndarray) -> list[int]:
    """Each SO-100 servo's sense in its URDF joint angle (the gripper's +1: it reads opening in
    degrees), from its joint axis at the middle pose against the SO-101's at its own: both arms
    carry their servos alike, and the SO-101's URDF turns each joint with its servo's ticks. The
    SO-100 reaches along −y, the SO-101 along +x: the SO-100's axes are turned +90° about z first."""
    so101 = km.load("so101")
    turn = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    mine = turn @ km.jacobian(robot, home)[3:]
    theirs = km.jacobian(so101, so101.q_home)[3:]
    cos = np.sum(mine * theirs, axis=0)
    assert np.all(np.abs(cos) > 0.95), cos  # the axes are parallel or opposite, not skew
    return [int(np.sign(c)) for c in cos] + [1]


ARMS = {
    "so101": {
        "tip": "gripper_frame_link", "jaw": "moving_jaw_so101_v1_link", "servo_word": "sts3215",
        "description": "SO-101 (TheRobotStudio / Hugging Face LeRobot), the follower arm: shoulder pan, shoulder "
                       "lift, elbow flex, wrist flex and wrist roll, Feetech STS3215 bus servos (ids 1-5); the "
                       "gripper (id 6) is listed separately under `gripper`.",
        "chain": "chain base_link to gripper_frame_link; masses and inertias as that URDF gives them.",
        "notes": "Lengths in m, angles in rad. Joint zero is the URDF's ('new calibration': each servo's middle "
                 "tick, 2048 of 4096, at q = 0). The moving jaw (0.012 kg) is off the chain: the dynamics carry "
                 "it rigidly at gripper = 0.",
    },
    "so100": {
        "tip": "gripper", "jaw": "jaw", "servo_word": "_Motor",
        "description": "SO-100 (TheRobotStudio / Hugging Face LeRobot), the SO-101's predecessor, the follower "
                       "arm: the same joints (shoulder pan, shoulder lift, elbow flex, wrist flex, wrist roll; "
                       "Feetech STS3215 bus servos, ids 1-5; the gripper, id 6, under `gripper`) and the same upper "
                       "arm and forearm (112.57 mm + 28 mm, 134.9 mm + 5.2 mm). What differs from the SO-101: its "
                       "URDF's zero is the folded rest pose, not the middle of the travel, so the ranges are off "
                       "centre (shoulder lift 0…3.5 rad, elbow flex −π…0, wrist flex −2.5…1.2) and home, the "
                       "middle pose where a LeRobot-calibrated servo reads its middle tick, is the middle of each "
                       "range; its shoulder pan turns the other way about the vertical (servo_signs); the shoulder "
                       "lift and wrist flex frames carry the CAD's 1.8 rad and 1 rad; its link inertias are "
                       "principal (diagonal); it has no tool frame, so the tool point sits on the fixed jaw as the "
                       "SO-101's gripper_frame_link does.",
        "chain": "chain base to gripper (the fixed jaw), the tool point added on the fixed jaw's inner face 6.3 mm "
                 "behind its tip (measured on the meshes, as the SO-101's gripper_frame_link sits); masses and "
                 "inertias as that URDF gives them (the base's 1 kg is its 'approximate' value, and carried by "
                 "nothing).",
        "notes": "Lengths in m, angles in rad. Joint zero is the URDF's (the folded rest pose); home is the middle "
                 "of each joint's range, where each servo reads its middle tick (2048 of 4096) once calibrated as "
                 "LeRobot does: there q = home + sign (ticks - 2048) 2 pi / 4096, sign from servo_signs. The moving "
                 "jaw (0.020 kg) is off the chain: the dynamics carry it rigidly at gripper = 0.",
    },
}


def robot_file(arm: str, src: Path, meshes: dict[str, str], scratch: Path) -> dict:
    spec = ARMS[arm]
    urdf = snapped(src / f"urdf/{arm}.urdf", scratch / f"{arm}.urdf")  # the grip's axis from it too
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the jaw riding rigidly at gripper = 0: said in notes
        robot = km.load(urdf, tip=spec["tip"], hold={"gripper": 0.0},
                        package_dirs=[src.parents[2]])  # share/, which holds example-robot-data/
    data = yaml.safe_load(km.model.robotfile.write_text(robot))
    data.update(name=arm, description=spec["description"])
    data["source"] = (f"example-robot-data's so_arm_description/urdf/{arm}.urdf (upstream "
                      f"github.com/TheRobotStudio/SO-ARM100, Apache-2.0; copied verbatim with its license in "
                      f"{arm}/), {spec['chain']} Its origins' angles within 1e-4 rad of a multiple of 90° are taken "
                      "as exactly that (the CAD exporter wrote pi as 3.14159), coordinates under 1 um as 0.")
    data["notes"] = (f"{spec['notes']} Meshes decimated to ~2 mm by scripts/so_arm_bundle.py (glTF binaries in "
                     f"{arm}/); the full-resolution STL parts ship with example-robot-data.")
    extras: dict = {"servo_ids": [1, 2, 3, 4, 5, 6]}
    if arm == "so101":  # its URDF's zero is the middle pose (every servo at its middle tick)
        home = np.zeros(robot.n)
    else:
        home = robot.limits.mean(axis=1)
        data["tool"] = fixed_jaw_tool(trimesh.load(src / "meshes/so100/Fixed_Jaw.stl"))
        extras["servo_signs"] = servo_signs(robot, home)
    data = {**{k: data[k] for k in ("name", "description", "source", "notes", "kind", "length_unit", "angle_unit")},
            "home": [float(h) for h in home], "tool": data.pop("tool"), **data}
    data["gripper"] = {"name": "gripper", "servo": {"range": [-10, 100], "open": 100, "closed": 0}, "home": 0}
    data["extras"] = extras
    for shape in data["visuals"]["shapes"]:
        shape["mesh"]["file"] = meshes[Path(shape["mesh"]["file"]).name]
        shape.pop("color", None)
        shape["color"] = SERVO if spec["servo_word"] in shape["mesh"]["file"] else PRINTED
        if shape["name"] == spec["jaw"]:
            X = spatial.homogeneous(spatial.rpy_to_matrix(shape.get("rpy", [0, 0, 0])), shape.get("xyz", [0, 0, 0]))
            shape["grip"] = jaw_grip(urdf, X, spec["jaw"])
    data["visuals"]["source"] = ("The URDF's <visual> meshes, decimated on a 2 mm grid (scripts/so_arm_bundle.py); "
                                 "printed parts in PLA yellow, STS3215 servos black. The moving jaw turns with "
                                 "the gripper (open at 100 deg, closed at 0).")
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("arm", choices=sorted(ARMS), help="the arm to bundle")
    arm = parser.parse_args().arm
    src = source()
    out = FOLDER / arm
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    meshes = {}
    for stl in sorted((src / f"meshes/{arm}").glob("*.stl")):
        small = cluster(trimesh.load(stl), GRID)
        (out / f"{stl.stem}.glb").write_bytes(small.export(file_type="glb"))
        meshes[stl.name] = f"{arm}/{stl.stem}.glb"
    shutil.copy(src / f"urdf/{arm}.urdf", out / f"{arm}.urdf")
    shutil.copy(LICENSE, out / "LICENSE")
    (out / "NOTICE").write_text(
        f"{arm}.urdf and the meshes (*.glb) here come from TheRobotStudio's SO-ARM100 repository\n"
        "(https://github.com/TheRobotStudio/SO-ARM100) as packaged by example-robot-data\n"
        "(robots/so_arm_description), licensed under the Apache License, Version 2.0 (LICENSE).\n"
        "Changes: the STL meshes were decimated (vertex clustering on a 2 mm grid) and converted to\n"
        f"glTF binary by Kinematica's scripts/so_arm_bundle.py; {arm}.urdf is unchanged.\n", encoding="utf-8")
    with tempfile.TemporaryDirectory() as scratch:
        data = robot_file(arm, src, meshes, Path(scratch))
    (FOLDER / f"{arm}.yaml").write_text(dump(data), encoding="utf-8")
    print(f"wrote {FOLDER / f'{arm}.yaml'} and {sum(p.stat().st_size for p in out.iterdir()) / 1e3:.0f} kB in {out}")  # noqa: T201


if __name__ == "__main__":
    main()
