"""The package as a user installs it: this checkout built into an sdist and a wheel, and fresh
virtual environments with that wheel and the dependencies it declares (from the package index,
or pip's cache). tests/test_release.py checks the build and the wheel with the `app` extra;
tests/test_extras.py the wheel alone (the core dependencies, none of the faces).

The C++ core is compiled once per test session, by `python -m build` (the wheel from the sdist,
so the sdist is shown to carry what a build needs); every venv installs that wheel. With the
suite spread over processes (pytest-xdist), the build and each venv are still made once:
`once` lets the first process that asks make it while the others wait for it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]


def clean_env() -> dict[str, str]:
    """This process's environment without what would point a child at the source tree or at this
    pytest run (PYTHONPATH, VIRTUAL_ENV, PYTEST_CURRENT_TEST): a fresh venv must see only itself."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTEST_CURRENT_TEST")}


def run(*cmd: str | Path, cwd: Path | None = None, timeout: float = 900) -> subprocess.CompletedProcess:
    """Run cmd in the clean environment; its output, or an AssertionError carrying it."""
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=clean_env())
    assert done.returncode == 0, f"{' '.join(map(str, cmd))} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done


def build(out: Path) -> Path:
    """The sdist and the wheel of this checkout in `out` (`python -m build`, isolated build)."""
    run(sys.executable, "-m", "build", "--outdir", out, ROOT, cwd=ROOT)
    return out


def venv_with(where: Path, wheel: Path, extras: str = "") -> Path:
    """A fresh venv in `where` with `wheel` (and `extras`, e.g. "app") installed with its
    dependencies; its python. `--no-compile`: pip would byte-compile every module of every
    dependency (measured: a quarter of the two venvs' CPU); Python compiles what is imported anyway,
    so the first command run in the venv is slower (tests/test_release.py's server waits for it)."""
    venv.create(where, with_pip=True)
    python = where / "bin" / "python"
    name = f"kinematica[{extras}]" if extras else "kinematica"
    run(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
        f"{name} @ {wheel.as_uri()}")
    return python


def shared_root(tmp_path_factory) -> Path:
    """The session's temporary folder every process of the run shares: the parent of each
    xdist worker's own, or the one folder of a run in one process."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once(root: Path, name: str, make: Callable[[Path], object]) -> Path:
    """root/name made by make(folder) once per test session, whichever process asks first (a
    lock file beside it; a failed make leaves nothing, so the next asker tries again)."""
    folder, made = root / name, root / f"{name}.made"  # (the marker beside it: the folder holds only what make put)
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not made.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            try:
                make(folder)
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            made.touch()
    return folder
