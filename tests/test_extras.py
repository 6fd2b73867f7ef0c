"""Optional extras: the table in kinematica/extras.py matches pyproject.toml, a missing extra is
named in one line, and the package alone (its wheel in a fresh venv with the real core
dependencies, no NiceGUI, Matplotlib or SymPy) computes FK, IK and RNE.

The venv is made once per test session (~40 s with pip's cache: the core's wheels) from the wheel
tests/test_release.py checks (the `dist` fixture, tests/conftest.py), so the C++ core is compiled
once for both; the editable install is what scripts/test.sh itself runs.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import kinematica as km
from kinematica.extras import EXTRAS, MissingExtra, missing, need, require
from installs import clean_env, once, shared_root, venv_with

ROOT = Path(__file__).resolve().parents[1]
FACES = {"nicegui": "app", "matplotlib": "plot", "sympy": "explain"}


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_extras_table_matches_pyproject():
    optional = _pyproject()["project"]["optional-dependencies"]
    assert set(optional) - {"test"} == set(EXTRAS)
    # [all] installs every other extra, and the test extra installs [all]
    (everything,) = optional["all"]
    assert everything.startswith("kinematica[") and everything.endswith("]")
    assert set(everything[len("kinematica["):-1].split(",")) == set(EXTRAS) - {"all"}
    assert "kinematica[all]" in optional["test"]


def test_core_dependencies_are_the_core():
    deps = {d.split(">")[0].split("<")[0].split("=")[0].lower() for d in _pyproject()["project"]["dependencies"]}
    assert deps == {"numpy", "scipy", "pyyaml", "jsonschema", "yourdfpy"}  # the C++ core is built, not a dependency


def test_missing_extra_is_one_line_naming_it():
    with pytest.raises(MissingExtra) as e:
        need("kinematica_no_such_module_xyz", "plot", "a figure")
    text = str(e.value)
    assert "\n" not in text and '"kinematica[plot]"' in text and "a figure" in text
    # catchable as the package's errors and as what an import failure is
    assert isinstance(e.value, km.SetupError) and isinstance(e.value, ImportError)
    assert e.value.extra == "plot"


def test_a_broken_installed_module_is_not_reported_as_a_missing_extra(tmp_path, monkeypatch):
    """An ImportError from inside an installed module (a dependency of it missing) propagates
    as it is: hiding it behind 'install the extra' would send the user the wrong way."""
    (tmp_path / "kinematica_broken_xyz.py").write_text("import kinematica_inner_missing_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as e:
        need("kinematica_broken_xyz", "plot", "a figure")
    assert not isinstance(e.value, MissingExtra) and e.value.name == "kinematica_inner_missing_xyz"


def test_require_checks_without_importing(monkeypatch):
    monkeypatch.setitem(EXTRAS, "plot", ("kinematica_no_such_module_xyz",))
    assert missing("plot") == ["kinematica_no_such_module_xyz"]
    with pytest.raises(MissingExtra, match=r"kinematica\[plot\]"):
        require("plot", "kinematica.viz")
    with pytest.raises(km.InputError, match="unknown extra"):
        missing("plots")


def test_installed_here_means_nothing_is_missing():
    """This environment has `.[test]`, which installs `[all]`."""
    assert missing("all") == []
    require("app", "the simulator")


# --- the core alone, in a fresh venv ---------------------------------------------------------------

@pytest.fixture(scope="session")
def core_python(dist, tmp_path_factory) -> Path:
    """A venv with the package's wheel only: the real core dependencies from the registry (or
    pip's cache), none of the extras."""
    where = once(shared_root(tmp_path_factory), "core-venv", lambda where: venv_with(where, next(dist.glob("*.whl"))))
    return where / "bin" / "python"


CORE_SCRIPT = textwrap.dedent("""
    import importlib.util, json, sys
    import numpy as np
    import kinematica as km

    faces = {m: importlib.util.find_spec(m) is not None for m in ("nicegui", "matplotlib", "sympy")}
    robot = km.load("puma560")
    q = np.array(json.loads(sys.argv[1]))
    T = km.fk(robot, q)
    J = km.jacobian(robot, q)
    res = km.ik(robot, T, q + 0.2)
    tau = km.rne(robot, q, 0.3 * q, -0.5 * q)
    errors = {}
    for face in ("kinematica.viz", "kinematica.explain", "kinematica.app"):
        try:
            __import__(face)
            errors[face] = None
        except km.KinematicaError as e:
            errors[face] = [type(e).__name__, str(e)]
    print(json.dumps({"faces": faces, "T": T.tolist(), "J": J.tolist(), "ik_q": res.q.tolist(),
                      "ik_success": bool(res.success), "tau": tau.tolist(), "errors": errors,
                      "loaded": sorted(m for m in ("nicegui", "matplotlib", "sympy") if m in sys.modules),
                      "file": km.__file__}))
""")


def test_core_install_runs_fk_ik_rne_without_the_faces(core_python):
    q = np.radians([10.0, -25.0, 40.0, 15.0, 30.0, -60.0])
    done = subprocess.run([str(core_python), "-c", CORE_SCRIPT, json.dumps(q.tolist())], capture_output=True,
                          text=True, cwd=core_python.parents[1], timeout=300, env=clean_env())
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert Path(out["file"]).resolve().is_relative_to(core_python.parents[1].resolve())  # the venv's, not the checkout
    assert out["faces"] == {"nicegui": False, "matplotlib": False, "sympy": False}
    assert out["loaded"] == []
    robot = km.load("puma560")
    # the same arithmetic on the same NumPy-level operations: equal to round-off (1e-12 m, rad, N·m)
    np.testing.assert_allclose(out["T"], km.fk(robot, q), atol=1e-12)
    np.testing.assert_allclose(out["J"], km.jacobian(robot, q), atol=1e-12)
    np.testing.assert_allclose(out["tau"], km.rne(robot, q, 0.3 * q, -0.5 * q), atol=1e-9)
    # IK's answer judged here, independently, by FK: the pose it claims to reach (1e-6 m, its tolerance)
    assert out["ik_success"]
    T_ik = km.fk(robot, out["ik_q"])
    assert np.linalg.norm(T_ik[:3, 3] - km.fk(robot, q)[:3, 3]) < 1e-6
    assert np.linalg.norm(T_ik[:3, :3] - km.fk(robot, q)[:3, :3]) < 1e-5
    for face, extra in (("kinematica.viz", "plot"), ("kinematica.explain", "explain"), ("kinematica.app", "app")):
        name, message = out["errors"][face]
        assert name == "MissingExtra" and f'pip install "kinematica[{extra}]"' in message and "\n" not in message


@pytest.mark.parametrize("argv, extra", [(["plot", "puma560", "arm", "--out", "arm.png"], "plot"),
                                         (["explain", "puma560", "fk"], "explain"),
                                         (["serve", "--no-browser"], "app")])
def test_core_cli_names_the_extra(core_python, tmp_path, argv, extra):
    kinematica = core_python.parent / "kinematica"
    done = subprocess.run([str(kinematica), *argv], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env=clean_env())
    assert done.returncode == 1
    assert done.stdout == ""
    line, = done.stderr.splitlines()
    assert line.startswith("kinematica: error: ") and line.endswith(f'pip install "kinematica[{extra}]"')

