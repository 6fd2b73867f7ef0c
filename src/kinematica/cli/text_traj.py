"""Table view of `kinematica traj`: the motion, how it was followed, the verdict, the joints'
start, end and top speed, and every problem point in words (runs of alike points grouped).

Joint values in degrees (deg/s) for revolute joints, the length unit for prismatic ones.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

import kinematica as km

from ..textfmt import table, vector
from .text import WIDTH, _half_open, heading

MAX_GROUPS = 12
# never split: a vector "(1, 2, 3)" or "[1, 2]", a number from its unit "0.5 m/s,"
_TOKEN = re.compile(r"\S*[(\[][^()\[\]]*[)\]]\S*"
                    r"|[-+]?\d[\w.+-]*\s(?:mm|m|rad|s|deg)(?:/s²|/s)?(?![A-Za-z])[,;:]?|\S+")
_NUMBER = re.compile(r"[-+]?\d+(\.\d+)?([eE][-+]?\d+)?")
_TASKS = {"pose": "pose (position and orientation)", "position": "position only",
          "approach": "position and the tool z axis", "planar": "planar (x, y and heading)"}
_METHODS = {"analytic": "closed form", "lm": "Levenberg–Marquardt"}


def joint_value(robot: km.Robot, j: int, v: float) -> str:
    """One joint value in words: 12.5° or 30 mm."""
    return f"{np.degrees(v):.4g}°" if robot.revolute[j] else f"{v:.4g} {robot.length_unit}"


def wrap(text: str, first: str, rest: str) -> str:
    """`text` filled to WIDTH after `first` (continuation lines start with `rest`), breaking only
    between words and never inside a parenthesised vector."""
    lines, line = [], first
    for word in _TOKEN.findall(text):
        if line.strip() and len(line) + 1 + len(word) > WIDTH and line not in (first, rest):
            lines.append(line)
            line = rest + word
        else:
            line += ("" if line in (first, rest) else " ") + word
    return "\n".join(lines + [line])


def _fields(rows: list[tuple[str, str]]) -> str:
    w = max(len(k) for k, _ in rows) + 2
    return "\n".join(wrap(v, (k + ":").ljust(w), " " * w) for k, v in rows)


def _g(x: float) -> str:
    return f"{float(x) + 0.0:.6g}"


def _err(x: float | None, unit: str) -> str:
    if x is None:
        return "—"
    return ("0" if x == 0 else f"{x:.1e}" if x < 1e-3 else f"{x:.4g}") + f" {unit}"


def _per_joint(robot: km.Robot, v: Any, suffix: str) -> str:
    """Per-joint limits in words: one value when all joints share it."""
    units = {("deg" if r else robot.length_unit) + suffix for r in robot.revolute}
    shown = np.asarray(v) * robot.angle_scale
    unit = units.pop() if len(units) == 1 else f"deg{suffix} or {robot.length_unit}{suffix}"
    if np.all(shown == shown[0]):
        return f"{_g(shown[0])} {unit}"
    return "(" + ", ".join(_g(x) for x in shown) + f") {unit}"


def _motion(robot: km.Robot, data: dict[str, Any]) -> str:
    u = robot.length_unit
    m = data["motion"]
    kind = m["kind"]
    if kind == "joint":
        k = len(m["poses"])
        text = f"{m['profile']} joint move through {k} poses" if k > 2 else f"{m['profile']} joint move"
        if m["start_at_q0"]:
            text += " from q0" + ("" if data["q0_given"] else " (home)")
        if "vmax" in m:
            vmax, amax = _per_joint(robot, m["vmax"], "/s"), _per_joint(robot, m["amax"], "/s²")
            text += f"; vmax {vmax}, amax {amax}"
        if m.get("blend"):
            text += ", stopping on every pose" if m["blend"] == "stop" else ", blending past the via poses"
        return text
    if kind == "line" and m["length"] == 0:
        return f"the tool turning {m['turn_deg']:.4g}° (slerp) at {vector(m['start'])} {u}"
    if kind == "line":
        start = ("the tool at q0 " if m["start_at_q0"] else "") + vector(m["start"])
        turn = (f", the tool turning {m['turn_deg']:.4g}° (slerp)" if m["turn"] > 1e-9
                else ", orientation kept")
        return f"straight line from {start} to {vector(m['end'])} {u}, length {_g(m['length'])} {u}{turn}"
    if kind in ("arc", "circle"):
        pts = ", ".join(vector(p) for p in m["through"])
        what = "full circle" if kind == "circle" else "arc"
        start = " (the first is the tool at q0)" if m["start_at_q0"] else ""
        return (f"{what} through {pts} {u}{start}: centre {vector(m['centre'])} {u}, radius "
                f"{_g(m['radius'])} {u}, {m['angle_deg']:.4g}°, length {_g(m['length'])} {u}")
    what = "C² cubic spline" if m["spline"] == "cubic" else "glued 3-point cubics (paper 004)"
    text = f"{what} through {len(m['points'])} points, length {_g(m['length'])} {u}"
    if m.get("kink_deg"):
        text += f", largest tangent kink {m['kink_deg']:.3g}°"
    return text


def _verdict(data: dict[str, Any]) -> str:
    if data["ok"]:
        if data["mode"] == "joint":
            return "ok: every sample within the joint limits"
        return "ok: every point solved, no joint jump, every point within the joint limits"
    p = data["problems"]
    counts = [(p["not_solved"], "not solved", "not solved"), (p["joint_jumps"], "joint jump", "joint jumps"),
              (p["outside_limits"], "outside the joint limits", "outside the joint limits")]
    words = [f"{n} {one if n == 1 else many}" for n, one, many in counts if n]
    k = len(data["failures"])
    return f"{k} problem point{'s' if k != 1 else ''} of {data['points']}: " + ", ".join(words)


def _written(data: dict[str, Any]) -> str:
    if data["withheld"]:
        return f"nothing — withheld: {data['withheld']}"
    files = data["written"]
    if not files:
        return "nothing (--out FILE and --scenarios DIR write the motion)"
    parts = [f"{w['path']} ({w['format']}, angles in {w['angle_unit']})" for w in files
             if w["format"] != "scenario"]
    scen = [Path(w["path"]) for w in files if w["format"] == "scenario"]
    if scen:
        parts.append(f"{len(scen)} scenario files in {scen[0].parent}/ "
                     f"({scen[0].name} … {scen[-1].name}, time and value, {files[-1]['angle_unit']})")
    return "; ".join(parts)


def _joints_table(robot: km.Robot, data: dict[str, Any]) -> str:
    rows = []
    for i, name in enumerate(robot.joint_names):
        unit = "deg, deg/s" if robot.revolute[i] else f"{robot.length_unit}, {robot.length_unit}/s"
        rows.append([name, float(data["q_start_deg"][i]), float(data["q_end_deg"][i]),
                     float(data["max_joint_speed_deg"][i]), float(data["max_joint_speed_t"][i]), unit])
    return table(["joint", "q start", "q end", "max |q̇|", "at t (s)", "unit"], rows, indent="  ",
                 align="lrrrrl")


def _groups(items: list[dict[str, Any]]) -> list[str]:
    """Lines for problem points: runs of consecutive points with alike reasons (the same words,
    other numbers) in one line, at most MAX_GROUPS lines."""
    runs: list[list[dict[str, Any]]] = []
    for f in items:
        last = runs[-1][-1] if runs else None
        if (last is not None and f["index"] == last["index"] + 1
                and _NUMBER.sub("#", f["reason"]) == _NUMBER.sub("#", last["reason"])):
            runs[-1].append(f)
        else:
            runs.append([f])
    lines = []
    for run in runs[:MAX_GROUPS]:
        a, b = run[0], run[-1]
        if len(run) == 1:
            where = f"point {a['index']} (t = {_g(a['t'])} s)"
        else:
            where = f"points {a['index']}–{b['index']} (t = {_g(a['t'])} … {_g(b['t'])} s)"
        alike = "" if all(f["reason"] == a["reason"] for f in run) else " (at the first; alike at the others)"
        lines.append(wrap(f"{where}: {a['reason']}{alike}", "  ", "    "))
    if len(runs) > MAX_GROUPS:
        rest = sum(len(r) for r in runs[MAX_GROUPS:])
        lines.append(f"  … and {rest} more point{'s' if rest != 1 else ''} (--json lists every one)")
    return lines


def traj_text(robot: km.Robot, data: dict[str, Any]) -> str:
    u = robot.length_unit
    m = data["motion"]
    timing = f"{data['points']} points over {_g(data['duration'])} s"
    if m["kind"] == "joint" and m["profile"] == "trapezoidal" and not m["duration_given"]:
        timing += " (the shortest the limits allow)"
    rows = [("motion", _motion(robot, data))]
    if data["mode"] != "joint":
        q0 = (vector(data["q0_deg"], 4) + ("°" if np.all(robot.revolute) else "")
              + ("" if data["q0_given"] else " (home)"))
        how = _METHODS.get(data["method"], data["method"])
        rows += [("q0", q0),
                 ("following", f"{_TASKS[data['task']]}, {how}: {data['solved']} of {data['points']} "
                               "points solved, each warm-started from the one before")]
    if "speed" in m:
        timing += f", {m['law']} {_g(m['speed'])} {m['speed_unit']}"
    end = data["end_pose"]
    rows += [("timing", timing),
             ("end pose", f"{vector(end['position'])} {u}, RPY {vector(_half_open(end['rpy_deg']), 4)}°")]
    if data["end_position_error"] is not None:
        error = f"{_err(data['end_position_error'], u)} in position"
        if data["end_orientation_error"] is not None:
            error += f", {_err(data['end_orientation_error'], 'rad')} in orientation"
        rows.append(("end error", error))
    rows += [("verdict", _verdict(data)), ("written", _written(data))]
    parts = [heading(robot), "", _fields(rows), "", "Joints:", _joints_table(robot, data)]
    if data["failures"]:
        parts += ["", "Problem points:", *_groups(data["failures"])]
    if data["warnings"]:
        parts += ["", "Warnings:", *_groups(data["warnings"])]
    for note in data["notes"]:
        parts += ["", wrap(note, "Note: ", "  ")]
    return "\n".join(parts)
