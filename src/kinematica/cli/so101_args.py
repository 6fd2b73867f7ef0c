"""The arguments of `kinematica so101`'s actions (the handlers are in so101.py)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ..export import jointstate
from .common import JSON_HELP

ARM_HELP = ("which arm: so101 (default) or so100, the SO-101's predecessor with the same servos; its model "
            "gives the joint values, limits, middle pose and servo senses")


def _arm(p: argparse.ArgumentParser, help: str = ARM_HELP) -> None:
    p.add_argument("--arm", choices=("so100", "so101"), default="so101", help=help)


def _bus(p: argparse.ArgumentParser, speed: bool = False, stream: bool = False) -> None:
    p.add_argument("--port", required=True, metavar="URL",
                   help="the bus adapter's port (/dev/ttyACM0, COM5) or a pyserial URL (socket://127.0.0.1:PORT)")
    p.add_argument("--calibration", metavar="FILE", help="the servo calibration from `kinematica so101 calibrate` "
                                                         "(made on the same --arm)")
    _arm(p)
    if stream:
        p.add_argument("--stream", metavar="URL", nargs="?", const=jointstate.DEFAULT_URL, default=None,
                       help=f"send the measured joint states as JSON lines over UDP (default {jointstate.DEFAULT_URL}; "
                            "schema in docs/joint-state-stream.md): play sends every cycle's reading")
    if speed:
        p.add_argument("--speed", type=float, default=1.0, metavar="RAD/S",
                       help="speed of the joint that moves furthest (default 1 rad/s)")


def add_actions(p: argparse.ArgumentParser, handlers: dict[str, Callable[..., int]]) -> None:
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("ports", help="list this machine's serial ports")
    emu = actions.add_parser("emulate", help="a virtual SO-101 (or SO-100) bus on 127.0.0.1 until Ctrl+C",
                             description="Serve six emulated STS3215 servos (ids 1-6) speaking Feetech's protocol; "
                                         "they move in real time within their speed and acceleration limits. "
                                         "N counts the packets a servo has received (for --corrupt, its answers).")
    where = emu.add_mutually_exclusive_group()
    where.add_argument("--tcp", type=int, metavar="PORT", help="TCP port on 127.0.0.1 (default: any free one)")
    where.add_argument("--pty", action="store_true", help="serve on a pseudo-terminal instead (its path is printed)")
    emu.add_argument("--noise", default="0", metavar="TICKS", help="standard deviation of the position readings")
    emu.add_argument("--backlash", default="0", metavar="TICKS", help="gear backlash, peak to peak")
    emu.add_argument("--sag", default="0", metavar="TICKS", help="gravity sag: how far short of its goal a servo holds")
    emu.add_argument("--silent", metavar="ID:N", help="servo ID answers nothing from its N-th packet on")
    emu.add_argument("--corrupt", metavar="ID:N:K", help="servo ID's answers N … N+K-1 are damaged (K=0: all from N)")
    emu.add_argument("--overload", metavar="ID:N", help="servo ID flags overload at its N-th packet")
    emu.add_argument("--overheat", metavar="ID:N", help="servo ID flags over-temperature at its N-th packet")
    emu.add_argument("--seconds", type=float, metavar="S", help="stop after S seconds (default: at Ctrl+C)")
    _bus(actions.add_parser("state", help="the measured state: joints, ticks, speed, load, voltage, temperature"),
         stream=True)
    _bus(actions.add_parser("home", help="move to the robot file's home (every servo at its middle tick)"), True, True)
    move = actions.add_parser("move", help="move to joint values (all joints arrive together)")
    move.add_argument("q", nargs="+", metavar="Q", help="joint values shoulder_pan … wrist_roll (rad; degrees with --deg)")
    move.add_argument("--deg", action="store_true", help="joint values in degrees")
    move.add_argument("--gripper", type=float, metavar="DEG", help="jaw opening in degrees (0 closed … 100 open)")
    _bus(move, True, True)
    play = actions.add_parser("play", help="stream a trajectory file with sync write + sync read and report the "
                                           "tracking error per joint and at the tool")
    play.add_argument("file", metavar="FILE", help="trajectory .csv or .json (from `kinematica traj --out`)")
    play.add_argument("--rate", type=float, default=50.0, metavar="HZ", help="cycles per second (default 50)")
    play.add_argument("--gripper", type=float, metavar="DEG", help="jaw opening during the motion (default: as it is)")
    play.add_argument("--plot", metavar="PNG", help="also plot commanded and measured joints to this image")
    _bus(play, True, True)
    cal = actions.add_parser("calibrate", help="zero the servos in the middle pose and record each joint's range "
                                               "moved by hand (torque off)")
    cal.add_argument("--out", required=True, metavar="FILE", help="the calibration file to write (.json)")
    cal.add_argument("--seconds", type=float, default=20.0, metavar="S", help="time to move the joints (default 20)")
    _bus(cal)
    rec = actions.add_parser("record", help="record a motion moved by hand (torque off) as a trajectory file")
    rec.add_argument("--out", required=True, metavar="FILE", help="trajectory .csv or .json to write")
    rec.add_argument("--seconds", type=float, default=10.0, metavar="S", help="how long to record (default 10)")
    rec.add_argument("--rate", type=float, default=50.0, metavar="HZ", help="readings per second (default 50)")
    _bus(rec)
    _teleop(actions.add_parser("teleop", help="a leader arm moved by hand (torque off) drives a follower",
                               description="Read the leader's joints each cycle (sync read), map them through both "
                                           "calibrations, hold them within the follower's limits and ranges and a "
                                           "step per cycle (and out of collision with --scene), and send them to "
                                           "the follower (sync write), until --seconds or Ctrl+C. A fault on either "
                                           "bus stops both, naming the arm, the joint and the reason."))
    off = actions.add_parser("offsets", help="kinematic calibration: the joints' offsets from the tool point put on "
                                             "known points by hand (torque off)",
                             description="For each point of --points, put the tool point on it and press Enter; the "
                                         "joints read there give each joint's offset by least squares "
                                         "(km.identify_offsets), written into --out as the calibration with those "
                                         "offsets. Nothing is written when the poses cannot tell an offset apart.")
    off.add_argument("--points", required=True, metavar="FILE",
                     help="the known points, one `x, y, z` line each (CSV, the robot's length unit, base frame)")
    off.add_argument("--out", required=True, metavar="FILE", help="the calibration file to write (.json)")
    _bus(off)
    for name, action in actions.choices.items():
        action.set_defaults(func=handlers[name])
        action.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help=JSON_HELP)



def _teleop(p: argparse.ArgumentParser) -> None:
    for side in ("leader", "follower"):
        p.add_argument(f"--{side}", required=True, metavar="URL", help=f"the {side}'s bus adapter or pyserial URL")
        p.add_argument(f"--{side}-calibration", metavar="FILE", help=f"the {side}'s `so101 calibrate` file")
    _arm(p, "which arms, leader and follower alike: so101 (default) or so100 (their joint values differ, so a "
            "pair of one each is not mirrored)")
    p.add_argument("--rate", type=float, default=50.0, metavar="HZ", help="cycles per second (default 50)")
    p.add_argument("--max-step", type=float, default=5.0, metavar="DEG",
                   help="the most any joint's goal changes in one cycle (default 5°: 250°/s at 50 Hz)")
    p.add_argument("--seconds", type=float, metavar="S", help="stop after S seconds (default: at Ctrl+C)")
    p.add_argument("--speed", type=float, default=1.0, metavar="RAD/S",
                   help="speed of the follower's first move to the leader's pose (default 1 rad/s)")
    p.add_argument("--scene", metavar="SCENE", help="a bundled scene or scene file: goals where the follower would "
                                                    "collide are not sent (it holds)")
    p.add_argument("--scene-robot", metavar="NAME", help="the follower's name in --scene (default: its only robot)")
    p.add_argument("--stream", metavar="URL", nargs="?", const=jointstate.DEFAULT_URL, default=None,
                   help=f"send the follower's measured joint states as JSON lines over UDP (default {jointstate.DEFAULT_URL})")
