"""`kinematica so101 teleop --leader URL --follower URL`: a leader SO-101 moved by hand drives a
follower SO-101 (`hardware.so101_teleop`), each on its own bus, until --seconds or Ctrl+C; the
report per joint; a fault on either bus exits 1 after the report, naming the arm and the joint.
`--arm so100` makes both SO-100s."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

import numpy as np

from ..export import JointStateSender, StreamError, jointstate
from ..hardware import BusError, CommandRefused, So101
from ..hardware.so101_calibration import ARMS, NAMES, So101CalibrationError
from ..hardware.so101_teleop import TeleopReport, check_session, teleop
from ..scene import SceneError
from ..textfmt import table
from .common import Failure, UsageError, emit, load_robot


def _seat(args: argparse.Namespace, follower_joints: tuple[str, ...]) -> Any:
    """The follower's seat in --scene (its robot: --scene-robot, or the scene's only one), or None."""
    if args.scene is None:
        return None
    import kinematica as km

    try:
        scene = km.Scene.load(args.scene)
    except (SceneError, OSError) as e:
        raise UsageError(f"--scene: {e}") from None
    name = args.scene_robot
    if name is None and len(scene.robots) != 1:
        raise UsageError(f"--scene-robot: the scene has {len(scene.robots)} robots ({', '.join(scene.robots)}): "
                         "name the follower")
    name = name or next(iter(scene.robots))
    if name not in scene.robots:
        raise UsageError(f"--scene-robot: unknown robot {name!r}: the scene has {', '.join(scene.robots)}")
    model = scene.robots[name].robot.name
    if model in ARMS and model != args.arm:  # the same joint names, other joint values
        raise UsageError(f"--scene-robot: {name!r} is the {ARMS[model]} model, but --arm is {args.arm}: give "
                         f"--arm {model}, or a scene with the {ARMS[args.arm]}")
    if tuple(scene.robots[name].robot.joint_names) != follower_joints:
        raise UsageError(f"--scene-robot: {name!r} has joints {', '.join(scene.robots[name].robot.joint_names)}, "
                         f"not the follower's ({', '.join(follower_joints)})")
    return scene.for_robot(name)


def _open(side: str, url: str, calibration: str | None, robot: str) -> So101:
    try:
        arm = So101(url, robot=robot, calibration=calibration)
    except So101CalibrationError as e:
        raise UsageError(f"--{side}-calibration: {e}") from None
    try:
        arm.connect()
    except BusError as e:
        raise Failure(f"{side} on {url}: {e}") from None
    return arm


def cmd_teleop(args: argparse.Namespace, out: TextIO) -> int:
    if args.leader == args.follower:
        raise UsageError(f"--leader and --follower are both {args.leader}: they are two arms on two buses")
    try:  # everything refused before a bus opens
        check_session(args.rate, float(np.radians(args.max_step)), args.seconds)
    except CommandRefused as e:
        raise UsageError(str(e)) from None
    if args.stream is not None:
        try:
            jointstate.resolve(args.stream)
        except StreamError as e:
            raise UsageError(f"--stream: {e}") from None
    seat = _seat(args, tuple(load_robot(args.arm).joint_names))
    leader = _open("leader", args.leader, args.leader_calibration, args.arm)
    follower = None
    sender = None
    try:
        follower = _open("follower", args.follower, args.follower_calibration, args.arm)
        sender = None if args.stream is None else JointStateSender(args.stream, follower.robot, source="so101")

        def streamed(t: float, st: Any) -> None:
            if sender is not None:
                sender.send(st.q, t=t, measured=True, extra={"commanded": st.commanded, "load": st.load[:5],
                                                             "temperature": st.temperature[:5],
                                                             "voltage": st.voltage[:5]})

        report = teleop(leader, follower, args.rate, float(np.radians(args.max_step)), seconds=args.seconds,
                        seat=seat, speed=args.speed, on_cycle=streamed)
    except CommandRefused as e:
        raise UsageError(str(e)) from None
    finally:
        for arm in (leader, follower):
            if arm is not None:
                arm.close()
        if sender is not None:
            sender.close()
    emit(args, report_data(report, args), report_text, out)
    if not report.ok:
        sys.stderr.write(f"kinematica: error: {report.reason}\n")
    return 0 if report.ok else 1


def report_data(r: TeleopReport, args: argparse.Namespace) -> dict[str, Any]:
    """The session as plain data (angles in degrees; the gripper's is its servo's)."""
    return {"ok": r.ok, "reason": r.reason, "leader": args.leader, "follower": args.follower, "cycles": r.cycles,
            "sent": r.sent, "elapsed": r.elapsed, "rate": r.rate, "late": r.late, "max_step_deg": args.max_step,
            "collisions": r.collisions, "collision": r.collision,
            "joints": [{"name": n, "limited": int(a), "stepped": int(b), "lag_rms_deg": _deg(c), "lag_max_deg": _deg(d)}
                       for n, a, b, c, d in zip(NAMES, r.limited, r.stepped, r.lag_rms, r.lag_max, strict=True)],
            "last_leader_deg": None if not r.cycles else np.degrees(r.leader[-1]).tolist(),
            "last_goal_deg": None if not r.cycles else np.degrees(r.goals[-1]).tolist()}


def _deg(v: float) -> float | None:
    return None if np.isnan(v) else float(np.degrees(v))


def report_text(d: dict[str, Any]) -> str:
    head = (f"{'Teleoperated' if d['ok'] else 'Stopped'}: {d['cycles']} cycles in {d['elapsed']:.2f} s "
            f"({d['rate']:.1f} Hz, {d['late']} late), {d['sent']} goals sent\n{d['reason']}")
    rows = [[j["name"], j["limited"], j["stepped"], "—" if j["lag_rms_deg"] is None else f"{j['lag_rms_deg']:.3f}",
             "—" if j["lag_max_deg"] is None else f"{j['lag_max_deg']:.3f}"] for j in d["joints"]]
    lines = [head, f"Per joint: cycles held at the follower's bound, cut to {d['max_step_deg']:g}° a cycle, and the "
                   "lag (follower one cycle after each goal − the goal):",
             table(["joint", "at bound", "step-limited", "lag RMS (deg)", "lag max (deg)"], rows, align="lrrrr")]
    if d["collisions"]:
        lines.append(f"{d['collisions']} goals not sent (the follower would collide); first at {d['collision']}")
    return "\n".join(lines)
