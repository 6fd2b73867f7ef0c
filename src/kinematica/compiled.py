"""When the compiled (Numba) inverse-kinematics kernels run instead of the NumPy code they are
tested equal to. FK, the Jacobians, RNE and the mass matrix are not here: the C++ core
(`kinematica._core`) computes them for every call, with no warm-up; the IK kernels move there
too (issue 26, phase 2), and this module goes with them.

Numba turns a single IK iteration from tens of µs of NumPy calls into a few, but
it costs to start: importing Numba and loading the kernels from its on-disk cache takes
~0.3–0.7 s, and the very first use on a machine compiles them (~25 s, once: the result is
cached on disk, in `__pycache__` beside the kernels or Numba's per-user cache directory). A
command-line call or a notebook evaluating one pose must not pay that, so by default
("auto") the kernels are compiled from the `HOT_CALLS`-th single call of the process on, in
a child process that fills Numba's disk cache: calls go on in NumPy meanwhile, and the first
call after the child is done loads the kernels from that cache (a cold compile took 20–120 s
on the 2-core test machine; the warm load that call pays, about 1 s). Not a thread of this
process: Numba's compiler and the imports it makes enter `warnings.catch_warnings`, which
saves and restores the process-wide filters and record sink, so from a second thread it would
undo a caller's own `catch_warnings` block and lose the warnings the caller records. Set the environment variable ``KINEMATICA_COMPILED`` to ``always`` (load,
and wait for it, at the first call: a long-running service or a benchmark) or ``never``
(NumPy only), or call `use_compiled`.

If Numba is missing or a kernel fails to compile, the NumPy code runs on, after one
`RuntimeWarning` saying why: speed is lost, never an answer.

>>> import kinematica.compiled as compiled
>>> compiled.mode() in ("auto", "always", "never")
True
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import threading
import warnings
from pathlib import Path
from types import ModuleType

HOT_CALLS = 2000  # single calls before "auto" loads the kernels (~20 ms of NumPy calls)
MODES = ("auto", "always", "never")
# The kernel modules, each beside the reference code it speeds up (imported by name: they
# import Numba at their top, which nothing else may do).
MODULES = {"ik": "kinematica.ik.lm_kernel", "one": "kinematica.ik.single_kernel"}

_mode = os.environ.get("KINEMATICA_COMPILED", "auto").strip().lower() or "auto"
if _mode not in MODES:
    warnings.warn(f"KINEMATICA_COMPILED={_mode!r} is not one of {', '.join(MODES)}: using 'auto'",
                  RuntimeWarning, stacklevel=2)
    _mode = "auto"
_calls = 0
_loaded: dict[str, ModuleType | None] = {}  # None: tried and failed (NumPy from then on)
_warned = False
_loader: subprocess.Popen | None = None  # auto's compiling child process, once started
_lock = threading.Lock()  # one load of a module at a time


def mode() -> str:
    """The current policy: "auto", "always" or "never"."""
    return _mode


def use_compiled(setting: str = "always", wait: bool = True) -> bool:
    """Set the policy (see the module docstring); with wait, load every kernel now (compiling
    it on a machine's first run) so that no later call pays the load. Returns whether the
    kernels are in use."""
    global _mode
    if setting not in MODES:
        raise ValueError(f"setting must be one of {', '.join(map(repr, MODES))}, got {setting!r}")
    _mode = setting
    if setting != "never" and wait:
        for name in MODULES:
            _load(name)
    return setting != "never" and all(_loaded.get(name) is not None for name in MODULES)


def kernels(name: str) -> ModuleType | None:
    """The kernel module `name` (a key of MODULES) if the compiled path should run now, else
    None. Called by every single-call path: one dictionary lookup once loaded."""
    got = _loaded.get(name)
    if got is not None:
        return got if _mode != "never" else None
    if _mode == "never" or name in _loaded:
        return None
    if _mode == "auto":
        global _calls, _loader
        _calls += 1
        if _calls >= HOT_CALLS and _loader is None:
            _loader = _compile_in_child()
        elif _loader is not None and _loader.poll() is not None:
            _load_all()  # the child filled the disk cache: a warm load, in the caller's thread
            return kernels(name)
        return None
    return _load(name)


def ready(name: str) -> ModuleType | None:
    """The kernel module `name` if it is loaded and in use, else None — neither counted
    towards `HOT_CALLS` nor loaded: for a fast path in front of code that calls `kernels`."""
    got = _loaded.get(name)
    return got if got is not None and _mode != "never" else None


def wait_loaded(timeout: float | None = None) -> bool:
    """Wait for auto's compiling child, if one has started, then load the kernels from the
    disk cache it filled; whether every kernel is in (False on timeout)."""
    if _loader is not None:
        try:
            _loader.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        _load_all()
    return all(_loaded.get(name) is not None for name in MODULES)


def _compile_in_child() -> subprocess.Popen:
    """A Python process that imports and warms every kernel (compiling into Numba's disk cache
    on a machine's first run), its output discarded: a failure is reported, once, by the load
    in this process that follows."""
    package_parent = str(Path(__file__).resolve().parent.parent)  # this kinematica, not another
    code = f"import sys; sys.path.insert(0, {package_parent!r}); import kinematica.compiled as c; c._load_all()"
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _load_all() -> None:
    for name in MODULES:
        _load(name)


def _load(name: str) -> ModuleType | None:
    with _lock:
        if name not in _loaded:
            _loaded[name] = _import(name)
    return _loaded[name]


def _import(name: str) -> ModuleType | None:
    try:
        module = importlib.import_module(MODULES[name])
        module.warm()  # compile (or load from the disk cache) and run once: fail here, not later
    except Exception as exc:  # Numba missing, or a compilation failure: NumPy carries on
        global _warned
        if not _warned:
            _warned = True
            warnings.warn(f"kinematica: compiled kernels unavailable ({type(exc).__name__}: {exc}); "
                          "using the NumPy code, which is slower for single calls", RuntimeWarning,
                          stacklevel=3)
        module = None
    return module
