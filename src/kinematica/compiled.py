"""When the compiled (Numba) inverse-kinematics kernels run instead of the NumPy code they are
tested equal to. FK, the Jacobians, RNE and the mass matrix are not here: the C++ core
(`kinematica._core`) computes them for every call, with no warm-up; the IK kernels move there
too (issue 26, phase 2), and this module goes with them.

Numba turns a single IK iteration from tens of µs of NumPy calls into a few, but
it costs to start: importing Numba and loading the kernels from its on-disk cache takes
~0.3–0.7 s, and the very first use on a machine compiles them (~25 s, once: the result is
cached on disk, in `__pycache__` beside the kernels or Numba's per-user cache directory). A
command-line call or a notebook evaluating one pose must not pay that, so by default
("auto") the kernels start loading at the `HOT_CALLS`-th single call of the process, in a
background thread: calls go on in NumPy meanwhile (a little slower while the compiler shares
the interpreter) and switch to the kernels once they are in, so neither a loop nor the
simulator ever stops to wait (a cold compile took 20–50 s on the 2-core test machine, a warm
load about 1 s). Set the environment variable ``KINEMATICA_COMPILED`` to ``always`` (load,
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
import threading
import warnings
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
_loader: threading.Thread | None = None  # auto's background load, once started
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
            _loader = threading.Thread(target=_load_all, name="kinematica-kernels", daemon=True)
            _loader.start()
        return None
    return _load(name)


def ready(name: str) -> ModuleType | None:
    """The kernel module `name` if it is loaded and in use, else None — neither counted
    towards `HOT_CALLS` nor loaded: for a fast path in front of code that calls `kernels`."""
    got = _loaded.get(name)
    return got if got is not None and _mode != "never" else None


def wait_loaded(timeout: float | None = None) -> bool:
    """Wait for auto's background load, if one has started; whether every kernel is in."""
    if _loader is not None:
        _loader.join(timeout)
    return all(_loaded.get(name) is not None for name in MODULES)


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
