"""Write the bundled SO-101 (src/kinematica/model/robots/so101.yaml and the folder so101/) from
example-robot-data's `so_arm_description` (TheRobotStudio's SO-ARM100 repository, Apache-2.0).

What it ships, and why it is small: the URDF copied verbatim (provenance), its license, and the
robot file built from that URDF (chain base_link → gripper_frame_link, the five arm joints; the
moving jaw turns with the gripper as a `grip` shape, as the Braccio's fingers do). The 13 STL
meshes (16 MB, ~320 000 triangles) are decimated by vertex clustering on a 2 mm grid — each
cluster of vertices becomes its centroid, the triangles that collapse are dropped — and stored
as indexed glTF binaries (~0.4 MB in all): the arm's silhouette within ~1 mm, enough for the
simulator's view; load the URDF from example-robot-data for the full-resolution parts.

Run after example-robot-data changes:   python scripts/so101_bundle.py
"""

from __future__ import annotations

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


def jaw_grip(urdf: Path, origin: np.ndarray) -> dict:
    """The moving jaw's turn about the URDF's `gripper` joint, in the frame of the link that
    carries it (gripper_link = body 5): open at the joint's upper limit, closed at 0."""
    joint = next(j for j in ET.parse(urdf).getroot().iter("joint") if j.get("name") == "gripper")
    o = joint.find("origin")
    assert o is not None
    xyz = np.array(o.get("xyz", "0 0 0").split(), float)
    R = spatial.rpy_to_matrix(np.array(o.get("rpy", "0 0 0").split(), float))
    axis = R @ np.array(joint.find("axis").get("xyz").split(), float)  # type: ignore[union-attr]
    upper = float(joint.find("limit").get("upper"))  # type: ignore[union-attr]
    assert np.allclose(origin[:3, 3], xyz + R @ origin_in_jaw(urdf)[:3, 3], atol=1e-6)
    return {"axis": [round(float(x), 9) + 0.0 for x in axis], "pivot": [float(x) for x in xyz],
            "open": upper, "closed": 0}


def origin_in_jaw(urdf: Path) -> np.ndarray:
    """The jaw mesh's placement in its own link (checks that body 5's frame is gripper_link's)."""
    link = next(k for k in ET.parse(urdf).getroot().iter("link") if k.get("name") == "moving_jaw_so101_v1_link")
    o = link.find("visual/origin")
    assert o is not None
    return spatial.homogeneous(spatial.rpy_to_matrix(np.array(o.get("rpy").split(), float)),
                               np.array(o.get("xyz").split(), float))


def snapped(urdf: Path, out: Path) -> Path:
    """A copy of `urdf` whose origins say what the CAD exporter meant: an rpy angle within 1e-4
    rad of a multiple of π/2 is that multiple (it wrote π as 3.14159, π/2 as 1.5708, and 1e-15
    dust), a coordinate under 1 µm is 0. The exact right angles keep the chain's closed forms
    (km.explain, the Math tab) free of sin(3.14159) dust that sympy cannot fold away."""
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


def robot_file(src: Path, meshes: dict[str, str], scratch: Path) -> dict:
    urdf = src / "urdf/so101.urdf"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the jaw's 12 g riding rigidly at gripper = 0: said in notes
        robot = km.load(snapped(urdf, scratch / "so101.urdf"), tip="gripper_frame_link", hold={"gripper": 0.0},
                        package_dirs=[src.parents[2]])  # share/, which holds example-robot-data/
    data = yaml.safe_load(km.model.robotfile.write_text(robot))
    data.update(name="so101", source="", notes="")
    data["description"] = ("SO-101 (TheRobotStudio / Hugging Face LeRobot), the follower arm: shoulder pan, "
                           "shoulder lift, elbow flex, wrist flex and wrist roll, Feetech STS3215 bus servos "
                           "(ids 1-5); the gripper (id 6) is listed separately under `gripper`.")
    data["source"] = ("example-robot-data's so_arm_description/urdf/so101.urdf (upstream "
                      "github.com/TheRobotStudio/SO-ARM100, Apache-2.0; copied verbatim with its license in "
                      "so101/), chain base_link to gripper_frame_link; masses and inertias as that URDF gives them. "
                      "Its origins' angles within 1e-4 rad of a multiple of 90° are taken as exactly that (the CAD "
                      "exporter wrote pi as 3.14159), coordinates under 1 um as 0.")
    data["notes"] = ("Lengths in m, angles in rad. Joint zero is the URDF's ('new calibration': each servo's "
                     "middle tick, 2048 of 4096, at q = 0). The moving jaw (0.012 kg) is off the chain: the "
                     "dynamics carry it rigidly at gripper = 0. Meshes decimated to ~2 mm by "
                     "scripts/so101_bundle.py (glTF binaries in so101/); the full-resolution STL parts ship "
                     "with example-robot-data.")
    # home: every servo at its middle tick (LeRobot's calibration centres the range there)
    data = {**{k: data[k] for k in ("name", "description", "source", "notes", "kind", "length_unit", "angle_unit")},
            "home": [0.0] * robot.n, **data}
    data["gripper"] = {"name": "gripper", "servo": {"range": [-10, 100], "open": 100, "closed": 0}, "home": 0}
    data["extras"] = {"servo_ids": [1, 2, 3, 4, 5, 6]}
    shapes = data["visuals"]["shapes"]
    for shape in shapes:
        shape["mesh"]["file"] = meshes[Path(shape["mesh"]["file"]).name]
        shape.pop("color", None)
        shape["color"] = "#1f1f1f" if "sts3215" in shape["mesh"]["file"] else "#f2c318"
        if shape["name"] == "moving_jaw_so101_v1_link":
            X = spatial.homogeneous(spatial.rpy_to_matrix(shape.get("rpy", [0, 0, 0])), shape.get("xyz", [0, 0, 0]))
            shape["grip"] = jaw_grip(urdf, X)
    data["visuals"]["source"] = ("The URDF's <visual> meshes, decimated on a 2 mm grid (scripts/so101_bundle.py); "
                                 "printed parts in PLA yellow, STS3215 servos black. The moving jaw turns with "
                                 "the gripper (open at 100 deg, closed at 0).")
    return data


def main() -> None:
    src = source()
    out = FOLDER / "so101"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    meshes = {}
    for stl in sorted((src / "meshes/so101").glob("*.stl")):
        small = cluster(trimesh.load(stl), GRID)
        (out / f"{stl.stem}.glb").write_bytes(small.export(file_type="glb"))
        meshes[stl.name] = f"so101/{stl.stem}.glb"
    shutil.copy(src / "urdf/so101.urdf", out / "so101.urdf")
    shutil.copy(LICENSE, out / "LICENSE")
    (out / "NOTICE").write_text(
        "so101.urdf and the meshes (*.glb) here come from TheRobotStudio's SO-ARM100 repository\n"
        "(https://github.com/TheRobotStudio/SO-ARM100) as packaged by example-robot-data\n"
        "(robots/so_arm_description), licensed under the Apache License, Version 2.0 (LICENSE).\n"
        "Changes: the STL meshes were decimated (vertex clustering on a 2 mm grid) and converted to\n"
        "glTF binary by Kinematica's scripts/so101_bundle.py; so101.urdf is unchanged.\n", encoding="utf-8")
    with tempfile.TemporaryDirectory() as scratch:
        data = robot_file(src, meshes, Path(scratch))
    (FOLDER / "so101.yaml").write_text(dump(data), encoding="utf-8")
    print(f"wrote {FOLDER / 'so101.yaml'} and {sum(p.stat().st_size for p in out.iterdir()) / 1e3:.0f} kB in {out}")  # noqa: T201


if __name__ == "__main__":
    main()
