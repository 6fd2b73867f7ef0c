"""Fuzz: the command line, in-process (`kinematica.cli.main(argv)`).

Argument lists are drawn from the real parser (every subcommand, option, nargs and choice it
declares, so a new option is fuzzed without editing this file) with random values: good ones,
wrong types, NaN, inf, 1e308, huge counts, unknown robots, missing, broken and wrong-kind files,
output files with every extension. Every run must end in one of two ways:

* exit 1 or 2 with exactly one line `kinematica: error: <message>` on stderr;
* exit 0 with output (valid JSON with --json; the files --out names written), checked where a
  check is cheap: fk's pose is FK of its joint values, ik's reported position error is the
  distance FK measures.

Never an exception out of `main`, a warning a user would see, a hang or a memory blow-up.
`serve` and `docs` (start a server) and `demo` (no arguments to fuzz) are left out, and so are
`braccio` and `so101`: their actions are sub-subcommands this generator does not descend into
(it drew `so101 emulate` once, with no action after it), `emulate` serves until Ctrl+C, and the
others open serial ports (tests/test_cli_braccio.py and test_cli_so101.py cover their bad input); and
`workspace`: its valid runs are long by nature (a map's default is ~10⁶ IK solves); its bad
input is tested in test_cli_workspace.py.

Counts and durations are drawn below or above each command's bound, not in between: a valid
but legitimately long run (a million simulation samples) is not a hang, and a fuzz suite
that waits for it would not run in CI.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shlex
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import kinematica as km
from kinematica.cli import build_parser, main

from fuzzing import bounded, fuzz_settings, no_user_warnings

LEFT_OUT = {"serve", "demo", "braccio", "so101", "workspace", "docs"}
_PARSER = build_parser()
COMMANDS = {name: p for name, p in next(a for a in _PARSER._actions
                                        if isinstance(a, argparse._SubParsersAction)).choices.items()
            if name not in LEFT_OUT}

NUMBERS = ["0", "0.5", "1", "-1", "2", "30", "-45", "90", "0.1", "-0.3", "1e-3"]
HOSTILE = ["nan", "NaN", "inf", "-inf", "1e308", "-1e308", "1e-308", "1e400", "abc", "", " ",
           "0x10", "1_0", "٣", "-", "--", "1e6", "-1e9", "1,5", "None", "[1]"]
COUNTS = ["0", "1", "3", "5", "-1", "100000000", "99999999999999999999", "abc", "1.5", "nan", ""]
# Per option: values around its bound (below it or above it, never a valid-but-slow middle).
BY_OPTION = {
    "--duration": ["0.2", "1", "0", "-1", "nan", "inf", "1e308", "1e-308", "1e4", "abc"],
    "--dt": ["0.01", "0.05", "0", "-0.01", "nan", "inf", "1e-300", "1e308", "abc", "2"],
    "--fps": ["10", "0", "-1", "nan", "inf", "1e308", "abc", "101"],
    "--dpi": ["40", "0", "-5", "nan", "inf", "1e308", "abc", "1001"],
    "--size": ["120", "0", "-1", "nan", "inf", "1e308", "abc", "10001"],
    "--tol": ["1e-6", "0", "-1", "nan", "inf", "1e308", "abc", "1e-300"],
    "--speed": ["0.1", "0", "-1", "nan", "inf", "1e308", "abc"],
    "--n": ["2", "5", "0", "-1", "100001", "99999999999999999999", "abc", "1.5"],
    "--n-frames": ["2", "0", "-1", "2001", "99999999999999999999", "abc"],
    "--samples": ["50", "0", "-1", "200001", "99999999999999999999", "abc"],
    "--restarts": ["0", "2", "-1", "100000000", "99999999999999999999", "abc"],
    "--seed": ["0", "7", "-1", "99999999999999999999", "abc"],
}
UNKNOWN_FORMATS = {".xyz", ""}  # an --out a command must refuse (without --format), not fill with some format
JOINT_VECTORS = {"q", "--q", "--q0", "--qd", "--qdd", "--qd0", "--torque", "--from", "--to",
                 "--poses", "--vmax", "--amax"}
POINTS = {"--position", "--start", "--through", "--points", "--target"}


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, list[str]]:
    """Input files of every kind (good, broken, wrong kind, missing, a folder) and output paths."""
    d = tmp_path_factory.mktemp("fuzz-cli")
    (d / "folder.yaml").mkdir()
    km.save(km.load("planar-3r").replace(name="copy"), d / "good.yaml")
    km.save(km.load("puma560"), d / "puma.urdf")
    (d / "broken.yaml").write_text("name: [1\n", encoding="utf-8")
    (d / "binary.urdf").write_bytes(b"\x00\xff\x10garbage")
    with contextlib.redirect_stdout(io.StringIO()):
        for out in ("good.csv", "good.json"):
            assert main(["traj", "puma560", "joint", "--to", *["0.3"] * 6, "--n", "10",
                         "--out", str(d / out)]) == 0
    (d / "broken.csv").write_text("t,q1\n0,1\nx,y,z\n", encoding="utf-8")
    (d / "empty.json").write_text("{}", encoding="utf-8")
    inputs = [str(d / n) for n in ("good.yaml", "puma.urdf", "broken.yaml", "binary.urdf",
                                   "folder.yaml", "good.csv", "good.json", "broken.csv",
                                   "empty.json", "missing.yaml", "missing.csv")]
    outputs = [str(d / "out" / f"o{ext}") for ext in (".png", ".svg", ".pdf", ".gif", ".mp4", ".csv",
                                                     ".json", ".txt", ".md", ".html", ".tex", ".xyz", "")]
    outputs += [str(d / "no-such-folder" / "o.png"), str(d / "folder.yaml"), str(d / "out")]
    (d / "out").mkdir()
    return {"robots": km.robot_names() + ["nope", "", "PUMA", "puma56", *inputs[:5], inputs[-2]],
            "inputs": inputs, "outputs": outputs}


def _n(robot: str) -> int:
    try:
        return km.load(robot).n if robot in km.robot_names() else 3
    except ValueError:
        return 3


@st.composite
def argv_lists(draw, files: dict[str, list[str]]) -> list[str]:
    """A subcommand with its robot, positionals and 0-5 options, values good and hostile."""
    name = draw(st.sampled_from(sorted(COMMANDS)))
    parser = COMMANDS[name]
    argv = [name]
    # Half the lists are clean (good values where the option takes numbers) so that runs get
    # past the first check into the computation; in the other half a value is hostile 1 time in 4.
    hostile = st.just(False) if draw(st.booleans()) else st.integers(0, 3).map(lambda k: k == 0)

    def sometimes_bad(good, bad):
        return draw(bad if draw(hostile) else good)

    robot = sometimes_bad(st.sampled_from(km.robot_names()), st.sampled_from(files["robots"]))
    n = _n(robot)

    def values(dest: str, count: int) -> list[str]:
        if dest in BY_OPTION:  # the first values of each list are good ones
            good, bad = st.sampled_from(BY_OPTION[dest][:2]), st.sampled_from(BY_OPTION[dest])
        elif dest in ("--out", "--scenarios"):
            good = bad = st.sampled_from(files["outputs"])
        elif dest in ("--trajectory",):
            good = bad = st.sampled_from(files["inputs"])
        else:
            good, bad = st.sampled_from(NUMBERS), st.sampled_from(HOSTILE)
        return [sometimes_bad(good, bad) for _ in range(count)]

    def count(dest: str, nargs) -> int:
        wrong = draw(st.integers(0, 9)) == 0  # one time in ten, the wrong number of values
        if isinstance(nargs, int):
            return max(0, nargs + draw(st.sampled_from([-1, 1]))) if wrong else nargs
        if dest in JOINT_VECTORS:
            return draw(st.integers(0, 8)) if wrong else (n if dest != "--vmax" else draw(st.sampled_from([1, n])))
        if dest in POINTS:
            return draw(st.integers(0, 5)) if wrong else draw(st.sampled_from([3, 3, 2]))
        return draw(st.integers(1, 3)) if nargs in ("+", "*") else 1

    options = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if not action.option_strings:  # a positional
            if action.dest == "robot":
                argv.append(robot)
            elif action.choices:
                argv.append(sometimes_bad(st.sampled_from(list(action.choices)), st.sampled_from(["", "nope"])))
            else:
                argv += values(action.dest, count(action.dest, action.nargs))
        elif action.required or draw(st.integers(0, 3)) == 0:
            options.append(action)
    for group in parser._mutually_exclusive_groups:  # e.g. dynamics: --q or --trajectory
        if group.required and not any(a in options for a in group._group_actions):
            options.append(draw(st.sampled_from(group._group_actions)))
    required = [a for a in options if a.required]
    options = required + [a for a in draw(st.permutations(options)) if not a.required][:5]
    for action in options:
        flag = action.option_strings[-1]
        argv.append(flag)
        if action.nargs == 0:
            continue
        if action.choices:
            argv += [sometimes_bad(st.sampled_from(list(action.choices)), st.just("nope"))]
        else:
            argv += values(flag, count(flag, action.nargs))
    if draw(st.integers(0, 30)) == 0:
        argv.append(draw(st.sampled_from(["--help", "--bogus", "-x", "extra"])))
    return argv


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `kinematica ARGV`, with the hang and memory guard."""
    what = f"kinematica {shlex.join(argv)}"
    out, err = io.StringIO(), io.StringIO()
    with bounded(what), no_user_warnings(what), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except Exception as e:  # noqa: BLE001 - any exception out of main is the failure
            raise AssertionError(f"{what}: {type(e).__name__} out of main (a traceback): {e}") from e
    return code, out.getvalue(), err.getvalue()


def check(argv: list[str]) -> None:
    what = f"kinematica {shlex.join(argv)}"
    code, out, err = run_cli(argv)
    assert "Traceback" not in out + err, f"{what}: printed a traceback:\n{err}"
    if code != 0:
        assert code in (1, 2), f"{what}: exit code {code}"
        # progress lines of long work (cli/progress.py) and warnings about the input may come first
        lines = [line for line in err.splitlines()
                 if not line.endswith("(Ctrl+C stops)") and not line.startswith("kinematica: warning: ")]
        assert len(lines) == 1 and lines[0].startswith("kinematica: error: ") and \
            len(lines[0]) > len("kinematica: error: "), f"{what}: exit {code}, stderr not one error line:\n{err}"
        return
    assert out.strip(), f"{what}: exit 0 and no output"
    assert all(line.startswith("kinematica: ") and "error" not in line for line in err.splitlines()), \
        f"{what}: exit 0 but stderr says:\n{err}"
    if "--help" in argv:
        return
    if "--json" in argv:
        data = json.loads(out, parse_constant=lambda c: pytest.fail(f"{what}: JSON with {c}"))
        check_answer(argv, data, what)
    if "--out" in argv:
        path = Path(argv[argv.index("--out") + 1])
        assert path.is_file() and path.stat().st_size > 0, f"{what}: exit 0 but {path} not written"
        if "--format" not in argv:  # (a format named outright may go to any file name: explain's rule)
            assert path.suffix not in UNKNOWN_FORMATS, f"{what}: wrote {path.name!r}, a format no command writes"


def check_answer(argv: list[str], data, what: str) -> None:
    """Independent checks of a successful answer where they are cheap."""
    command, robot = argv[0], argv[1] if len(argv) > 1 else None
    if command == "fk" and isinstance(data, dict) and "T" in data:
        r = km.load(robot)
        T = km.fk(r, data["q"])
        # JSON keeps every float exactly (shortest round trip) or tidies it by one ulp.
        assert np.allclose(data["T"], T, rtol=1e-12, atol=1e-12 * (1 + np.abs(T).max())), \
            f"{what}: the printed pose is not FK of the printed q"
    if command == "ik" and isinstance(data, dict) and data.get("target", {}).get("position"):
        r = km.load(robot)
        p = np.asarray(data["target"]["position"], dtype=float)
        for s in data.get("solutions", []):
            d = np.linalg.norm(km.fk(r, s["q"])[: len(p), 3] - p)
            # position_error is that distance, computed the same way: agreement to round-off of
            # the position's size.
            assert abs(d - s["position_error"]) <= 1e-9 * (1 + np.abs(p).max()), \
                f"{what}: reports position error {s['position_error']}, FK says {d}"


@fuzz_settings(6)
@given(data=st.data())
@example(data=["fk", "puma560", "1e308", "0", "0", "0", "0", "0"]).via("issue 11: fk 1e308")
@example(data=["ik", "puma560", "--position", "0.9", "0", "0", "--rpy", "0", "0", "0", "--restarts", "100000000"])
@example(data=["simulate", "puma560", "--duration", "1", "--torque", *["1e6"] * 6]).via("issue 11: stiff")
@example(data=["simulate", "panda", "--duration", "0.2", "--torque", "-45", "0.5", "1e-3", "1e-3", "-1e9", "-1e9",
               "30", "--json"]).via("found by this fuzz: the same stiff solve")
@example(data=["explain", "puma560", "fk", "--q", *["0"] * 6, "--out", "{out}/e.xyz"]).via("issue 11")
@example(data=["explain", "arm-4dof", "fk", "--out", "{out}/e.json", "--json"]).via("stdout was not JSON")
@example(data=["show", "{in}/binary.urdf"]).via("a .urdf whose text was taken for a file name")
def test_cli(files, data):
    if isinstance(data, list):  # an explicit example: fill in the fixture's folders
        folder = str(Path(files["inputs"][0]).parent)
        argv = [a.replace("{out}", folder + "/out").replace("{in}", folder) for a in data]
    else:
        argv = data.draw(argv_lists(files), label="argv")
    check(argv)
