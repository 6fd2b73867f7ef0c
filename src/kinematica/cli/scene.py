"""`kinematica scene check|show SCENE`: shared workspaces (bundled scene name or YAML file).

check: collisions and the smallest distance at one configuration of every robot (`--q
ROBOT=v1,v2,...`; robots not given stay at their scene configuration), or along trajectory
files (`--trajectory ROBOT=FILE`, .csv/.json as `kinematica traj --out` writes them) checked
so that no link moves more than `--resolution` between checks. A collision is part of the
report (exit 0, `"colliding": true` in the JSON), not an error.
show: the robots, their bases and collision geometry, the obstacles, and every pair left out
of the checks with the reason.
"""

from __future__ import annotations

import argparse
import math
from typing import Any, TextIO

import numpy as np

import kinematica as km

from .. import spatial
from ..scene import check_trajectory
from ..textfmt import num, table, vector
from .common import UsageError, emit, joint_values, q_deg


def _pairs(items: list[str] | None, flag: str, scene: km.Scene) -> dict[str, str]:
    """{robot: text} of ROBOT=... items; UsageError naming an unknown robot or a repeat."""
    out: dict[str, str] = {}
    for item in items or ():
        name, eq, rest = item.partition("=")
        name = name.strip()
        if not eq or not name or not rest.strip():
            raise UsageError(f"{flag}: expected ROBOT=..., got {item!r}")
        if name not in scene.robots:
            raise UsageError(f"{flag}: unknown robot {name!r}: the scene has {', '.join(scene.robots)}")
        if name in out:
            raise UsageError(f"{flag}: robot {name!r} is given twice")
        out[name] = rest.strip()
    return out


def _configuration(scene: km.Scene, args: argparse.Namespace) -> dict[str, np.ndarray]:
    given = _pairs(args.q, "--q", scene)
    q = {}
    for name, entry in scene.robots.items():
        if name in given:
            values = [v for v in given[name].replace(",", " ").split()]
            q[name] = joint_values(entry.robot, values, args.deg, flag=f"--q {name}")
        else:
            q[name] = entry.q
    return q


def _motions(scene: km.Scene, args: argparse.Namespace) -> dict[str, km.Trajectory]:
    out = {}
    for name, path in _pairs(args.trajectory, "--trajectory", scene).items():
        tr = km.trajectory.load(path)
        n = scene.robots[name].robot.n
        if tr.q.shape[1] != n:
            raise UsageError(f"--trajectory {name}: {path} has {tr.q.shape[1]} joints, "
                             f"{scene.robots[name].robot.name} has {n}")
        out[name] = tr
    return out


def _resolution(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        v = float(text)
    except ValueError:
        raise UsageError(f"--resolution: expected a length, got {text!r}") from None
    if not (math.isfinite(v) and v > 0):
        raise UsageError(f"--resolution: expected a positive finite length, got {text}")
    return v


def check_data(scene: km.Scene, q: dict[str, np.ndarray], motions: dict[str, km.Trajectory],
               resolution: float | None) -> dict[str, Any]:
    rep, dist = scene.check(q, shapes=True), scene.distance(q)
    data: dict[str, Any] = {
        "scene": scene.name, "length_unit": scene.length_unit,
        "q": q, "q_deg": {k: q_deg(scene.robots[k].robot, v) for k, v in q.items()},
        "colliding": rep.colliding, "collisions": rep.collisions, "shapes": rep.shapes,
        "min_distance": dist.min_distance, "pair": dist.pair, "points": dist.points,
        "distance_words": dist.words()}
    if motions:
        sw = check_trajectory(scene, motions, {k: v for k, v in q.items() if k not in motions},
                              resolution=resolution)
        data["trajectory"] = {"colliding": sw.colliding, "time": sw.time, "clear_until": sw.clear_until,
                              "collisions": sw.collisions, "checks": sw.checks, "resolution": sw.resolution,
                              "summary": str(sw)}
    return data


def check_text(scene: km.Scene, d: dict[str, Any]) -> str:
    lines = [f"scene {scene.name} (lengths in {scene.length_unit})", ""]
    rows = [[k, scene.robots[k].robot.name, vector(np.round(d["q_deg"][k], 4), 2)] for k in d["q"]]
    lines += [table(["robot", "model", "q (deg, or length unit)"], rows), ""]
    if d["colliding"]:
        lines.append(f"COLLISION: {len(d['collisions'])} pair(s)")
        lines += [f"  {a}  with  {b}" for a, b in d["collisions"]]
        if [tuple(p) for p in d["shapes"]] != [tuple(p) for p in d["collisions"]]:  # bodies of several links
            lines += ["  shapes touching:"] + [f"    {a}  with  {b}" for a, b in d["shapes"]]
    else:
        lines.append("no collision")
    lines.append(f"minimum distance: {d['distance_words']}")
    if "trajectory" in d:
        lines += ["", f"trajectory: {d['trajectory']['summary']}"]
    return "\n".join(lines)


def show_data(scene: km.Scene) -> dict[str, Any]:
    robots = []
    for name, e in scene.robots.items():
        g = scene.geometry(name)
        robots.append({"name": name, "robot": e.robot.name, "source": e.source, "dof": e.robot.n,
                       "base": e.base, "base_xyz": e.base[:3, 3],
                       "base_rpy_deg": np.degrees(spatial.matrix_to_rpy(e.base[:3, :3])),
                       "q": e.q, "q_deg": q_deg(e.robot, e.q), "length_unit": e.robot.length_unit,
                       "collision_radius": g.radius, "largest_radius": _largest_radius(g), "links": list(g.names),
                       "link_geometry": list(g.source)})
    obstacles = [{"name": o.name, "shape": o.shape.kind, **o.shape.params(), "pose": o.pose,
                  "xyz": o.pose[:3, 3], "rpy_deg": np.degrees(spatial.matrix_to_rpy(o.pose[:3, :3]))}
                 for o in scene.obstacles.values()]
    return {"scene": scene.name, "description": scene.description, "length_unit": scene.length_unit,
            "robots": robots, "obstacles": obstacles,
            "excluded": [{"a": a, "b": b, "reason": why} for a, b, why in scene.excluded()]}


def _largest_radius(g: Any) -> float | None:
    radii = [p.shape.radius for p in g.parts if p.shape.kind in ("capsule", "sphere") and g.source[p.body] != "urdf"]
    return max(radii) if radii else None


def _radius_words(r: dict[str, Any]) -> str:
    """The link radius column: one radius (skeleton capsules), a range fitted to the Looks, or URDF."""
    if not r["collision_radius"]:
        return "URDF"
    if "looks" in r["link_geometry"]:
        return f"{num(r['collision_radius'], 4)}–{num(r['largest_radius'], 4)} {r['length_unit']} (fitted)"
    return f"{num(r['collision_radius'], 4)} {r['length_unit']}"


def show_text(d: dict[str, Any]) -> str:
    u = d["length_unit"]
    lines = [f"scene {d['scene']} (lengths in {u})"] + ([d["description"]] if d["description"] else []) + [""]
    rows = [[r["name"], r["robot"], vector(r["base_xyz"], 1), vector(r["base_rpy_deg"], 1),
             _radius_words(r),
             ", ".join(r["links"])] for r in d["robots"]]
    lines += [table(["robot", "model", f"base xyz ({u})", "base rpy (deg)", "link radius", "links"], rows), ""]
    rows = [[o["name"], o["shape"], ", ".join(f"{k} {v if not isinstance(v, list) else vector(v, 4)}"
                                              for k, v in o.items() if k in ("size", "radius", "length", "path", "scale")),
             vector(o["xyz"], 4), vector(o["rpy_deg"], 2)] for o in d["obstacles"]]
    lines += [table(["obstacle", "shape", "size", f"xyz ({u})", "rpy (deg)"], rows) if rows else "no obstacles", ""]
    lines += ["pairs not checked:"] + [f"  {e['a']} - {e['b']}: {e['reason']}" for e in d["excluded"]]
    return "\n".join(lines)


def cmd_scene(args: argparse.Namespace, out: TextIO) -> int:
    scene = km.Scene.load(args.scene)
    if args.action == "show":
        for flag, v in (("--q", args.q), ("--trajectory", args.trajectory), ("--resolution", args.resolution)):
            if v:
                raise UsageError(f"{flag} belongs to 'scene check', not 'scene show'")
        return emit(args, show_data(scene), show_text, out)
    q = _configuration(scene, args)
    data = check_data(scene, q, _motions(scene, args), _resolution(args.resolution))
    return emit(args, data, lambda d: check_text(scene, d), out)


def add_parser(sub: Any) -> None:
    """The subparser of scene."""
    p = sub.add_parser("scene", usage="kinematica scene [-h] {check,show} SCENE [options]",
                       help="shared workspaces: several robots and obstacles; collisions and distances",
                       description="check: collisions and the minimum distance at a configuration of "
                                   "every robot, or along trajectory files; show: the scene's robots, "
                                   "obstacles and the pairs left out of the checks. SCENE: a bundled "
                                   f"scene ({', '.join(km.scene.scene_names())}) or a .yaml scene file.")
    p.add_argument("action", choices=("check", "show"), metavar="ACTION", help="check | show")
    p.add_argument("scene", metavar="SCENE", help="bundled scene name or .yaml scene file")
    p.add_argument("--q", action="append", metavar="ROBOT=V1,V2,...",
                   help="joint values of one robot (rad, or deg with --deg; length unit for prismatic "
                        "joints); repeat for more robots; others stay at their scene configuration")
    p.add_argument("--trajectory", action="append", metavar="ROBOT=FILE",
                   help="a .csv/.json trajectory file of one robot (as 'kinematica traj --out' writes); "
                        "repeat for more robots")
    p.add_argument("--resolution", metavar="D",
                   help="trajectories: the most any link point moves between checks (scene length "
                        "unit; default half the smallest link radius)")
    p.add_argument("--deg", action="store_true", help="--q values of revolute joints are in degrees")
    p.set_defaults(func=cmd_scene)
