"""Streaming a trajectory to the Braccio emulator over TCP: how long it takes against the motion's
own duration, at several rates, and how deep the board's queue ran.

    python benchmarks/bench_braccio_stream.py            # 1000 points at 50, 100, 250, 500, 1000 Hz
    python benchmarks/bench_braccio_stream.py --points 300 --rates 100 1000

The emulator moves in real time, so a stream can never be faster than its motion; what is
measured is the overhead on top of it (the host waiting for acknowledgements, the board's queue
running dry). `late` = elapsed − motion (an underrun pauses the arm until the next point
arrives); `max queue` is the deepest the board's queue ran (the flow control keeps it ≤ 8).
Emulator and host share this process and its GIL, so the numbers rise with the machine's load;
on a real 115200-baud port the line itself caps the rate near 300 points a second.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import kinematica as km
from kinematica.hardware import Braccio, Emulator


def run(points: int, rate: float) -> dict:
    braccio = km.load("braccio")
    q1 = braccio.q_home + np.radians([40, 10, -40, -30, -60])
    tr = km.trajectory.quintic(braccio.q_home, q1, (points - 1) / rate, steps=points - 1, robot=braccio)
    with Emulator() as emu, Braccio(emu.url) as arm:
        t0 = time.perf_counter()
        res = arm.play(tr)
        wall = time.perf_counter() - t0
        acks = [line for line in emu.log()[1] if line.startswith("A ")]
        return {"rate": rate, "points": points, "motion": tr.duration, "elapsed": res.elapsed, "wall": wall,
                "acks": len(acks), "ok": res.ok, "max_queue": emu.board.max_queued,
                "quant": res.max_quantisation_error}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--points", type=int, default=1000)
    ap.add_argument("--rates", type=float, nargs="+", default=[50, 100, 250, 500, 1000])
    args = ap.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# Braccio emulator over TCP, {args.points} points per stream; load average {load:.2f}, "
          f"{os.cpu_count()} CPUs")
    print(f"{'rate Hz':>8} {'motion s':>9} {'stream s':>9} {'late ms':>8} {'acks':>6} {'in order':>9} "
          f"{'max queue':>10} {'max tool err mm':>16}")
    for rate in args.rates:
        r = run(args.points, rate)
        print(f"{r['rate']:8g} {r['motion']:9.3f} {r['elapsed']:9.3f} {1000 * (r['elapsed'] - r['motion']):8.1f} "
              f"{r['acks']:6d} {str(r['ok']):>9} {r['max_queue']:10d} {r['quant']:16.3f}")


if __name__ == "__main__":
    main()
