"""Table views of `kinematica dynamics` (one state, or a trajectory's summary) and `simulate`.

Joint values are shown in degrees (deg/s, deg/s²) for revolute joints and in the robot's length
unit for prismatic ones; torques in N·m or N, as the unit column says.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import kinematica as km

from ..textfmt import fields, gvector, matrix, table
from .text import heading


def _state_unit(robot: km.Robot, i: int, *suffixes: str) -> str:
    u = "deg" if robot.revolute[i] else robot.length_unit
    return ", ".join(u + s for s in suffixes)


def _torque_unit(robot: km.Robot, i: int) -> str:
    return "N·m" if robot.revolute[i] else "N"


def _gravity_line(data: dict[str, Any]) -> tuple[str, str]:
    return "gravity", gvector(data["gravity_vector"]) + " m/s²"


def _written_line(data: dict[str, Any]) -> tuple[str, str]:
    w = data["written"]
    if w is None:
        return "written", "nothing (--out FILE writes the trajectory, τ included)"
    return "written", f"{w['path']} ({w['format']}, angles in {w['angle_unit']}, with τ)"


def _state_table(robot: km.Robot, data: dict[str, Any]) -> str:
    rows = [[name, float(data["q_deg"][i]), float(data["qd_deg"][i]), float(data["qdd_deg"][i]),
             _state_unit(robot, i, "", "/s", "/s²")] for i, name in enumerate(robot.joint_names)]
    return table(["joint", "q", "q̇", "q̈", "unit"], rows, indent="  ", align="lrrrl")


def _torque_table(robot: km.Robot, data: dict[str, Any]) -> str:
    keys = ["tau", "inertial", "coriolis", "gravity"]
    heads = ["joint", "τ", "M(q) q̈", "C(q, q̇) q̇", "g(q)"]
    if np.any(np.asarray(data["friction"]) != 0):
        keys.append("friction")
        heads.append("friction")
    rows = [[name, *(float(data[k][i]) for k in keys), _torque_unit(robot, i)]
            for i, name in enumerate(robot.joint_names)]
    return table(heads + ["unit"], rows, indent="  ", align="l" + "r" * len(keys) + "l")


def point_text(robot: km.Robot, data: dict[str, Any]) -> str:
    """τ and its terms at one state, then the mass matrix."""
    names = list(robot.joint_names)
    terms = "M(q) q̈ + C(q, q̇) q̇ + g(q)" + (" + friction" if np.any(data["friction"]) else "")
    return "\n".join([
        heading(robot), "", fields([_gravity_line(data)]), "",
        "Joint state:", _state_table(robot, data), "",
        f"Joint torques, τ = {terms}:", _torque_table(robot, data), "",
        f"Mass matrix M(q) ({data['units']['M']}):",
        matrix(data["M"], decimals=6, row_labels=names, col_labels=names, indent="  ")])


def _peaks_table(robot: km.Robot, data: dict[str, Any]) -> str:
    rows = [[name, float(data["peak_tau"][i]), float(data["peak_tau_t"][i]),
             float(data["rms_tau"][i]), _torque_unit(robot, i)]
            for i, name in enumerate(robot.joint_names)]
    return table(["joint", "peak |τ|", "at t (s)", "rms τ", "unit"], rows, indent="  ",
                 align="lrrrl")


def trajectory_text(robot: km.Robot, data: dict[str, Any]) -> str:
    """The summary of `dynamics --trajectory`: where, how long, peak and RMS torque per joint."""
    span = (f"{data['samples']} samples, t = {data['t_start']:.6g} … {data['t_end']:.6g} s "
            f"(duration {data['duration']:.6g} s)")
    lines = [("trajectory", f"{data['trajectory']}: {span}"), _gravity_line(data), _written_line(data)]
    if data["replaced_tau"]:
        lines.append(("note", "the file carried torques; they are replaced by the ones computed here"))
    return "\n".join([heading(robot), "", fields(lines), "",
                      "Joint torques along the trajectory (Newton–Euler at every sample):",
                      _peaks_table(robot, data)])


_CONTROLLERS = {"none": "none (unactuated)",
                "hold": "hold q0: joint PD with gravity compensation (km.pd_gravity)"}


def _energy_lines(data: dict[str, Any]) -> list[tuple[str, str]]:
    lines = [("energy", f"{data['energy_start']:.6g} J at the start, {data['energy_end']:.6g} J at "
                        f"the end (change {data['energy_change']:.2g} J)")]
    if data["controller"] == "none" and not data["friction"]:
        lines.append(("note", "unactuated and frictionless: the energy change is the integration error"))
    return lines


def _motion_table(robot: km.Robot, data: dict[str, Any]) -> str:
    scale = robot.angle_scale
    rows = [[name, float(data["q0_deg"][i]), float(data["q_end_deg"][i]),
             float(data["max_abs_qd"][i] * scale[i]), _state_unit(robot, i, "", "/s"),
             float(data["peak_tau"][i]), _torque_unit(robot, i)]
            for i, name in enumerate(robot.joint_names)]
    return table(["joint", "q start", "q end", "max |q̇|", "unit", "peak |τ|", "unit"], rows,
                 indent="  ", align="lrrrlrl")


def simulate_text(robot: km.Robot, data: dict[str, Any]) -> str:
    """The summary of `simulate`: time, controller, energy, and the motion of every joint."""
    torques = _CONTROLLERS.get(data["controller"])
    if torques is None:
        units = "N·m" if np.all(robot.revolute) else "N·m or N"
        torques = f"constant τ = {gvector(data['torque'])} {units}"
    run = (f"{data['duration']:.6g} s, {data['samples']} samples every {data['dt']:.6g} s "
           f"({data['solver']}, {data['evaluations']} evaluations)")
    lines = [("simulated", run), ("torques", torques), _gravity_line(data), *_energy_lines(data),
             _written_line(data)]
    return "\n".join([heading(robot), "", fields(lines), "", "Joints:", _motion_table(robot, data)])
