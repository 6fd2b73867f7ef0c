"""`kinematica braccio ports | emulate | firmware | connect | home | move | play | stop | state`.

`ports` lists this machine's serial ports; `emulate` runs a virtual Braccio on 127.0.0.1 (or a
pseudo-terminal) until Ctrl+C, optionally misbehaving; `firmware --out DIR` writes the Arduino
sketch; `connect --port URL` keeps one link to the arm open and serves the other commands over a
local socket (`braccio_link`), one controller at a time; `home`, `move`, `play`, `stop` and
`state` drive the arm on `--port URL` (any pyserial URL: /dev/ttyACM0, COM4,
socket://127.0.0.1:PORT) — through the link when `connect` serves that port, else on a link of
their own, opened without a reset pulse. Every command is checked before anything is sent: a
joint outside its limits, a servo outside its range, a speed or acceleration over the limit is
refused (exit 2) naming the joint, the value and the limit. A link that fails (no banner, a
timeout, the port gone, garbage) exits 1; `play` prints its report first (points sent,
acknowledged, the last the board reported reaching). Ctrl+C during a command sends S (stop now),
says where the arm holds, then exits 130. A board that reset is reported as a warning. Hobby
servos report no position: every state shown is the one the board last commanded.
"""

from __future__ import annotations

import argparse
import math
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import kinematica as km

from .. import bounds
from ..export import JointStateSender, StreamError, jointstate
from ..extras import need
from ..hardware import (
    Braccio,
    CalibrationError,
    CommandRefused,
    Emulator,
    LinkError,
    Misbehaviour,
    load_calibration,
)
from ..hardware import protocol as pr
from ..hardware.limits import check_speed
from ..hardware.sketch import SKETCH, write_firmware
from .braccio_link import LinkServer, hello, request, socket_path
from .braccio_work import HANDLERS, interrupted, play_text, say_stopped, state_text
from .common import (
    JSON_HELP,
    Failure,
    UsageError,
    emit,
    finite_numbers,
    joint_values,
    load_robot,
    warn,
)

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
                        else _count(args.disconnect_after, "--disconnect-after"),
                        reset_after=None if args.reset_after is None else _count(args.reset_after, "--reset-after"))


def cmd_emulate(args: argparse.Namespace, out: TextIO) -> int:
    if args.tcp is not None and not 0 <= args.tcp < 65536:
        raise UsageError(f"--tcp must be a port between 0 (any free one) and 65535, got {args.tcp}")
    soft = finite_numbers([args.soft_start], "--soft-start")[0]
    if not 0 <= soft <= 60:
        raise UsageError(f"--soft-start: expected seconds in [0, 60], got {args.soft_start}")
    if args.seconds is not None and not 0 < finite_numbers([args.seconds], "--seconds")[0] <= 86400:
        raise UsageError(f"--seconds: expected seconds in (0, 86400], got {args.seconds:g}")
    emu = Emulator(misbehaviour(args), boot_delay=0.05, soft_start=soft, reset_on_open=args.reset_on_open)
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
    emu.serve(args.seconds)
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
            jointstate.resolve(args.stream)
        except StreamError as e:
            raise UsageError(f"--stream: {e}") from None
    try:
        cal = load_calibration(args.calibration) if args.calibration else None
        return Braccio(args.port, robot, cal, timeout=args.timeout, ready_timeout=args.ready_timeout)
    except CalibrationError as e:
        raise UsageError(f"--calibration: {e}") from None
    except CommandRefused as e:  # a robot the bridge cannot drive
        raise UsageError(f"--robot: {e}") from None
    except ValueError as e:  # a timeout that is not a number of seconds in range
        raise UsageError(f"--timeout/--ready-timeout: {e}") from None


def _sender(args: argparse.Namespace, robot: km.Robot) -> JointStateSender | None:
    """The joint-state stream of --stream URL, or None. Its lines say `"measured": false` with
    `commanded` equal to q: the Braccio's state is what the board was told (the `Arm` flag)."""
    if args.stream is None:
        return None
    try:
        return JointStateSender(args.stream, robot, source="braccio")
    except (StreamError, OSError) as e:
        raise UsageError(f"--stream: {e}") from None


def _send_commanded(sender: JointStateSender, q: Any, t: float | None) -> None:
    sender.send(q, t=t, measured=Braccio.measures, extra={"commanded": q})


def _link_path(args: argparse.Namespace) -> Path | None:
    """The socket of a live `connect` link for this port (--socket, or the one derived from
    --port), or None when the command is to open the port itself."""
    path = Path(args.socket) if args.socket else socket_path(args.port)
    if hello(path) is not None:
        return path
    if args.socket:
        raise UsageError(f"--socket: no link answers at {path}: start one with `kinematica braccio connect --port "
                         f"{args.port} --socket {path}`")
    return None


def _execute(args: argparse.Namespace, arm: Braccio, action: str, req: dict[str, Any]) -> dict[str, Any]:
    """Do `action` through the link that serves the port, or on a link of its own; the data,
    its notices (a board reset) given as warnings."""
    path = _link_path(args)
    sender = _sender(args, arm.robot)
    on_point = None if sender is None else (lambda k, q, t: _send_commanded(sender, q, t))
    try:
        if path is not None:
            cal = {"offset": list(arm.calibration.offset), "direction": list(arm.calibration.direction)}
            data = _answer(args, request(path, {"action": action, "robot": arm.robot.name, "calibration": cal,
                                                **req}, on_point), action)
        else:
            data = _direct(args, arm, action, req, on_point)
        if sender is not None and action != "play":
            _send_commanded(sender, data["state"]["q"], None)
    except KeyboardInterrupt as e:
        if hasattr(e, "answer") and e.answer.get("ok"):  # type: ignore[attr-defined]
            say_stopped(action, e.answer["data"])  # type: ignore[attr-defined]
        raise
    finally:
        if sender is not None:
            sender.close()
    for notice in data.pop("notices", []):
        warn({"kind": "braccio"}, notice)
    return {"port": args.port, "robot": arm.robot.name, "length_unit": arm.robot.length_unit,
            "link": None if path is None else str(path), **data}


def _answer(args: argparse.Namespace, answer: dict[str, Any], action: str) -> dict[str, Any]:
    if answer.get("ok"):
        return answer["data"]
    notices = "; ".join(answer.get("notices") or [])
    error = answer.get("error", "no answer") + (f" ({notices})" if notices else "")
    if answer.get("kind") in ("refused", "usage"):
        raise CommandRefused(error)
    raise Failure(f"{args.port}: {error}")


def _direct(args: argparse.Namespace, arm: Braccio, action: str, req: dict[str, Any],
            on_point: Callable[..., None] | None) -> dict[str, Any]:
    try:
        with arm:
            try:
                data = HANDLERS[action](arm, req, on_point)
            except KeyboardInterrupt:
                say_stopped(action, interrupted(arm, action))
                raise
            data["notices"] = list(arm.notices)
            return data
    except LinkError as e:
        raise Failure(f"{args.port}: {e}" + "".join(f" ({n})" for n in arm.notices)) from None


def cmd_home(args: argparse.Namespace, out: TextIO) -> int:
    arm = _arm(args)
    check_speed(args.speed, pr.DEFAULT_BANNER)  # before anything is sent
    data = _execute(args, arm, "home", {"speed": args.speed})
    return emit(args, data, lambda d: f"Homed in {d['duration']:.2f} s.\n" + state_text(d), out)


def cmd_move(args: argparse.Namespace, out: TextIO) -> int:
    arm = _arm(args)
    q = joint_values(arm.robot, args.q, args.deg)
    arm.check_move(q, args.speed, args.gripper)  # before anything is sent

    def text(d: dict[str, Any]) -> str:
        return (f"Moved in {d['duration']:.2f} s to servo degrees {d['degrees_sent']}; whole degrees put the tool "
                f"{d['quantisation_error']:.3f} {d['length_unit']} from the exact q.\n" + state_text(d))

    data = _execute(args, arm, "move", {"q": q.tolist(), "speed": args.speed, "gripper": args.gripper})
    return emit(args, data, text, out)


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
    arm.check_play(tr, args.rate, args.gripper, args.speed)  # before anything is sent
    req = {"file": str(Path(args.file).resolve()), "rate": args.rate, "gripper": args.gripper, "speed": args.speed}
    data = _execute(args, arm, "play", req)
    data["file"] = args.file
    if data["warning"]:
        warn({"kind": "stall", "stall": data["stall"]}, data["warning"])
    emit(args, data, play_text, out)
    if not data["ok"]:
        raise Failure(f"the stream stopped after point {data['last_executed']}: {data['reason']}")
    return 0


def cmd_stop(args: argparse.Namespace, out: TextIO) -> int:
    data = _execute(args, _arm(args), "stop", {})

    def text(d: dict[str, Any]) -> str:
        ended = d.get("stopped")
        what = f"Stopped the `{ended['action']}` of pid {ended['pid']}" if ended else "Stopped"
        return f"{what}: S sent, the arm holds where it was.\n" + state_text(d)

    return emit(args, data, text, out)


def cmd_state(args: argparse.Namespace, out: TextIO) -> int:
    return emit(args, _execute(args, _arm(args), "state", {}), state_text, out)


def cmd_connect(args: argparse.Namespace, out: TextIO) -> int:
    arm = _arm(args)
    path = Path(args.socket) if args.socket else socket_path(args.port)
    live = hello(path)
    if live is not None:
        raise Failure(f"{args.port}: a link already serves it (pid {live.get('pid')}, socket {path}): one controller "
                      "at a time; its home, move, play, stop and state go through that link")
    try:
        arm.connect()
        server = LinkServer(arm, path, HANDLERS, args.port)
    except (LinkError, OSError) as e:  # OSError: the socket cannot be made there (--socket)
        arm.close()
        raise Failure(f"{args.port}: {e}") from None
    for notice in arm.notices:
        warn({"kind": "braccio"}, notice)
    data = {"port": args.port, "socket": str(path), "protocol": pr.VERSION, "pid": os.getpid()}
    emit(args, data, lambda d: (f"Linked to the Braccio on {d['port']} (protocol v{d['protocol']}); serving home, "
                                f"move, play, stop and state on {d['socket']}: run them with the same --port. "
                                "Ctrl+C closes the link."), out)
    out.flush()
    stopping = threading.Event()
    try:
        server.serve(stopping)
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        held = _last_state(arm)
        arm.close()
    if not args.json:
        out.write(f"Link closed: {server.served} command(s) served, {server.refused} refused; the arm holds at "
                  f"{held} (servo degrees M1…M6, commanded)\n")
    return 0


def _last_state(arm: Braccio) -> list[int] | None:
    """The board's commanded degrees as the link closes (a running command is stopped first)."""
    arm.request_stop()
    try:
        return list(arm.stop().degrees)
    except LinkError:
        return None if arm.commanded is None else list(arm.commanded)


# --- parser ----------------------------------------------------------------------------------------
def _arm_options(p: argparse.ArgumentParser, speed_default: int | None) -> None:
    p.add_argument("--port", required=True, metavar="URL",
                   help="the arm's serial port or a pyserial URL (/dev/ttyACM0, COM4, socket://127.0.0.1:PORT "
                        "for the emulator)")
    p.add_argument("--socket", metavar="PATH",
                   help="the local socket of the `connect` link (default: one derived from --port, so the commands "
                        "of a port find its link)")
    p.add_argument("--stream", metavar="URL", nargs="?", const=jointstate.DEFAULT_URL, default=None,
                   help=f"send the arm's joint states as JSON lines over UDP to URL (default {jointstate.DEFAULT_URL}; "
                        "schema in docs/joint-state-stream.md): play sends each point as the board reaches it, the "
                        "other commands the state after them")
    p.add_argument("--robot", default="braccio", metavar="ROBOT",
                   help="the model whose servo mapping and limits apply (default braccio)")
    p.add_argument("--calibration", metavar="FILE", help="per-servo offsets and directions (YAML or JSON)")
    if speed_default is not None:
        p.add_argument("--speed", type=float, default=speed_default, metavar="DEG_S",
                       help=f"top °/s of the servo that moves furthest, {pr.SPEED_RANGE[0]}–{pr.SPEED_RANGE[1]} (the "
                            f"Braccio library's range; it speeds up and slows down at {pr.ACCEL} °/s²; default "
                            f"{speed_default})")
    p.add_argument("--timeout", type=float, default=1.0, metavar="S",
                   help="seconds (at most 60) to wait for each reply beyond the motion's own time (default 1)")
    p.add_argument("--ready-timeout", type=float, default=10.0, metavar="S",
                   help="seconds (at most 120) to wait for the board's READY banner (default 10: a board that does "
                        "reset as its port opens is deaf for its ~7 s of boot and soft start)")


def add_parser(sub: Any) -> None:
    """The subparser of braccio and its actions."""
    p = sub.add_parser("braccio", help="the physical Braccio: ports, emulator, firmware, connect, home, move, play, stop, state",
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
    emu.add_argument("--reset-after", metavar="N", help="reset the board after N lines received (a power dip)")
    emu.add_argument("--reset-on-open", action="store_true",
                     help="reset the board on every connection (an Uno whose DTR line still pulses)")
    emu.add_argument("--soft-start", default="6", metavar="S",
                     help="seconds the board is deaf after a power-up or reset before its banner (default 6, as "
                          "the Braccio library's soft start; 0 to rehearse quickly)")
    emu.add_argument("--seconds", type=float, metavar="S", help="stop after S seconds (default: at Ctrl+C)")
    emu.set_defaults(func=cmd_emulate)
    connect = actions.add_parser("connect", help="keep one link to the arm open and serve the other commands",
                                 description="Open the arm's port once (without a reset pulse) and serve home, "
                                             "move, play, stop and state over a local socket until Ctrl+C, one "
                                             "controller at a time: the commands of the same --port go through it "
                                             "and never reopen the port.")
    _arm_options(connect, None)
    connect.set_defaults(func=cmd_connect)
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
    stop = actions.add_parser("stop", help="stop the arm now (and a command running through the link)")
    _arm_options(stop, None)
    stop.set_defaults(func=cmd_stop)
    state = actions.add_parser("state", help="the servo degrees the board last commanded")
    _arm_options(state, None)
    state.set_defaults(func=cmd_state)
    for action in actions.choices.values():
        action.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help=JSON_HELP)
