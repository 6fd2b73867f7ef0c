"""`kinematica serve`: the browser simulator on localhost (kinematica/app). NiceGUI is imported
only when the command runs, so the rest of the command line stays quick to start."""

from __future__ import annotations

import argparse
import json
import socket
from typing import Any, TextIO

from ..export import StreamError, jointstate
from ..extras import require
from .common import ROBOT_HELP, UsageError, add_robot, hold_values, load_robot

DEFAULT_PORT = 8080
PORTS_TRIED = 20  # without --port: the first free one of 8080 … 8099


def port_free(host: str, port: int) -> bool:
    """Whether a server could listen on host:port now (a port only in TIME_WAIT counts as free,
    as it does for the server, which sets SO_REUSEADDR)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as e:
        raise UsageError(f"--host {host}: {e.strerror or e}") from None
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(address)
        except OSError:
            return False
    return True


def choose_port(host: str, port: int | None, first: int = DEFAULT_PORT) -> int:
    """`port` when it is valid and free, else (None) the first free one of first … first + 19."""
    if port is not None:
        if not 0 < port < 65536:
            raise UsageError(f"--port must be between 1 and 65535, got {port}")
        if not port_free(host, port):
            raise UsageError(f"port {port} on {host} is in use: stop what listens there, or pick "
                             "another with --port")
        return port
    for p in range(first, first + PORTS_TRIED):
        if port_free(host, p):
            return p
    raise UsageError(f"ports {first}–{first + PORTS_TRIED - 1} on {host} are all in use: "
                     "pick a free one with --port")


def cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    require("app", "kinematica serve")  # before the banner: nothing is served without NiceGUI
    robot = args.robot or "braccio"
    load_robot(robot, args.tip, args.hold_at, args.package_dir)  # a bad name or file fails here, before the server starts
    if args.stream is not None:
        try:
            jointstate.resolve(args.stream)
        except StreamError as e:
            raise UsageError(f"--stream: {e}") from None
    port = choose_port(args.host, args.port)
    url = f"http://{args.host if ':' not in args.host else f'[{args.host}]'}:{port}/"
    if args.json:
        out.write(json.dumps({"url": url, "robot": robot, "browser": not args.no_browser}) + "\n")
    else:
        out.write(f"Kinematica simulator with {robot} at {url}"
                  f"{'' if args.no_browser else ' (opening the browser)'}; Ctrl+C stops it\n")
    out.flush()
    from ..app.main import run  # NiceGUI loads only now

    run(robot, host=args.host, port=port, show=not args.no_browser, tip=args.tip, hold=hold_values(args.hold_at),
        stream_to=args.stream, package_dirs=tuple(args.package_dir or ()))
    return 0


def add_parser(sub: Any) -> None:
    """The subparser of serve."""
    p = sub.add_parser("serve", help="the browser simulator on localhost (opens the browser)",
                       description="Serve the simulator on this machine and open it in the browser: "
                                   "the arm in 3-D and in projections, joint sliders, FK and IK modes "
                                   "with every IK solution, a pose list with a trajectory player, and "
                                   "the Plots, Math and Robot tabs. The work is kept per browser, and "
                                   "everything is served locally: it works offline.")
    p.add_argument("--robot", metavar="ROBOT", default=None,
                   help=f"{ROBOT_HELP} (default braccio); any other can be chosen in the page")
    add_robot(p, positional=False)
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=None,
                   help=f"port (default the first free one from {DEFAULT_PORT})")
    p.add_argument("--stream", metavar="URL", nargs="?", const=jointstate.DEFAULT_URL, default=None,
                   help=f"send every joint state shown as a JSON line over UDP to URL (default "
                        f"{jointstate.DEFAULT_URL}; schema in docs/joint-state-stream.md), for an engine that mirrors the arm")
    p.add_argument("--no-browser", action="store_true",
                   help="do not open a browser (headless machines; open the printed address yourself)")
    p.set_defaults(func=cmd_serve)
