"""Table view of `kinematica ik`: the target, the verdict in words and the solutions."""

from __future__ import annotations

from typing import Any

import numpy as np

import kinematica as km

from ..textfmt import fields, num, table, vector
from .text import heading

_FORMS = {"rpy": "RPY", "euler_zyz": "ZYZ Euler", "pitch": "pitch φ", "phi": "heading φ"}


def _target_line(robot: km.Robot, target: dict[str, Any]) -> str:
    u = robot.length_unit
    kind = {"pose": "pose", "position": "position only", "approach": "position + approach",
            "planar": "planar"}[target["kind"]]
    pos = target["position"]
    text = f"{'(x, y)' if len(pos) == 2 else 'position'} ({u}) = {vector(pos)}"
    for key, label in _FORMS.items():
        if key in target:
            v = np.degrees(target[key])
            text += f", {label} = " + (vector(v) if np.ndim(v) else f"{num(float(v))}") + "°"
    if "quat" in target:
        text += f", quaternion (w, x, y, z) = {vector(target['quat'])}"
    if target["kind"] == "approach":
        text += f", approach a = {vector(target['approach'])}"
    return f"{kind}, {target['constraints']} constraints: {text}"


def _verdict(data: dict[str, Any]) -> str:
    if data["all"] and data["solutions"]:
        return data["message"]
    if data["solutions"] and data.get("solved", True):
        return f"solved: {data['message']}"
    return ("not solved: " if data["reachable"] else "unreachable: ") + data["message"]


def _method_line(data: dict[str, Any]) -> str:
    if data["method"] == "anfis":
        return "anfis: the learned model's answer alone (no iterations), judged by FK"
    if not data["all"]:
        return f"{data['method']}, joint limits: {data['limits']}"
    how = {s["method"] for s in data["solutions"]}
    if how == {"analytic"}:
        return "every solution (--all), from the closed form"
    return f"every solution (--all), from a multi-start {'/'.join(sorted(how)) or data['method']} search"


def _error(x: float) -> str:
    return "0" if x == 0 else f"{x:.1e}"


def ik_text(robot: km.Robot, data: dict[str, Any]) -> str:
    u = robot.length_unit
    start = "q0 (the model's)" if data.get("seed_model") else "q0" if data["q0_given"] else "q0 (home)"
    oriented = data["target"]["kind"] in ("pose", "approach") or "phi" in data["target"]
    parts = [heading(robot), "",
             fields([("target", _target_line(robot, data["target"])),
                     *([] if data["method"] == "anfis" else [(start, vector(data["q0_deg"], 3) + _joint_unit(robot))]),
                     ("method", _method_line(data)),
                     ("reachable", "yes" if data["reachable"] else "no"),
                     ("verdict", _verdict(data))])]
    sols = data["solutions"]
    if not sols:
        return "\n".join(parts + ["", "No solution."])
    short = any(len(n) > 8 for n in robot.joint_names)
    names = [f"q{i + 1}" for i in range(robot.n)] if short else list(robot.joint_names)
    heads = ["#", *names, f"pos err ({u})", "ori err (rad)", "iter", "in limits", "branch"]
    rows = []
    for k, s in enumerate(sols, 1):
        mark = "*" if s["near_singular"] else ""
        rows.append([f"{k}{mark}", *(num(float(v), 3) for v in s["q_deg"]),
                     _error(s["position_error"]), _error(s["orientation_error"]) if oriented else "—",
                     str(s["iterations"]), "yes" if s["within_limits"] else "no",
                     s["branch"] or "—"])
    align = "r" * (1 + robot.n) + "rrrll"
    parts += ["", f"Solution{'s' if len(sols) > 1 else ''} (joint values in {_joint_units(robot)}):",
              table(heads, rows, indent="  ", align=align)]
    if short:
        parts.append("  joints: " + ", ".join(f"{a} = {b}" for a, b in zip(names, robot.joint_names, strict=True)))
    if any(s["near_singular"] for s in sols):
        parts.append("  * near a singularity (σmin/σmax of the task Jacobian < 1e-3)")
    return "\n".join(parts)


def _joint_unit(robot: km.Robot) -> str:
    return "°" if np.all(robot.revolute) else f" (deg, prismatic in {robot.length_unit})"


def _joint_units(robot: km.Robot) -> str:
    return "degrees" if np.all(robot.revolute) else f"degrees, prismatic joints in {robot.length_unit}"
