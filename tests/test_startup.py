"""What start-up imports: the heavy libraries load where they are used, not with the package.

`import kinematica` used to take 0.45 s, most of it SciPy's spatial, interpolate and special
modules, and every CLI call paid ~1.2 s (SymPy for `explain`, whatever the command). Timing
belongs in benchmarks (`python -X importtime`); these tests check the cause instead: which
modules a fresh interpreter holds after the import and after a plain FK, so a new top-level
`import scipy…` anywhere on that path fails here on any machine.
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("scipy", "sympy", "matplotlib", "nicegui", "jsonschema", "yourdfpy", "trimesh", "mujoco", "toppra",
         "modern_robotics", "serial", "dask", "distributed", "numba")


def loaded_after(code: str) -> list[str]:
    """The HEAVY top-level packages a fresh interpreter has imported after running `code`."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r})))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_kinematica_loads_no_heavy_library():
    assert loaded_after("import kinematica") == []


def test_fk_and_jacobian_of_a_bundled_robot_need_no_scipy():
    # reading the robot file validates it with jsonschema; nothing else heavy
    assert loaded_after("import kinematica as km\nr = km.load('puma560')\nkm.fk(r, r.q_home)\n"
                        "km.jacobian(r, r.q_home)") == ["jsonschema"]


def test_the_cli_entry_point_loads_no_heavy_library():
    assert loaded_after("from kinematica.cli import main") == []


def test_lazy_names_resolve_to_the_same_objects():
    import kinematica as km
    from kinematica.dynamics import rne
    from kinematica.trajectory import Trajectory

    assert km.rne is rne and km.Trajectory is Trajectory and km.trajectory.Trajectory is Trajectory
    assert set(km.__all__) <= set(dir(km))
    assert all(getattr(km, name) is not None for name in km.__all__)
