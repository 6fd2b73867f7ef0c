"""`kinematica so101 ports | emulate | state | home | move | play | calibrate | record | teleop | offsets`.

`ports` lists this machine's serial ports; `emulate` runs a virtual SO-101 bus (six STS3215s) on
127.0.0.1 or a pseudo-terminal until Ctrl+C, with imperfections and faults on request; the other
actions drive the arm on `--port URL` (a USB bus adapter such as /dev/ttyACM0 or COM5, or the
emulator's socket://127.0.0.1:PORT), each on a bus of its own, locked to this process (one
controller a bus). `--arm so100` drives the SO-100 (the same servos, its own model) instead of the
SO-101. `--calibration FILE` maps the servos' ticks to the URDF's joint values (from
`calibrate`, on the same arm). `--stream [URL]` (state, home, move, play) sends the measured joint states as JSON
lines over UDP, each with the goal last sent. A command outside a limit or a calibrated range is refused before anything is sent
(exit 2); a servo that stops answering or flags a fault stops the arm (exit 1) with the joint and
the reason; `play` prints its tracking report first. `teleop` (cli/so101_teleop.py) drives a
follower arm from a leader moved by hand, on two buses; `offsets` (cli/so101_offsets.py) finds the
joints' offsets from known tool points.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

import numpy as np

from ..export import JointStateSender, StreamError, jointstate
from ..extras import need
from ..hardware import (
    BusError,
    BusFault,
    CommandRefused,
    Imperfection,
    So101,
    So101Emulator,
    save_so101_calibration,
)
from ..hardware.so101_calibration import NAMES, So101CalibrationError
from ..textfmt import table
from .common import Failure, UsageError, emit, finite_numbers

BUS_VIDS = {0x1A86: "CH340/CH343 (Feetech / Waveshare bus adapter)", 0x0403: "FTDI", 0x10C4: "CP210x"}


def cmd_ports(args: argparse.Namespace, out: TextIO) -> int:
    list_ports = need("serial.tools.list_ports", "hardware", "kinematica so101 ports")
    ports = [{"device": p.device, "description": p.description, "maker": BUS_VIDS.get(p.vid) if p.vid else None}
             for p in sorted(list_ports.comports(), key=lambda p: p.device)]
    return emit(args, {"ports": ports}, lambda d: "\n".join(
        ["Serial ports (give the bus adapter's to --port):"] + [f"  {p['device']}  {p['description']}"
                                                                  + (f"  [{p['maker']}]" if p["maker"] else "")
                                                                  for p in d["ports"]])
        if d["ports"] else "No serial ports found. Plug the SO-101's bus adapter in, or rehearse with "
                           "`kinematica so101 emulate`.", out)


def _fault(text: str | None, flag: str, parts: int) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        values = tuple(int(v) for v in text.split(":"))
    except ValueError:
        values = None
    if values is None or len(values) != parts or values[0] not in range(1, 7) or min(values[1:]) < (0 if parts == 3 else 1):
        raise UsageError(f"{flag}: expected ID:N{':K' if parts == 3 else ''} with ID 1 … 6 and N ≥ 1, got {text!r}")
    return values


def cmd_emulate(args: argparse.Namespace, out: TextIO) -> int:
    if args.tcp is not None and not 0 <= args.tcp < 65536:
        raise UsageError(f"--tcp must be a port between 0 (any free one) and 65535, got {args.tcp}")
    noise, backlash, sag = finite_numbers([args.noise, args.backlash, args.sag], "--noise/--backlash/--sag")
    if min(noise, backlash) < 0 or max(noise, backlash, abs(sag)) > 200:
        raise UsageError("--noise and --backlash: ticks in [0, 200]; --sag: ticks in [-200, 200]")
    fault = BusFault(silent=_fault(args.silent, "--silent", 2), corrupt=_fault(args.corrupt, "--corrupt", 3),  # type: ignore[arg-type]
                     overload=_fault(args.overload, "--overload", 2), overheat=_fault(args.overheat, "--overheat", 2))  # type: ignore[arg-type]
    emu = So101Emulator(Imperfection(float(noise), float(backlash), float(sag)), fault)
    try:
        url = emu.start_pty() if args.pty else emu.start_tcp(args.tcp or 0)
    except OSError as e:
        raise UsageError(f"cannot serve the emulator: {e}") from None
    faults = {k: v for k, v in vars(fault).items() if v is not None}
    data = {"url": url, "servos": [1, 2, 3, 4, 5, 6], "noise": noise, "backlash": backlash, "sag": sag, "faults": faults}
    emit(args, data, lambda d: (f"SO-101 bus emulator (six STS3215, ids 1-6) on {d['url']}"
                                + (f", faults: {d['faults']}" if d["faults"] else "")
                                + f"; connect with --port {d['url']}. Ctrl+C stops it."), out)
    out.flush()
    emu.serve(args.seconds)
    return 0


def _arm(args: argparse.Namespace) -> So101:
    try:
        arm = So101(args.port, robot=args.arm, calibration=args.calibration)
    except So101CalibrationError as e:
        raise UsageError(str(e)) from None
    try:
        arm.connect()
    except BusError as e:
        raise Failure(str(e)) from None
    return arm


def _state_data(arm: So101, st: Any) -> dict[str, Any]:
    q = [*st.q.tolist(), None]
    return {"measured": True, "note": st.note, "joints": [
        {"name": n, "id": sid, "q": qv, "q_deg": None if qv is None else float(np.degrees(qv)),
         "gripper_deg": st.gripper if n == "gripper" else None, "ticks": t, "speed": v, "load": ld,
         "voltage": vo, "temperature": te}
        for n, sid, qv, t, v, ld, vo, te in zip(NAMES, arm.calibration.ids, q, st.ticks, st.speed, st.load,
                                                 st.voltage, st.temperature, strict=True)],
        "commanded": None if st.commanded is None else st.commanded.tolist()}


def _state_text(d: dict[str, Any]) -> str:
    rows = [[j["name"], j["id"], f"{j['gripper_deg']:.1f}°" if j["q"] is None else f"{j['q_deg']:.2f}°", j["ticks"],
             j["speed"], f"{j['load']:+.1f}%", f"{j['voltage']:.1f} V", f"{j['temperature']} °C"] for j in d["joints"]]
    return (table(["joint", "id", "measured", "ticks", "ticks/s", "load", "voltage", "temp"], rows)
            + f"\n({d['note']})")


def _run(args: argparse.Namespace, out: TextIO, action: Any) -> int:
    url = getattr(args, "stream", None)
    if url is not None:  # a bad address is refused before the bus opens
        try:
            jointstate.resolve(url)
        except StreamError as e:
            raise UsageError(f"--stream: {e}") from None
    arm = _arm(args)
    args.sender = None if url is None else JointStateSender(url, arm.robot, source="so101")
    try:
        return action(arm)
    except CommandRefused as e:
        raise UsageError(str(e)) from None
    except BusError as e:
        raise Failure(str(e)) from None
    finally:
        arm.close()
        if args.sender is not None:
            args.sender.close()


def _stream(args: argparse.Namespace, st: Any, t: float | None = None) -> Any:
    """Send a measured state on --stream (with the goal, load, temperature and voltage per joint)."""
    if args.sender is not None:
        args.sender.send(st.q, t=t, measured=True, extra={
            "commanded": None if st.commanded is None else st.commanded, "load": st.load[:5],
            "temperature": st.temperature[:5], "voltage": st.voltage[:5]})
    return st


def cmd_state(args: argparse.Namespace, out: TextIO) -> int:
    return _run(args, out, lambda arm: emit(args, _state_data(arm, _stream(args, arm.state())), _state_text, out))


def _moved(args: argparse.Namespace, out: TextIO, arm: So101, report: Any) -> int:
    data = {"ok": report.ok, "reason": report.reason, "ticks": list(report.ticks), "duration": report.duration,
            "error": report.error.tolist(), "error_deg": np.degrees(report.error).tolist(),
            **_state_data(arm, _stream(args, arm.state()))}
    emit(args, data, lambda d: (f"{'Arrived' if d['ok'] else 'Did not arrive'} in {d['duration']:.2f} s"
                                + (f": {d['reason']}" if d["reason"] else "") + "\n" + _state_text(d)), out)
    return 0 if report.ok else 1


def cmd_home(args: argparse.Namespace, out: TextIO) -> int:
    return _run(args, out, lambda arm: _moved(args, out, arm, arm.home(args.speed)))


def cmd_move(args: argparse.Namespace, out: TextIO) -> int:
    q = finite_numbers(args.q, "Q")
    if len(q) != 5:
        raise UsageError(f"expected 5 joint values ({', '.join(NAMES[:5])}), got {len(q)}")
    q = np.radians(q) if args.deg else q
    return _run(args, out, lambda arm: _moved(args, out, arm, arm.move(q, args.speed, args.gripper)))


def cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    from ..trajectory import load

    trajectory = load(args.file)
    return _run(args, out, lambda arm: _played(args, out, arm.play(
        trajectory, args.rate, args.gripper, args.speed, on_cycle=lambda t, st: _stream(args, st, t))))


def _played(args: argparse.Namespace, out: TextIO, report: Any) -> int:
    from .so101_report import report_data, report_text, write_plot

    data = report_data(report)
    if args.plot:
        data["plot"] = str(write_plot(report, args.plot))
    emit(args, data, report_text, out)
    if not report.ok:
        sys.stderr.write(f"kinematica: error: {report.reason}\n")
    return 0 if report.ok else 1


def cmd_calibrate(args: argparse.Namespace, out: TextIO) -> int:
    from ..hardware.so101_teach import CalibrationIncomplete, calibrate

    def action(arm: So101) -> int:
        if not args.json:  # the instructions for a person; a script's stderr keeps to errors and warnings
            sys.stderr.write("Torque off. Hold the arm in its middle pose (the robot file's home); it is zeroed now. "
                             f"Then move every joint through its whole travel ({args.seconds:g} s).\n")
        try:
            cal = calibrate(arm, args.seconds)
        except CalibrationIncomplete as e:
            raise Failure(str(e)) from None
        path = save_so101_calibration(cal, args.out)
        data = {"path": str(path), "servos": [{"name": n, "id": s.id, "homing_offset": s.homing_offset,
                                               "range": list(s.range)} for n, s in zip(NAMES, cal.servos, strict=True)]}
        return emit(args, data, lambda d: "\n".join([table(["joint", "id", "offset", "min", "max"],
                                                           [[s["name"], s["id"], s["homing_offset"], *s["range"]]
                                                            for s in d["servos"]]), f"Wrote {d['path']}"]), out)

    return _run(args, out, action)


def cmd_record(args: argparse.Namespace, out: TextIO) -> int:
    from ..hardware.so101_teach import record
    from ..trajectory import save

    def action(arm: So101) -> int:
        tr = record(arm, args.seconds, args.rate)
        path = save(tr, args.out)
        return emit(args, {"path": str(path), "points": len(tr), "duration": tr.duration},
                    lambda d: f"Recorded {d['points']} points over {d['duration']:.2f} s into {d['path']}", out)

    return _run(args, out, action)


def add_parser(sub: Any) -> None:
    """The subparser of so101 and its actions."""
    from .so101_args import add_actions

    p = sub.add_parser("so101", help="the SO-101 (or SO-100) arm on its Feetech bus: ports, emulator, state, home, "
                                     "move, play, calibrate, record, teleop, offsets",
                       description="Drive an SO-101 (six Feetech STS3215 bus servos) over its bus adapter, or "
                                   "rehearse with the emulator; --arm so100 drives its predecessor, the SO-100, "
                                   "with the same servos and its own model. Its state is measured: the servos "
                                   "report position, speed, load, voltage and temperature.")
    add_actions(p, {"ports": cmd_ports, "emulate": cmd_emulate, "state": cmd_state, "home": cmd_home,
                    "move": cmd_move, "play": cmd_play, "calibrate": cmd_calibrate, "record": cmd_record,
                    "teleop": cmd_teleop, "offsets": cmd_offsets})


def cmd_offsets(args: argparse.Namespace, out: TextIO) -> int:
    from .. import atomic
    from .so101_offsets import read_points, run_offsets

    points = read_points(args.points)  # the points and the file to write checked before the bus opens
    atomic.check(args.out)
    return _run(args, out, lambda arm: run_offsets(args, out, arm, points))


def cmd_teleop(args: argparse.Namespace, out: TextIO) -> int:
    from .so101_teleop import cmd_teleop as run

    return run(args, out)
