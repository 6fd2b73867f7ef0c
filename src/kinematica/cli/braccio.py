"""`kinematica braccio ports | emulate | firmware | home | move | play`: the physical Braccio.

`ports` lists this machine's serial ports; `emulate` runs a virtual Braccio on 127.0.0.1 (or a
pseudo-terminal) until Ctrl+C, optionally misbehaving; `firmware --out DIR` writes the Arduino
sketch; `home`, `move` and `play` drive an arm (or the emulator) on `--port URL` (any pyserial
URL: /dev/ttyACM0, COM4, socket://127.0.0.1:PORT). Every command is checked before anything is
sent: a joint outside its limits, a servo outside its range, a speed over the limit is refused
(exit 2) naming the joint, the value and the limit. A link that fails (no banner, a timeout, the
port gone, garbage) exits 1; `play` prints its report first (points sent, acknowledged, the last
acknowledged index). Ctrl+C during `play` sends S (stop now) to the arm, then exits 130. Hobby
servos report no position: every state shown is the one the board last commanded.
"""

from __future__ import annotations

import argparse
import math
from typing import Any, Callable, TextIO


import kinematica as km

from ..extras import need
from .. import bounds
from ..hardware import (STATE_NOTE, ArmState, Braccio, CalibrationError, CommandRefused, Emulator, LinkError,
                        Misbehaviour, load_calibration)
from ..hardware import protocol as pr
from ..hardware.limits import check_speed
from ..hardware.sketch import SKETCH, write_firmware
from ..export.jointstate import DEFAULT_URL, JointStateSender, StreamError, resolve
from .common import JSON_HELP, Failure, UsageError, emit, finite_numbers, joint_values, load_robot, q_deg

ARDUINO_VIDS = {0x2341: "Arduino", 0x2A03: "Arduino", 0x1A86: "CH340 (Arduino clone)", 0x0403: "FTDI"}


# --- ports, firmware, emulate ---------------------------------------------------------------------
def cmd_ports(args: argparse.Namespace, out: TextIO) -> int:
    list_ports = need("serial.tools.list_ports", "hardware", "kinematica braccio ports")
    ports = [{"device": p.device, "description": p.description, "hwid": p.hwid,
              "maker": ARDUINO_VIDS.get(p.vid) if p.vid is not None else None}
             for p in sorted(list_ports.comports(), key=lambda p: p.device)]
    return emit(args, {"ports": ports}, _ports_text, out)


def _ports_text(d: dict[str, Any]) -> str:
    if not d["ports"]:
        return "No serial ports found. Plug the Braccio's Arduino in, or rehearse with `kinematica braccio emulate`."
    lines = ["Serial ports (give one to --port):"]
    w = max(len(p["device"]) for p in d["ports"])
    for p in d["ports"]:
        maker = f"  [{p['maker']}]" if p["maker"] else ""
        lines.append(f"  {p['device']:<{w}}  {p['description']}{maker}")
    return "\n".join(lines)


def cmd_firmware(args: argparse.Namespace, out: TextIO) -> int:
    try:
        path = write_firmware(args.out, overwrite=args.force)
    except (FileExistsError, FileNotFoundError, NotADirectoryError) as e:
        raise UsageError(f"--out: {e}") from None
    data = {"path": str(path), "sketch": SKETCH, "protocol": pr.VERSION,
            "upload": f"arduino-cli compile --upload -b arduino:avr:uno -p PORT {path.parent}"}
    return emit(args, data, lambda d: (f"Wrote {d['path']} (protocol v{d['protocol']}). Open it in the Arduino "
                                       f"IDE and upload it to the Braccio's Uno, or:\n  {d['upload']}"), out)


def _count(value: str, flag: str) -> int:
    try:
        number = float(value)
    except ValueError:
        raise UsageError(f"{flag}: expected a whole number, got {value!r}") from None
    return bounds.count(number, flag, bounds.SAMPLES, error=UsageError)


def misbehaviour(args: argparse.Namespace) -> Misbehaviour:
    delay = None
    if args.delay is not None:
        n, sep, seconds = args.delay.partition(":")
        s = finite_numbers([seconds], "--delay")[0] if sep else float("nan")
        if not sep or not 0 < s <= 3600:
            raise UsageError(f"--delay: expected N:SECONDS (the N-th line sent, 0 < SECONDS <= 3600), "
                             f"got {args.delay!r}")
        delay = (_count(n, "--delay"), float(s))
    return Misbehaviour(drop=None if args.drop is None else _count(args.drop, "--drop"), delay=delay,
                        garble=None if args.garble is None else _count(args.garble, "--garble"),
                        disconnect_after=None if args.disconnect_after is None
                        else _count(args.disconnect_after, "--disconnect-after"))


def cmd_emulate(args: argparse.Namespace, out: TextIO) -> int:
    if args.tcp is not None and not 0 <= args.tcp < 65536:
        raise UsageError(f"--tcp must be a port between 0 (any free one) and 65535, got {args.tcp}")
    emu = Emulator(misbehaviour(args))
    try:
        url = emu.start_pty() if args.pty else emu.start_tcp(args.tcp or 0)
    except OSError as e:
        raise UsageError(f"cannot serve the emulator: {e}") from None
    mis = {k: v for k, v in vars(emu.misbehaviour).items() if v is not None}
    data = {"url": url, "protocol": pr.VERSION, "misbehaviour": mis}
    emit(args, data, lambda d: (f"Braccio emulator (protocol v{d['protocol']}) on {d['url']}"
                                + (f", misbehaving: {d['misbehaviour']}" if d["misbehaviour"] else "")
                                + f"; connect with --port {d['url']}. Ctrl+C stops it."), out)
    out.flush()
    try:
        while not emu.wait(3600):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        emu.stop()
    received, sent = emu.log()
    if not args.json:
        out.write(f"Emulator stopped: {emu.connections} connection(s), {len(received)} lines received, "
                  f"{len(sent)} sent; the arm is at {emu.degrees()} (servo degrees M1…M6)\n")
    return 0


# --- arm commands --------------------------------------------------------------------------------
def _arm(args: argparse.Namespace) -> Braccio:
    robot = load_robot(args.robot)
    if args.stream is not None:  # a bad address is refused before the port opens
        try:
            resolve(args.stream)
        except StreamError as e:
            raise UsageError(f"--stream: {e}") from None
    try:
        cal = load_calibration(args.calibration) if args.calibration else None
        return Braccio(args.port, robot, cal, timeout=args.timeout, ready_timeout=args.ready_timeout)
    except CalibrationError as e:
        raise UsageError(f"--calibration: {e}") from None
    except CommandRefused as e:  # a robot the bridge cannot drive
        raise UsageError(f"--robot: {e}") from None
    except ValueError as e:  # a timeout that is not a positive number
        raise UsageError(f"--timeout/--ready-timeout: {e}") from None


def _sender(args: argparse.Namespace, robot: km.Robot) -> JointStateSender | None:
    """The joint-state stream of --stream URL, or None."""
    if args.stream is None:
        return None
    try:
        return JointStateSender(args.stream, robot, source="braccio")
    except (StreamError, OSError) as e:
        raise UsageError(f"--stream: {e}") from None


def _streamed(args: argparse.Namespace, state: dict[str, Any]) -> dict[str, Any]:
    """The state, after sending its q on the --stream (if any)."""
    if args.sender is not None:
        args.sender.send(state["q"])
    return state


def _run(args: argparse.Namespace, arm: Braccio, work: Callable[[Braccio], dict[str, Any]]) -> dict[str, Any]:
    """Connect, do the work, close (the joint-state stream too); a failed link is a Failure (exit 1)."""
    args.sender = _sender(args, arm.robot)
    try:
        with arm:
            data = work(arm)
    except LinkError as e:
        raise Failure(f"{args.port}: {e}") from None
    finally:
        if args.sender is not None:
            args.sender.close()
    return {"port": args.port, "robot": arm.robot.name, "length_unit": arm.robot.length_unit, **data}


def state_data(robot: km.Robot, s: ArmState) -> dict[str, Any]:
    return {"servos": list(pr.SERVOS), "degrees": list(s.degrees), "q": s.q, "q_deg": q_deg(robot, s.q),
            "gripper_deg": s.gripper, "joint_names": list(robot.joint_names), "note": s.note}


def state_text(d: dict[str, Any]) -> str:
    s = d["state"]
    names = [*s["joint_names"], "gripper"]
    w = max(map(len, names))
    rows = [f"  {name:<{w}}  servo {deg:>3}°" + (f"   q = {q:8.3f}°" if i < 5 else "")
            for i, (name, deg, q) in enumerate(zip(names, s["degrees"], [*s["q_deg"], None]))]
    return f"State of the arm on {d['port']} ({STATE_NOTE}):\n" + "\n".join(rows)


def cmd_home(args: argparse.Namespace, out: TextIO) -> int:
    arm = _arm(args)
    check_speed(args.speed, pr.DEFAULT_BANNER)  # before the port opens: that resets an Uno

    def work(arm: Braccio) -> dict[str, Any]:
        rep = arm.home(speed=args.speed)
        return {"duration": rep.duration, "state": _streamed(args, state_data(arm.robot, arm.state()))}

    return emit(args, _run(args, arm, work), lambda d: f"Homed in {d['duration']:.2f} s.\n" + state_text(d), out)


def cmd_move(args: argparse.Namespace, out: TextIO) -> int:
    arm = _arm(args)
    robot = arm.robot
    q = joint_values(robot, args.q, args.deg)
    arm.check_move(q, args.speed, args.gripper)  # before the port opens: that resets an Uno

    def work(arm: Braccio) -> dict[str, Any]:
        rep = arm.move(q, speed=args.speed, gripper=args.gripper)
        return {"q": q, "q_deg": q_deg(robot, q), "degrees_sent": list(rep.degrees), "duration": rep.duration,
                "quantisation_error": rep.quantisation_error,
                "state": _streamed(args, state_data(arm.robot, arm.state()))}

    def text(d: dict[str, Any]) -> str:
        return (f"Moved in {d['duration']:.2f} s to servo degrees {d['degrees_sent']}; whole degrees put the tool "
                f"{d['quantisation_error']:.3f} {d['length_unit']} from the exact q.\n" + state_text(d))

    return emit(args, _run(args, arm, work), text, out)


def cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    arm = _arm(args)
    robot = arm.robot
    try:
        tr = km.trajectory.load(args.file)
    except FileNotFoundError as e:
        raise UsageError(str(e)) from None
    if tuple(tr.joint_names) != tuple(robot.joint_names):
        raise UsageError(f"{args.file}: its joints ({', '.join(tr.joint_names)}) are not those of {robot.name} "
                         f"({', '.join(robot.joint_names)})")
    if args.rate is not None and not (math.isfinite(args.rate) and args.rate > 0):
        raise UsageError(f"--rate: expected a positive number of points per second, got {args.rate}")

    arm.check_play(tr, args.rate, args.gripper, args.speed)  # before the port opens: that resets an Uno

    def work(arm: Braccio) -> dict[str, Any]:
        stream = args.sender
        res = arm.play(tr, rate=args.rate, gripper=args.gripper, speed=args.speed,
                       on_point=None if stream is None else lambda k, q, t: stream.send(q, t=t))
        state = state_data(arm.robot, res.final_state) if res.final_state is not None else None
        return {"file": args.file, "rate": args.rate, "duration": tr.duration, "points": res.points,
                "sent": res.sent, "acknowledged": res.acknowledged, "last_acknowledged": res.last_acknowledged,
                "ok": res.ok, "reason": res.reason, "elapsed": res.elapsed,
                "max_quantisation_error": res.max_quantisation_error, "state": state}

    data = _run(args, arm, work)
    emit(args, data, _play_text, out)
    if not data["ok"]:
        raise Failure(f"the stream stopped after point {data['last_acknowledged']}: {data['reason']}")
    return 0


def _play_text(d: dict[str, Any]) -> str:
    at = f"resampled at ≤ {d['rate']:g} Hz" if d["rate"] else "at its own sample times"
    lines = [f"Played {d['file']} on {d['port']}: {d['points']} points {at} ({d['duration']:.2f} s of motion)",
             f"  sent {d['sent']}, acknowledged {d['acknowledged']}, last acknowledged point {d['last_acknowledged']}",
             f"  {d['reason']}",
             f"  took {d['elapsed']:.2f} s; whole servo degrees cost up to {d['max_quantisation_error']:.3f} "
             f"{d['length_unit']} at the tool"]
    return "\n".join(lines) + ("\n" + state_text(d) if d["state"] else "")


# --- parser ----------------------------------------------------------------------------------------
def _arm_options(p: argparse.ArgumentParser, speed_default: int) -> None:
    p.add_argument("--port", required=True, metavar="URL",
                   help="the arm's serial port or a pyserial URL (/dev/ttyACM0, COM4, socket://127.0.0.1:PORT "
                        "for the emulator)")
    p.add_argument("--stream", metavar="URL", nargs="?", const=DEFAULT_URL, default=None,
                   help=f"send the arm's joint states as JSON lines over UDP to URL (default {DEFAULT_URL}; "
                        "schema in docs/joint-state-stream.md): play sends each point as the board reaches it, home "
                        "and move the state after the move")
    p.add_argument("--robot", default="braccio", metavar="ROBOT",
                   help="the model whose servo mapping and limits apply (default braccio)")
    p.add_argument("--calibration", metavar="FILE", help="per-servo offsets and directions (YAML or JSON)")
    p.add_argument("--speed", type=float, default=speed_default, metavar="DEG_S",
                   help=f"°/s of the servo that moves furthest, {pr.SPEED_RANGE[0]}–{pr.SPEED_RANGE[1]} "
                        f"(default {speed_default})")
    p.add_argument("--timeout", type=float, default=1.0, metavar="S",
                   help="seconds to wait for each reply beyond the motion's own time (default 1)")
    p.add_argument("--ready-timeout", type=float, default=5.0, metavar="S",
                   help="seconds to wait for the board's READY banner after opening the port (default 5: an "
                        "Uno resets when its port opens and boots in about 2 s)")


def add_parser(sub: Any) -> None:
    """The subparser of braccio and its actions."""
    p = sub.add_parser("braccio", help="the physical Braccio: serial ports, emulator, firmware, home, move, play",
                       description="Drive a Tinkerkit Braccio running Kinematica's firmware over a serial port, "
                                   "or rehearse with the emulator. Hobby servos report no position: the state "
                                   "shown is the one the board last commanded.")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    ports = actions.add_parser("ports", help="list this machine's serial ports")
    ports.set_defaults(func=cmd_ports)
    fw = actions.add_parser("firmware", help="write the Arduino sketch to upload to the Braccio's Uno")
    fw.add_argument("--out", required=True, metavar="DIR", help=f"folder to write {SKETCH}/{SKETCH}.ino into")
    fw.add_argument("--force", action="store_true", help="overwrite a sketch there that differs")
    fw.set_defaults(func=cmd_firmware)
    emu = actions.add_parser("emulate", help="a virtual Braccio on 127.0.0.1 until Ctrl+C",
                             description="Serve a virtual Braccio speaking the same protocol; it moves its servos "
                                         "in real time. Lines are counted from 1 after the banner.")
    where = emu.add_mutually_exclusive_group()
    where.add_argument("--tcp", type=int, metavar="PORT", help="TCP port on 127.0.0.1 (default: any free one)")
    where.add_argument("--pty", action="store_true", help="serve on a pseudo-terminal instead (its path is printed)")
    emu.add_argument("--drop", metavar="N", help="lose the N-th line sent")
    emu.add_argument("--delay", metavar="N:SECONDS", help="send the N-th line, and all after it, SECONDS late")
    emu.add_argument("--garble", metavar="N", help="damage one character of the N-th line sent")
    emu.add_argument("--disconnect-after", metavar="N", help="drop the connection after N lines received")
    emu.set_defaults(func=cmd_emulate)
    home = actions.add_parser("home", help="move to the safety position (90, 45, 180, 180, 90, 10)")
    _arm_options(home, pr.HOME_SPEED)
    home.set_defaults(func=cmd_home)
    move = actions.add_parser("move", help="move to joint values (all joints arrive together)")
    move.add_argument("q", nargs="+", metavar="Q", help="joint values M1…M5 (rad; degrees with --deg)")
    move.add_argument("--deg", action="store_true", help="joint values in degrees")
    move.add_argument("--gripper", type=float, metavar="DEG", help="gripper servo degrees, 10 open … 73 closed")
    _arm_options(move, 60)
    move.set_defaults(func=cmd_move)
    play = actions.add_parser("play", help="play a trajectory file (from `kinematica traj --out`) on the arm")
    play.add_argument("file", metavar="FILE", help="trajectory .csv or .json")
    play.add_argument("--rate", type=float, metavar="HZ",
                      help="resample at HZ points per second (default: its samples)")
    play.add_argument("--gripper", type=float, metavar="DEG", help="gripper servo degrees during the motion")
    _arm_options(play, 60)
    play.set_defaults(func=cmd_play)
    for action in actions.choices.values():
        action.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help=JSON_HELP)
