"""Mirror a Kinematica arm: receive its joint-state stream and print each sample.

Start it, then stream to it:

    python examples/joint_state_client.py                       # listens on udp://127.0.0.1:9870
    kinematica serve --stream                                   # the simulator, or
    kinematica braccio play traj.csv --port URL --stream        # the Braccio (or its emulator)

Each datagram is one JSON line (schema: docs/joint-state-stream.md). This client uses only the
standard library, so it can be copied into any project: replace `show` with the call that
sets your engine's joints (a Unity/Godot/Blender scene, a ROS publisher, …).

Options: --host, --port (0: any free port; the one chosen is printed first), --count N (exit
after N samples), --json (print the lines as received, for scripts).
"""

from __future__ import annotations

import argparse
import json
import math
import socket
import sys


def show(m: dict) -> str:
    """One readable line of a sample: sequence, time, and q in degrees (revolute) or as is."""
    values = [f"{math.degrees(v):8.2f}°" if u == "rad" else f"{v:8.4f} {u}" for v, u in zip(m["q"], m["units"])]
    t = "   —   " if m["t"] is None else f"{m['t']:7.3f}"
    return f"#{m['seq']:<6} t={t} s  {m['robot']}: " + " ".join(values)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Print a Kinematica joint-state stream (JSON lines over UDP).")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=9870)
    p.add_argument("--count", type=int, default=0, help="exit after this many samples (0: run until Ctrl+C)")
    p.add_argument("--json", action="store_true", help="print each sample's JSON line as received")
    args = p.parse_args(argv)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)  # room for bursts while we print
    sock.bind((args.host, args.port))
    print(f"listening on udp://{args.host}:{sock.getsockname()[1]}", flush=True)
    received, expected = 0, None
    try:
        while args.count <= 0 or received < args.count:
            data = sock.recv(65536)
            m = json.loads(data)
            if expected is not None and m["seq"] != expected:  # a lost datagram, or a new sender
                print(f"(seq jumped from {expected} to {m['seq']})", file=sys.stderr, flush=True)
            expected = m["seq"] + 1
            print(data.decode().rstrip("\n") if args.json else show(m), flush=True)
            received += 1
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
