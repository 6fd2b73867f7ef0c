"""YAML robot files: read into a `Robot`, write a `Robot` back. Schema: `schema.py`."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import spatial
from .builders import from_dh, from_link_frames, from_mdh, from_planar
from .inertial import Inertial
from .placement import placement as _placement
from .poe import from_poe
from .robot import Robot, RobotError
from .schema import RobotFileError, dump, parse

__all__ = ["robot_from_dict", "read_text", "robot_to_dict", "write_text"]

_BUILDERS = {"dh": from_dh, "mdh": from_mdh, "frames": from_link_frames}


def _inertial(d: dict) -> Inertial:
    com = d.get("com", (0.0, 0.0, 0.0))
    if "cylinder" in d:
        c = d["cylinder"]
        return Inertial.cylinder(d["mass"], c["radius"], c["height"], c.get("axis", "z"), com)
    if "box" in d:
        return Inertial.box(d["mass"], d["box"]["size"], com)
    if "sphere" in d:
        return Inertial.sphere(d["mass"], d["sphere"]["radius"], com)
    I = np.asarray(d.get("inertia", np.zeros((3, 3))), dtype=float)
    if I.shape == (6,):  # ixx, iyy, izz, ixy, ixz, iyz as in URDF
        ixx, iyy, izz, ixy, ixz, iyz = I
        I = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    return Inertial(d["mass"], com, I)


def _drives(joints: list[dict]) -> dict:
    """Joint friction (viscous N·m·s/rad, Coulomb N·m) and armature (kg·m²) per joint, if any."""
    if not any("friction" in j or "armature" in j for j in joints):
        return {}
    return {"drives": {"viscous": [j.get("friction", {}).get("viscous", 0.0) for j in joints],
                       "coulomb": [j.get("friction", {}).get("coulomb", 0.0) for j in joints],
                       "armature": [j.get("armature", 0.0) for j in joints]}}


def _visuals(data: dict, deg: bool, where: str, folder: Any = None) -> dict:
    """extras["visuals"] (the shapes) and extras["visual_source"] of a file's `visuals:`; mesh
    files are found in `folder`, else beside the file `where` names."""
    if "visuals" not in data:
        return {}
    from pathlib import Path

    from .visual import from_dicts

    if folder is None and Path(where).suffix.lower() in (".yaml", ".yml") and Path(where).parent != Path():
        folder = Path(where).parent
    shapes, source = from_dicts(data["visuals"], deg, where, folder)
    gone = [v.mesh_path for v in shapes if v.kind == "mesh" and not Path(v.mesh_path).is_file()]
    if gone:  # drawn as the skeleton instead, as a URDF's missing meshes are
        import warnings

        warnings.warn(f"{where}: {len(gone)} visual mesh file{'s' * (len(gone) != 1)} not found "
                      f"({', '.join(gone[:5])}): those shapes are left out", UserWarning, stacklevel=4)
        shapes = tuple(v for v in shapes if v.path not in gone)
    n = len(data["joints"])
    for i, v in enumerate(shapes):
        if v.body > n:
            raise RobotError(f"visuals.shapes[{i}]: body {v.body} does not exist (0 the base, 1..{n} the links)")
    return {"visuals": shapes, "visual_source": source}


def robot_from_dict(data: dict[str, Any], where: str = "<robot file>", folder: Any = None) -> Robot:
    """Build a Robot from an already-validated robot-file mapping (mesh files in `folder`, else
    beside `where`)."""
    deg = data.get("angle_unit", "rad") == "deg"
    joints = [dict(j) for j in data["joints"]]
    try:
        for j in joints:
            if "inertial" in j:
                j["inertial"] = _inertial(j["inertial"])
        common = dict(
            name=data["name"], length_unit=data["length_unit"], home=data.get("home"), deg=deg,
            base=_placement(data.get("base"), deg), meta=dict(
                description=data.get("description", ""), source=data.get("source", ""),
                link_names=tuple(j["link"] for j in joints) if all("link" in j for j in joints) else None,
                extras={k: data[k] for k in ("gripper", "extras", "notes", "collision") if k in data}
                | ({"servo": [j.get("servo") for j in joints]} if any("servo" in j for j in joints) else {})
                | _drives(joints) | _visuals(data, deg, where, folder)),
        )
        if data["kind"] == "planar":
            missing = [i + 1 for i, j in enumerate(joints) if "length" not in j]
            if missing:
                raise RobotError(f"joint {missing[0]}: a planar joint needs 'length'")
            robot = from_planar([j["length"] for j in joints], **common,
                                joint_names=[j.get("name", f"θ{i + 1}") for i, j in enumerate(joints)])
            lim = [j.get("limits", (-np.inf, np.inf)) for j in joints]
            lim = np.radians(lim) if deg else np.asarray(lim, dtype=float)
            inert = tuple(j.get("inertial") for j in joints)
            robot = robot.replace(limits=lim, inertials=inert if any(inert) else None)
            tool = _placement(data.get("tool"), deg)
            return robot if tool is None else robot.replace(tool=robot.tool @ tool)
        if data["kind"] == "poe":
            return _poe(data, joints, deg, common)
        return _BUILDERS[data["kind"]](joints, tool=_placement(data.get("tool"), deg), **common)
    except (RobotError, ValueError) as e:
        raise RobotFileError(f"{where}: {e}") from None


def _poe(data: dict, joints: list[dict], deg: bool, common: dict) -> Robot:
    """A `kind: poe` file: screws (ω; v) in the space or body frame and the tool's home pose."""
    S = np.array([j["screw"] for j in joints], dtype=float)
    revolute = np.linalg.norm(S[:, :3], axis=1) > 0
    for i, j in enumerate(joints):
        if "type" in j and (j["type"] in ("revolute", "helical")) != revolute[i]:
            raise RobotError(f"joint {i + 1}: type {j['type']} but its screw is {'revolute' if revolute[i] else 'prismatic'} "
                             f"(ω {'≠' if revolute[i] else '='} 0)")
    lim = np.array([j.get("limits", (-np.inf, np.inf)) for j in joints], dtype=float)  # in the file's units: deg= converts
    names = [j.get("name", f"q{i + 1}") for i, j in enumerate(joints)]
    robot = from_poe(_placement(data["home_pose"], deg), S, data.get("screw_frame", "space"), limits=lim,
                     joint_names=names, **common)
    for i, j in enumerate(joints):  # a type that names the pitch must agree with the screw's ω·v
        if j.get("type") in ("revolute", "helical") and (j["type"] == "helical") != robot.helical[i]:
            raise RobotError(f"joint {i + 1}: type {j['type']} but its screw has pitch ω·v = "
                             f"{robot.pitch[i]:.6g}" + (" (a revolute joint has 0)" if robot.helical[i] else ""))
    return robot


def read_text(text: str, where: str = "<robot file>", folder: Any = None, bundled: bool = False) -> Robot:
    """Robot from the text of a YAML robot file (its mesh files in `folder`, else beside `where`);
    `bundled`: one of the package's own files, which the tests hold to the schema (`schema.parse`)."""
    return robot_from_dict(parse(text, where, schema=not bundled), where, folder)


# --- writing ------------------------------------------------------------------------------
def _clean(x: Any) -> Any:
    """Plain Python floats at 15 significant digits: short in the file, ~1e-15 relative error."""
    if isinstance(x, np.ndarray):
        x = x.tolist()
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, (float, np.floating)):
        v = float(f"{float(x):.15g}")
        if not np.isfinite(v):  # 1.7976931348623151e308 rounds up past the largest float
            v = float(x)
        return 0.0 if v == 0 else v
    if isinstance(x, np.integer):
        return int(x)
    return x


def _placement_dict(T: np.ndarray) -> dict | None:
    if np.allclose(T, np.eye(4), atol=1e-15):
        return None
    return {"xyz": _clean(T[:3, 3]), "rotation": _clean(T[:3, :3])}


def _inertial_dict(inert: Inertial) -> dict:
    return {"mass": _clean(inert.mass), "com": _clean(inert.com), "inertia": _clean(inert.inertia)}


def _joint_rows(robot: Robot, deg: bool) -> tuple[str, list[dict], np.ndarray]:
    """Rows in the robot's own table when it has one, else generic link frames; plus the tool
    transform still to write."""
    t = robot.table
    tool = robot.tool
    if t is not None and t.kind in ("dh", "mdh"):
        keys = ("theta", "d", "a", "alpha")
        rows = [{"name": nm, "type": r["type"], **{k: _clean(r[k]) for k in keys}}
                for nm, r in zip(robot.joint_names, t.as_dicts(), strict=True)]
        if t.angle_unit != ("deg" if deg else "rad"):
            f = 180 / np.pi if deg else np.pi / 180
            for r in rows:
                r["theta"], r["alpha"] = _clean(r["theta"] * f), _clean(r["alpha"] * f)
        return t.kind, rows, tool
    if t is not None and t.kind == "planar":
        L = [r["L"] for r in t.as_dicts()]
        return "planar", [{"name": nm, "length": _clean(l)} for nm, l in zip(robot.joint_names, L, strict=True)], \
            spatial.trans(x=-L[-1]) @ tool
    if t is not None and t.kind == "frames":
        rows = []
        for nm, r in zip(robot.joint_names, t.as_dicts(), strict=True):
            row = {"name": nm, "type": r["type"], "xyz": _clean(r["xyz"])}
            row |= {"rotation": _clean(r["rotation"])} if r["rotation"] is not None else {"rpy": _clean(r["rpy"])}
            if not np.allclose(r["axis"], (0, 0, 1)):
                row["axis"] = _clean(r["axis"])
            rows.append(row)
        return "frames", rows, tool
    # Generic: joint i placed at A(i−1)·B(i) in the previous joint frame, turning about z.
    rows = []
    for i in range(robot.n):
        X = robot.before[0] if i == 0 else robot.after[i - 1] @ robot.before[i]
        rows.append({"name": robot.joint_names[i], "type": robot.joint_types[i],
                     "xyz": _clean(X[:3, 3]), "rotation": _clean(X[:3, :3])})
    return "frames", rows, robot.after[-1] @ tool


def robot_to_dict(robot: Robot) -> dict[str, Any]:
    """A robot-file mapping that `robot_from_dict` reads back to the same kinematics."""
    deg = robot.table is not None and robot.table.angle_unit == "deg"
    kind, rows, tool = _joint_rows(robot, deg)
    scale = np.where(robot.revolute, 180 / np.pi if deg else 1.0, 1.0)
    for i, row in enumerate(rows):
        if np.any(np.isfinite(robot.limits[i])):  # YAML writes an open end as .inf
            row["limits"] = _clean(robot.limits[i] * scale[i])
        if robot.helical[i]:
            row |= {"type": "helical", "pitch": _clean(robot.pitch[i])}
        if robot.link_names is not None:
            row["link"] = robot.link_names[i]
        inert = None if robot.inertials is None else robot.inertials[i]
        if inert is not None:
            row["inertial"] = _inertial_dict(inert)
        servo = robot.extras.get("servo")
        if servo and servo[i]:
            row["servo"] = servo[i]
        drives = robot.extras.get("drives")
        if drives:
            fr = {k: _clean(drives[k][i]) for k in ("viscous", "coulomb") if drives[k][i]}
            row |= ({"friction": fr} if fr else {}) | (
                {"armature": _clean(drives["armature"][i])} if drives["armature"][i] else {})
    out: dict[str, Any] = {"name": robot.name}
    for key in ("description", "source"):
        if getattr(robot, key):
            out[key] = getattr(robot, key)
    out |= {"kind": kind, "length_unit": robot.length_unit, "angle_unit": "deg" if deg else "rad"}
    if robot.home is not None:
        out["home"] = _clean(robot.home * scale)
    for key, T in (("base", robot.base), ("tool", tool)):
        placed = _placement_dict(T)
        if placed:
            out[key] = placed
    out["joints"] = rows
    for key in ("gripper", "extras", "notes", "collision"):
        if key in robot.extras:
            out[key] = robot.extras[key]
    if robot.extras.get("visuals"):
        from .visual import to_dicts

        out["visuals"] = to_dicts(robot.extras["visuals"], robot.extras.get("visual_source", ""), deg)
    return out


def write_text(robot: Robot) -> str:
    """The YAML robot-file text of `robot`."""
    return dump(robot_to_dict(robot))
