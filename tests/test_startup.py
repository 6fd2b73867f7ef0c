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
         "modern_robotics", "serial", "dask", "distributed", "numba", "ompl", "coal")


def loaded_after(code: str) -> list[str]:
    """The HEAVY top-level packages a fresh interpreter has imported after running `code`."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r})))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_kinematica_loads_no_heavy_library():
    assert loaded_after("import kinematica") == []


def test_import_kinematica_loads_nothing_but_its_front_door():
    # every public name loads at first use (kinematica.lazy): not even NumPy comes with the package
    probe = ("import sys, kinematica\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'kinematica')))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert eval(out.stdout) == ["kinematica", "kinematica._version", "kinematica.errors", "kinematica.ik",
                                "kinematica.lazy", "kinematica.plan"]


def test_km_ik_stays_the_function_whatever_is_imported_first():
    # a module of the ik subpackage imported before km.ik is touched must not rebind the name
    probe = ("import kinematica.ik.limits, kinematica.trajectory\nimport kinematica as km\n"
             "print(km.ik.__module__, callable(km.ik), km.ik.__name__)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["kinematica.ik.solve", "True", "ik"]


def test_km_plan_stays_the_function_whatever_is_imported_first():
    probe = ("import kinematica.plan.result\nimport kinematica as km\n"
             "print(km.plan.__module__, callable(km.plan), km.plan.__name__)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["kinematica.plan.planner", "True", "plan"]


def test_a_cli_call_imports_only_its_command():
    probe = ("import io, sys\nfrom kinematica.cli import main\n"
             "assert main(['fk', 'puma560', '0', '0', '0', '0', '0', '0'], ) == 0\n"
             "print(sorted({'.'.join(m.split('.')[:3]) for m in sys.modules if m.startswith('kinematica.cli.')}))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert eval(out.stdout.splitlines()[-1]) == ["kinematica.cli.common", "kinematica.cli.kinematics",
                                                 "kinematica.cli.text"]


def test_each_command_builds_from_its_own_module():
    import argparse

    from kinematica.cli import COMMANDS, build_parser

    def choices(parser: argparse.ArgumentParser) -> list[str]:
        return list(next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices)
    names = [name for group in COMMANDS.values() for name in group]
    assert choices(build_parser()) == names  # the table is the whole command line, in its order
    for module, group in COMMANDS.items():
        assert choices(build_parser(group[0])) == list(group), module
    assert choices(build_parser("no-such-command")) == names  # argparse then names the choices


def test_fk_and_jacobian_of_a_bundled_robot_need_no_heavy_library():
    # a bundled file skips the schema pass (the tests hold it to the schema): not even jsonschema
    assert loaded_after("import kinematica as km\nr = km.load('puma560')\nkm.fk(r, r.q_home)\n"
                        "km.jacobian(r, r.q_home)") == []


def test_a_users_robot_file_is_still_validated_with_jsonschema(tmp_path):
    import kinematica as km

    path = km.save(km.load("puma560"), tmp_path / "arm.yaml")
    assert loaded_after(f"import kinematica as km\nkm.load({str(path)!r})") == ["jsonschema"]


def test_the_cli_entry_point_loads_no_heavy_library():
    assert loaded_after("from kinematica.cli import main") == []


def test_lazy_names_resolve_to_the_same_objects():
    import kinematica as km
    from kinematica.dynamics import rne
    from kinematica.trajectory import Trajectory

    assert km.rne is rne and km.Trajectory is Trajectory and km.trajectory.Trajectory is Trajectory
    assert set(km.__all__) <= set(dir(km))
    assert all(getattr(km, name) is not None for name in km.__all__)
