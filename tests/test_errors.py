"""One base for every error: `except km.KinematicaError` catches whatever Kinematica raises on
purpose, while each error keeps its standard base (ValueError, TypeError, RuntimeError, OSError)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import kinematica as km


def every_module():
    for info in pkgutil.walk_packages(km.__path__, "kinematica."):
        yield importlib.import_module(info.name)


def test_every_exception_class_in_the_package_is_a_kinematica_error():
    found = []
    for module in every_module():
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and issubclass(obj, Exception) and not issubclass(obj, Warning)
                    and obj.__module__ == module.__name__):
                found.append(obj)
    private = {"_DuplicateKey"}  # YAML's own error, turned into a RobotFileError before it leaves
    loose = [f"{c.__module__}.{c.__name__}" for c in found if not issubclass(c, km.KinematicaError)
             and c.__name__ not in private]
    assert len(found) > 25 and not loose, loose


@pytest.mark.parametrize("call, also", [
    (lambda: km.load("no-such-robot"), ValueError),
    (lambda: km.fk("puma560", [0, 0]), ValueError),
    (lambda: km.fk(None, [0]), TypeError),
    (lambda: km.trajectory.line(np.eye(4), np.eye(4), steps=10**8), ValueError),
    (lambda: km.ik("puma560", np.eye(4), method="magic"), ValueError),
])
def test_one_except_clause_catches_them_and_the_old_bases_still_do(call, also):
    with pytest.raises(km.KinematicaError):
        call()
    with pytest.raises(also):
        call()
