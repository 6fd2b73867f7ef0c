"""What each arm command does on a connected Braccio, as plain data — the same whether the
command opened the port itself or runs in the link of `kinematica braccio connect`.

A handler takes the arm, the request ({"speed", "q", "gripper", "file", "rate"} as the command
needs) and `on_point(k, q, t)` for a play's acknowledged points, and returns the data the
command prints. `state_text` and `play_text` are the table views.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

import kinematica as km

from ..hardware import STATE_NOTE, ArmState, Braccio, LinkError
from ..hardware import protocol as pr
from .common import q_deg

OnPoint = Callable[..., None] | None


def state_data(robot: km.Robot, s: ArmState) -> dict[str, Any]:
    return {"servos": list(pr.SERVOS), "degrees": list(s.degrees), "q": s.q, "q_deg": q_deg(robot, s.q),
            "gripper_deg": s.gripper, "joint_names": list(robot.joint_names), "measured": s.measured,
            "note": s.note}


def state_text(d: dict[str, Any]) -> str:
    s = d["state"]
    names = [*s["joint_names"], "gripper"]
    w = max(map(len, names))
    rows = [f"  {name:<{w}}  servo {deg:>3}°" + (f"   q = {q:8.3f}°" if i < 5 else "")
            for i, (name, deg, q) in enumerate(zip(names, s["degrees"], [*s["q_deg"], None], strict=True))]
    return f"State of the arm on {d['port']} ({STATE_NOTE}):\n" + "\n".join(rows)


def do_home(arm: Braccio, req: dict[str, Any], on_point: OnPoint) -> dict[str, Any]:
    rep = arm.home(speed=req["speed"])
    return {"duration": rep.duration, "stopped": rep.stopped, "state": state_data(arm.robot, arm.state())}


def do_move(arm: Braccio, req: dict[str, Any], on_point: OnPoint) -> dict[str, Any]:
    q = np.asarray(req["q"], dtype=float)
    rep = arm.move(q, speed=req["speed"], gripper=req.get("gripper"))
    return {"q": q, "q_deg": q_deg(arm.robot, q), "degrees_sent": list(rep.degrees), "duration": rep.duration,
            "stopped": rep.stopped, "quantisation_error": rep.quantisation_error,
            "state": state_data(arm.robot, arm.state())}


def do_play(arm: Braccio, req: dict[str, Any], on_point: OnPoint) -> dict[str, Any]:
    tr = km.trajectory.load(req["file"])
    res = arm.play(tr, rate=req.get("rate"), gripper=req.get("gripper"), speed=req["speed"], on_point=on_point)
    state = state_data(arm.robot, res.final_state) if res.final_state is not None else None
    return {"file": req["file"], "rate": req.get("rate"), "duration": tr.duration, "points": res.points,
            "sent": res.sent, "acknowledged": res.acknowledged, "last_acknowledged": res.last_acknowledged,
            "last_executed": res.last_executed, "ok": res.ok, "reason": res.reason, "elapsed": res.elapsed,
            "stall": res.stall, "stalls": res.stalls, "warning": res.warning,
            "max_quantisation_error": res.max_quantisation_error, "state": state}


def do_stop(arm: Braccio, req: dict[str, Any], on_point: OnPoint) -> dict[str, Any]:
    return {"state": state_data(arm.robot, arm.stop())}


def do_state(arm: Braccio, req: dict[str, Any], on_point: OnPoint) -> dict[str, Any]:
    return {"state": state_data(arm.robot, arm.state())}


def interrupted(arm: Braccio, action: str) -> dict[str, Any]:
    """Ctrl+C on a link of its own: a play has sent S and kept its result; a move is stopped."""
    if action == "play" and arm.last_result is not None:
        res = arm.last_result
        return {"reason": res.reason, "state": None if res.final_state is None else
                {"degrees": list(res.final_state.degrees)}}
    try:
        return {"reason": "interrupted (Ctrl+C): S sent", "state": {"degrees": list(arm.stop().degrees)}}
    except LinkError as e:
        return {"reason": f"interrupted (Ctrl+C); S not confirmed: {e}", "state": None}


def say_stopped(action: str, data: dict[str, Any]) -> None:
    """Where a command stopped by Ctrl+C left the arm, on stderr (before main's one line)."""
    reason = data.get("reason") or "stopped (Ctrl+C)"
    held = (data.get("state") or {}).get("degrees")
    where = f"; the board holds the arm at servo degrees {held}" if held and "holds at" not in reason else ""
    sys.stderr.write(f"kinematica: braccio {action}: {reason}{where}\n")


HANDLERS = {"home": do_home, "move": do_move, "play": do_play, "stop": do_stop, "state": do_state}


def play_text(d: dict[str, Any]) -> str:
    at = f"resampled at ≤ {d['rate']:g} Hz" if d["rate"] else "at its own sample times"
    lines = [f"Played {d['file']} on {d['port']}: {d['points']} points {at} ({d['duration']:.2f} s of motion)",
             f"  sent {d['sent']}, acknowledged {d['acknowledged']}, last acknowledged point {d['last_acknowledged']}"
             + (f", last reported reached {d['last_executed']}" if d["last_executed"] != d["last_acknowledged"] else ""),
             f"  {d['reason']}",
             f"  took {d['elapsed']:.2f} s; whole servo degrees cost up to {d['max_quantisation_error']:.3f} "
             f"{d['length_unit']} at the tool"]
    return "\n".join(lines) + ("\n" + state_text(d) if d["state"] else "")
