"""The package as a user installs it: built into an sdist and a wheel (`python -m build`), checked
by `twine check`, and the wheel (not an editable install) installed with its dependencies into a
fresh virtual environment, where the CLI, the demo, the simulator's first page with its assets and
an explanation page must work.

One build for the session (the `dist` fixture, tests/conftest.py: tests/test_extras.py installs the
same wheel without extras) and one venv for the module (about a minute with pip's cache warm, most
of it unpacking the dependencies); the build needs the package registry for its build backend
(scikit-build-core, setuptools-scm), as `pip install -e .` does.
"""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from installs import run as _run
from installs import once, shared_root, venv_with
from serving import Server, fetch

pytestmark = pytest.mark.release

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def venv(dist, tmp_path_factory) -> Path:
    """A fresh venv with the wheel, the `app` extra (the simulator, explain, scenes) and their
    dependencies from the registry (pip's cache). The core alone: tests/test_extras.py."""
    return once(shared_root(tmp_path_factory), "app-venv",
                lambda where: venv_with(where, next(dist.glob("*.whl")), extras="app"))


def test_sdist_and_wheel_pass_twine_check(dist):
    files = sorted(dist.iterdir())
    assert sorted(f.suffix for f in files) == [".gz", ".whl"], files
    done = _run(sys.executable, "-m", "twine", "check", "--strict", *files)
    assert done.stdout.count("PASSED") == 2, done.stdout


def test_wheel_carries_the_data_and_the_license(dist):
    names = zipfile.ZipFile(next(dist.glob("*.whl"))).namelist()
    tracked = subprocess.run(["git", "ls-files", "src/kinematica"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout: the list of shipped files is unknown")
    shipped = (".yaml", ".ino", ".h", ".py", ".json")
    # and every file of the bundled robots' folders: the SO-ARMs' meshes, URDFs, LICENSE and NOTICE
    wanted = {f.removeprefix("src/") for f in tracked.stdout.split()
              if f.endswith(shipped) or f.startswith("src/kinematica/model/robots/")}
    assert not wanted - set(names), f"missing from the wheel: {sorted(wanted - set(names))[:10]}"
    assert any(n.endswith("licenses/LICENSE") for n in names)
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(next(dist.glob("*.whl"))).read(meta).decode()
    assert "License-Expression: MIT" in text


def _py(venv: Path) -> Path:
    return venv / "bin" / "python"


def test_installed_from_the_wheel_not_the_source_tree(venv):
    done = _run(_py(venv), "-c", "import kinematica as km; print(km.__file__); print(km.__version__)", cwd=venv)
    path, version = done.stdout.split()
    assert Path(path).resolve().is_relative_to(venv.resolve()), path
    assert re.fullmatch(r"\d+\.\d+(\.\d+)?([.-]?(dev|a|b|rc)\d+)?(\+[\w.]+)?", version), version
    cli = _run(venv / "bin" / "kinematica", "--version")
    assert cli.stdout.strip() == f"kinematica {version}"


def test_demo_and_every_bundled_robot_from_the_wheel(venv):
    demo = _run(venv / "bin" / "kinematica", "demo", cwd=venv)
    assert demo.stdout.count("Paper ") >= 5 and "Traceback" not in demo.stderr
    robots = _run(venv / "bin" / "kinematica", "robots", "--json", cwd=venv)
    names = re.findall(r'"name": "([^"]+)"', robots.stdout)
    assert len(names) >= 11 and {"so100", "so101"} <= set(names), robots.stdout[:300]
    code = ("import kinematica as km, numpy as np, os\n"
            f"for name in {names!r}:\n"
            "    r = km.load(name); T = km.fk(r, r.q_home); assert np.isfinite(T).all(), name\n"
            "    assert all(os.path.isfile(v.path) for v in r.visuals or () if v.kind == 'mesh'), name\n"
            "from kinematica.scene import scene_names\n"
            "for name in scene_names():\n"
            "    km.Scene.load(name)\n")
    _run(_py(venv), "-c", code, cwd=venv)


def test_explain_html_from_the_wheel(venv, tmp_path):
    out = tmp_path / "fk.html"
    _run(venv / "bin" / "kinematica", "explain", "planar-3r", "fk", "--q", "30", "30", "20", "--deg", "--out", out)
    html = out.read_text(encoding="utf-8")
    assert "<html" in html.lower() and ("<math" in html or "MathJax" in html)
    # links to mathjax.org inside MathJax's own menu are text a reader may follow, not loads
    loads = re.findall(r"""<(?:script|img|iframe)[^>]+src=["']https?://[^"']*|<link[^>]+href=["']https?://[^"']*""", html)
    assert not loads, f"the page must not load anything from the web: {loads[:3]}"


def test_simulator_first_page_and_its_assets_from_the_wheel(venv):
    # A bound on a hang, not a timing: the first start in the venv byte-compiles what it imports
    # (installed with --no-compile), minutes on a loaded 2-core machine.
    with Server(python=str(_py(venv)), timeout=180) as server:
        with fetch(server.url, timeout=10) as r:
            assert r.status == 200
            page = r.read().decode()
        assets = re.findall(r"""(?:src|href)=["'](/_nicegui/[^"']+)["']""", page)
        assert assets, page[:500]
        for asset in assets[:5]:
            with fetch(server.url.rstrip("/") + asset, timeout=10) as r:
                assert r.status == 200, asset
