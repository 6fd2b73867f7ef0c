"""Every kind of output Kinematica writes, each by its own public writer (library calls and
the command line): the program `test_atomic_writes.py` runs to kill writers at random moments.

    python writers.py WORK SEED TRIALS

It makes the slow inputs once (a learned model, a workspace map), writes every output whole
into WORK/ref (the reference), then for each trial forks a writer of all of them into WORK/out
and ends it three ways: SIGKILL after a random time ("loop"); SIGXFSZ when a file crosses a
random size, i.e. killed in the middle of writing that file ("fsize"); and writes past that size
refused (EFBIG) while it carries on ("fail"). After each, every output in WORK/out must be
absent or whole (equal to the reference); after a failed write nothing may be left behind; and
after one last whole run, nothing a killed writer left either. Prints a JSON report.
"""

from __future__ import annotations

import json
import os
import pickle
import random
import resource
import signal
import sys
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np

# Output name -> how it is compared with the reference: "bytes" (identical), "npz" (the same
# arrays: a zip records its time) or "folder" (every file identical, none missing or extra).
OUTPUTS = {"traj.csv": "bytes", "traj.json": "bytes", "scenarios": "folder", "robot.yaml": "bytes",
           "robot.urdf": "bytes", "scene.yaml": "bytes", "scene.arm.yaml": "bytes", "model.npz": "npz",
           "twin.glb": "bytes", "twin.urdf": "bytes", "map.npz": "npz", "map.ply": "bytes", "view.html": "bytes",
           "figure.png": "bytes", "motion.gif": "bytes", "calibration.yaml": "bytes", "firmware": "folder",
           "explain.md": "bytes"}


def prepare(inputs: Path) -> None:
    """The slow inputs, made once: a small learned IK model and a workspace map."""
    import kinematica as km
    from kinematica.learn import save_model, train_ik

    model = train_ik("planar-3r", samples=400, rules=8, epochs=2, seed=0)
    save_model(model, inputs / "model.npz")
    env = km.workspace.envelope("planar-3r", samples=2000, seed=0)
    (inputs / "map.pickle").write_bytes(pickle.dumps(env))


def setup(inputs: Path):
    """Everything the writers need, made before any of them runs."""
    import kinematica as km
    from kinematica import viz
    from kinematica.viz import notebook
    from kinematica.hardware.calibration import Calibration
    from kinematica.learn import load_model

    robot = km.load("planar-3r").replace(name="planar")
    tr = km.trajectory.quintic([0.0, 0.2, -0.3], [1.0, -0.5, 0.8], 2.0, steps=4000)
    fig = viz.arm(robot, [0.3, 0.4, -0.2], size=(4, 3), dpi=50)
    scene = km.Scene("cell")
    scene.add_robot("arm", robot)
    scene.add_obstacle("post", "box", km.spatial.trans(x=0.5), size=(0.1, 0.1, 1.0))
    return {"km": km, "viz": viz, "robot": robot, "tr": tr, "fig": fig, "scene": scene,
            "model": load_model(inputs / "model.npz"), "map": pickle.loads((inputs / "map.pickle").read_bytes()),
            "view": notebook.view(robot, [0.3, 0.4, -0.2]), "short": tr.resample(np.linspace(0, 2, 3)),
            "calibration": Calibration(offset=(1.5, -2.0, 0.0, 0.25, 0.0, 3.0), direction=(1, -1, 1, 1, -1, 1))}


def writers(s: dict, out: Path) -> list:
    """One call per output (the scene writes scene.yaml and, beside it, scene.arm.yaml)."""
    km, robot, tr = s["km"], s["robot"], s["tr"]
    from kinematica.cli import main
    from kinematica.hardware.calibration import save_calibration
    from kinematica.hardware.sketch import write_firmware
    from kinematica.learn import save_model
    from kinematica.workspace import io as maps

    def cli(*argv):
        with open(os.devnull, "w") as null, redirect_stdout(null), redirect_stderr(null):
            code = main([*argv])
        if code != 0:  # the error is the command line's message, not kept here
            raise OSError(f"kinematica {' '.join(argv)} exited with {code}")

    return [
        lambda: km.trajectory.save(tr, out / "traj.csv"),
        lambda: km.trajectory.save(tr, out / "traj.json"),
        lambda: km.trajectory.save_scenarios(tr, out / "scenarios"),
        lambda: km.save(robot, out / "robot.yaml"),
        lambda: km.save(robot, out / "robot.urdf"),
        lambda: s["scene"].save(out / "scene.yaml"),
        lambda: save_model(s["model"], out / "model.npz"),
        lambda: cli("export", "puma560", "--out", str(out / "twin.glb")),
        lambda: cli("export", "puma560", "--out", str(out / "twin.urdf")),
        lambda: maps.save(s["map"], out / "map.npz"),
        lambda: maps.save(s["map"], out / "map.ply"),
        lambda: s["view"].save(out / "view.html"),
        lambda: s["viz"].save(s["fig"], out / "figure.png"),
        lambda: s["viz"].animate(robot, s["short"], out / "motion.gif", frames=3, size=(2, 2), dpi=40),
        lambda: save_calibration(s["calibration"], out / "calibration.yaml"),
        lambda: write_firmware(out / "firmware"),
        lambda: cli("explain", "planar-3r", "fk", "--q", "0.1", "0.2", "0.3", "--out", str(out / "explain.md")),
    ]


def same(out: Path, ref: Path, name: str) -> bool:
    """Whether output `name` in `out` equals the reference written to `ref` (see OUTPUTS)."""
    a, b = out / name, ref / name
    kind = OUTPUTS[name]
    if kind == "folder":
        files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
        return files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file()) and \
            all((a / f).read_bytes() == (b / f).read_bytes() for f in files)
    if kind == "npz":
        try:
            with np.load(a) as x, np.load(b) as y:
                return sorted(x.files) == sorted(y.files) and all(np.array_equal(x[k], y[k], equal_nan=x[k].dtype.kind == "f") for k in x.files)
        except Exception:  # a damaged file is not the same: that is what is looked for
            return False
    return a.read_bytes() == b.read_bytes()


def problems(out: Path, ref: Path) -> list[str]:
    """Every output in `out` that exists and is not whole (not equal to the reference)."""
    return [name for name in OUTPUTS if (out / name).exists() and not same(out, ref, name)]


def leftovers(out: Path) -> list[str]:
    """What is in `out` (at any depth) that is not one of the outputs' own files."""
    return sorted(str(p.relative_to(out)) for p in out.rglob("*")
                  if p.name.startswith(".") or not any(p.relative_to(out).parts[0] == n for n in OUTPUTS))


def run_child(calls: list, mode: str, limit: int, start: int) -> None:
    """In a forked child: the writes (from writer `start` on, round), never returning."""
    try:
        if mode != "loop":
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL if mode == "fsize" else signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
        failed = 0
        while True:
            for call in calls[start:] + calls[:start]:
                try:
                    call()
                except OSError:  # "fail": a write past the cap fails (EFBIG); the next one is tried
                    failed += 1
            if mode != "loop":
                os._exit(min(failed, 100))
    finally:
        os._exit(101)


def trial(calls: list, mode: str, rng: random.Random, span: float, largest: int) -> tuple[int, int]:
    """Fork a writer and end it: "loop" killed (SIGKILL) after a random time within `span` s;
    "fsize" dying of SIGXFSZ at a random size; "fail" refused writes past a random size.
    Returns (exit status, failures reported)."""
    limit, start = rng.randrange(64, largest), rng.randrange(len(calls))
    delay = rng.uniform(0.0, span)
    pid = os.fork()
    if pid == 0:
        run_child(calls, mode, limit, start)
    if mode == "loop":
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    return status, (os.waitstatus_to_exitcode(status) if mode == "fail" else 0)


def main(argv: list[str]) -> int:
    work, seed, kills = Path(argv[0]), int(argv[1]), int(argv[2])
    inputs, out, ref = work / "inputs", work / "out", work / "ref"
    for d in (inputs, out, ref):
        d.mkdir()
    pid = os.fork()  # the map's Dask threads live and die in a child: this process forks writers later
    if pid == 0:
        code = 1
        try:
            prepare(inputs)
            code = 0
        except BaseException:
            traceback.print_exc()
            sys.stderr.flush()
        finally:
            os._exit(code)
    if os.waitpid(pid, 0)[1] != 0:
        raise RuntimeError("preparing the inputs failed")
    state = setup(inputs)
    t0 = time.perf_counter()
    for call in writers(state, ref):  # also loads everything the writers import, before any fork
        call()
    span = time.perf_counter() - t0
    largest = max(p.stat().st_size for p in ref.rglob("*") if p.is_file())
    calls, rng = writers(state, out), random.Random(seed)
    report: dict = {"span": span, "problems": [], "temporaries_at_kill": 0, "failed_writes": 0,
                    "signals": []}
    for i in range(kills):
        for mode in ("loop", "fsize", "fail") if i < 2 else ("loop", "fsize"):  # "fail" runs every writer: 2 do
            status, failed = trial(calls, mode, rng, span, largest)
            if os.WIFSIGNALED(status):
                report["signals"].append(os.WTERMSIG(status))
            report["failed_writes"] += failed
            report["temporaries_at_kill"] += any(p.name.startswith(".") for p in out.rglob("*"))
            bad = problems(out, ref)
            if mode == "fail":  # a failed write, unlike a killed one, cleans up after itself
                bad += [f"left behind: {x}" for x in leftovers(out)]
            report["problems"] += [f"trial {i} {mode}: {b}" for b in bad]
    for call in calls:  # a last whole run: every output, and nothing a killed writer left
        call()
    report["problems"] += [f"after a whole run: {b}" for b in problems(out, ref) + leftovers(out)]
    report["missing"] = [n for n in OUTPUTS if not (out / n).exists()]
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
