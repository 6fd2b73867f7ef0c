"""What the Robot link card shows of an arm that reads its joints (the SO-101): for each joint
the measured and the commanded angle and their difference, the servo's load and temperature;
under them, how far apart the two tool points are (FK of each, in mm) and the servos' voltage.

    difference = measured − commanded        per joint, degrees
    tool gap   = ‖p(q_measured) − p(q_commanded)‖   at the tool point, mm

The commanded angles are the goal last sent (None before the first command since connecting).
Plain numpy: no NiceGUI.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import kinematica as km

TO_MM = {"m": 1000.0, "mm": 1.0}
COLUMNS = [  # the card's table (NiceGUI's ui.table columns)
    {"name": "joint", "label": "joint", "field": "joint", "align": "left"},
    {"name": "measured", "label": "measured °", "field": "measured"},
    {"name": "commanded", "label": "commanded °", "field": "commanded"},
    {"name": "difference", "label": "difference °", "field": "difference"},
    {"name": "load", "label": "load %", "field": "load"},
    {"name": "temperature", "label": "°C", "field": "temperature"},
]


def tool_gap_mm(robot: km.Robot, measured: np.ndarray, commanded: np.ndarray) -> float:
    """‖p(measured) − p(commanded)‖ at the tool point, in mm (robot length unit m or mm)."""
    p = km.fk(robot, np.stack([measured, commanded]))[:, :3, 3]
    return float(np.linalg.norm(p[0] - p[1]) * TO_MM[robot.length_unit])


def rows(robot: km.Robot, state: Any) -> list[dict[str, str]]:
    """One row a servo: the arm's joints (degrees) and the gripper (degrees of jaw opening, its
    goal not tracked here); `state` is a measured arm state (`So101State`)."""
    measured = np.degrees(state.q)
    commanded = None if state.commanded is None else np.degrees(state.commanded)
    out = []
    for j, name in enumerate(robot.joint_names):
        out.append({"joint": name, "measured": f"{measured[j]:.2f}",
                    "commanded": "—" if commanded is None else f"{commanded[j]:.2f}",
                    "difference": "—" if commanded is None else f"{measured[j] - commanded[j]:+.2f}",
                    "load": f"{state.load[j]:+.0f}", "temperature": f"{state.temperature[j]}"})
    out.append({"joint": "gripper", "measured": f"{state.gripper:.2f}", "commanded": "—", "difference": "—",
                "load": f"{state.load[-1]:+.0f}", "temperature": f"{state.temperature[-1]}"})
    return out


def summary(robot: km.Robot, state: Any) -> str:
    """The line under the table: the tool gap (or that nothing was commanded yet) and the voltage."""
    lo, hi = min(state.voltage), max(state.voltage)
    volts = f"servos at {lo:.1f} V" if lo == hi else f"servos at {lo:.1f} … {hi:.1f} V"
    if state.commanded is None:
        return f"nothing commanded since connecting: the arm is where it was found; {volts}"
    gap = tool_gap_mm(robot, state.q, state.commanded)
    worst = int(np.argmax(np.abs(state.q - state.commanded)))
    return (f"measured − commanded: tool {gap:.1f} mm apart (FK of each), largest joint difference "
            f"{np.degrees(state.q - state.commanded)[worst]:+.2f}° ({robot.joint_names[worst]}); {volts}")
