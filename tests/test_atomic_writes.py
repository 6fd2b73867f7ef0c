"""Every file and folder Kinematica writes is whole or absent, whatever stops the writer.

`writers.py` (run in a subprocess) writes each kind of output — trajectory CSV/JSON and motion
scenarios, robot YAML/URDF, a scene and its robot file, a learned model, glTF and URDF exports,
workspace maps, a notebook view, a figure, an animation, a calibration, the firmware sketch, an
explanation — and kills its writers at seeded random moments, by SIGKILL at a random time and by
SIGXFSZ in the middle of a file, and starves them of space (EFBIG). A scan of the source keeps
every writer on `kinematica.atomic`, so a new one cannot write in place unseen.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import kinematica as km
from kinematica import atomic

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src" / "kinematica"

pytestmark = pytest.mark.skipif(os.name != "posix", reason="fork, SIGKILL and RLIMIT_FSIZE are POSIX's")


def test_writers_killed_at_random_moments_leave_whole_files_or_none(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC.parent), str(HERE)]), "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    env.pop("PYTEST_CURRENT_TEST", None)
    done = subprocess.run([sys.executable, str(HERE / "writers.py"), str(tmp_path), "20261127", "3"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["problems"] == [], report
    assert report["missing"] == []
    # The trials did what they are for: killed by both signals, some writes refused, and at
    # least one kill caught a writer with its temporary file open (mid-write).
    assert {9, 25} <= set(report["signals"]), report  # SIGKILL, SIGXFSZ
    assert report["failed_writes"] > 0 and report["temporaries_at_kill"] > 0, report


# --- every writer goes through kinematica.atomic ---------------------------------------------------
# The calls that write a file by name in place, and those that write elsewhere on purpose.
NOT_FILES = {("app/figures.py", "savefig"),  # into a BytesIO
             ("workspace/io.py", "np.savez_compressed"), ("workspace/run.py", "np.savez"),  # into a BytesIO
             ("learn/model.py", "np.savez"),  # into a BytesIO
             ("app/simulator.py", "write_bytes"), ("app/modelfile.py", "write_bytes"),  # an upload, to a temporary folder
             ("app/packages.py", "open"), ("app/packages.py", "shutil.copyfileobj"),  # an uploaded .zip unpacked into
             # a new per-session temporary folder, removed whole when unpacking fails
             ("trajectory/files.py", "write_text"), ("hardware/sketch.py", "write_text"),  # inside atomic.folder
             ("viz/style.py", "savefig"),  # inside atomic.replacing
             ("cli/export.py", "shutil.copyfile")}  # inside atomic.folder


def _writes(path: Path):
    """(call, line) of every call in `path` that writes a file by name."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id == "open":
            mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
            if isinstance(mode, ast.Constant) and any(c in str(mode.value) for c in "wax+"):
                yield "open", node.lineno
        if not isinstance(f, ast.Attribute):
            continue
        owner = ast.unparse(f.value)
        if owner == "atomic":
            continue
        if f.attr in ("write_text", "write_bytes", "savefig"):
            yield f.attr, node.lineno
        elif owner in ("np", "numpy") and f.attr.startswith("save"):
            yield f"np.{f.attr}", node.lineno
        elif owner == "shutil" and f.attr.startswith(("copy", "move")):
            yield f"shutil.{f.attr}", node.lineno
        elif owner in ("json", "yaml", "pickle") and f.attr.endswith("dump") and len(node.args) > 1:
            yield f"{owner}.{f.attr}", node.lineno  # dump(obj, stream): a file
        elif f.attr == "export" and node.args:  # trimesh's export(path)
            yield f"export", node.lineno


def test_every_writer_in_the_package_goes_through_the_atomic_helper():
    found = [f"{rel}:{line}: {call}" for path in sorted(SRC.rglob("*.py"))
             if (rel := path.relative_to(SRC).as_posix()) != "atomic.py"
             for call, line in _writes(path) if (rel, call) not in NOT_FILES]
    assert found == [], "writes that do not go through kinematica.atomic:\n" + "\n".join(found)


def test_a_failed_write_names_the_path_and_leaves_the_old_file(tmp_path):
    target = tmp_path / "t.csv"
    tr = km.trajectory.cubic([0.0], [1.0], 1.0, steps=5)
    km.trajectory.save(tr, target)
    before = target.read_bytes()
    with pytest.raises(km.WriteError, match=f"cannot write {tmp_path / 'nowhere'}.*does not exist"):
        km.trajectory.save(tr, tmp_path / "nowhere" / "t.csv")
    (tmp_path / "x.csv").mkdir()
    with pytest.raises(km.WriteError, match="it is a folder"):
        km.trajectory.save(tr, tmp_path / "x.csv")
    with pytest.raises(OSError):  # a WriteError is an OSError: code catching those goes on working
        atomic.write_text(tmp_path, "x")
    assert target.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["t.csv", "x.csv"]


def test_a_replaced_file_keeps_its_permissions_and_a_secret_is_never_readable(tmp_path):
    p = tmp_path / "robot.yaml"
    km.save("planar-3r", p)
    p.chmod(0o640)
    km.save("puma560", p)
    assert p.stat().st_mode & 0o777 == 0o640 and km.load(p).name == "puma560"
    s = atomic.write_bytes(tmp_path / "secret", b"k", mode=0o600)
    assert s.stat().st_mode & 0o777 == 0o600


def test_a_temporary_file_of_a_killed_writer_is_swept_by_the_next_write(tmp_path):
    target = tmp_path / "m.txt"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f".m.txt.{dead.stdout.strip()}-0123abcd.tmp.txt"
    stale.write_text("half")
    alive = tmp_path / f".m.txt.{os.getppid()}-0123abcd.tmp.txt"  # a writer still running: kept
    alive.write_text("in progress")
    atomic.write_text(target, "whole")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([alive.name, "m.txt"])


def test_a_sketch_rewritten_and_killed_leaves_nothing_inside_its_folder(tmp_path):
    # the Braccio sketch written again into its folder, the writer killed mid-write: its
    # temporary must lie beside the folder, not among the sketch's files (the random-kill test
    # above once found one there, in a fresh clone)
    import signal
    import time

    from kinematica.hardware.sketch import write_firmware

    out = tmp_path / "firmware"
    write_firmware(out)
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    pid = os.fork()
    if pid == 0:  # the child writes slowly: its file is written, then it sleeps before the rename
        try:
            write_text = Path.write_text

            def slow(self, *args, **kwargs):
                n = write_text(self, *args, **kwargs)
                time.sleep(30)
                return n

            Path.write_text = slow
            write_firmware(out)
        finally:
            os._exit(0)
    time.sleep(1.0)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before
    write_firmware(out)  # the next write sweeps the killed one's temporary away
    assert sorted(p.name for p in tmp_path.iterdir()) == ["firmware"]
