"""Learned IK models in the simulator (issue 13): a model file read for the session's robot, and
what the IK panel offers with it — the model as a method of its own ("anfis": its answer alone,
approximate) and as the seed of the numeric methods (LM from the model's answer). Either takes
every target kind the panel offers: for a position alone the model answers with the orientation
it picks (its own best guess, `kinematica.learn.complete`), and the verdict says so.

Plain Python over `kinematica.learn`, no NiceGUI, like `state.py`. A model is kept per robot
label, so switching robots and back finds it again; it is not saved in a project (the model
file is not part of one), and a project restored without it falls back to LM.

>>> import kinematica as km, tempfile, os
>>> from kinematica.learn import train_ik, save_model
>>> path = os.path.join(tempfile.mkdtemp(), "m.npz")
>>> save_model(train_ik("planar-3r", samples=600, rules=8, epochs=2, warm_start=0), path)
>>> read_ik_model(path, "m.npz", km.load("braccio"))
Traceback (most recent call last):
...
kinematica.learn.model.WrongRobotError: this model was trained for 'planar-3r', not for 'braccio'; train one for it with `kinematica learn`
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import kinematica as km

METHOD = "anfis"  # the IK method of a loaded model (km.ik's name for it)
METHOD_LABEL = "ANFIS model alone (learned, approximate)"
SEEDS = {"current": "the current joint values", "model": "the ANFIS model's answer"}


@dataclass(frozen=True)
class LoadedModel:
    """An IK model read from the file the user calls `name`."""

    name: str
    model: Any  # kinematica.learn.IKModel

    def summary(self) -> str:
        """What the model is and how good it was on its held-out targets, in one line."""
        r = self.model.report
        words = f"{self.name}: branch {self.model.branch.spec}, {self.model.net.n_rules} rules"
        alone = r.get("alone", {})
        if "position_median" in alone:
            unit = r.get("length_unit", self.model.robot.length_unit)
            words += (f"; on {alone['count']} held-out targets its answer alone misses by "
                      f"{alone['position_median']:.3g} {unit} (median), {alone['position_p95']:.3g} {unit} (p95)")
        return words


def read_ik_model(path: str | Path, name: str, robot: km.Robot) -> LoadedModel:
    """The IK model in the file at `path` (the user's `name` for it), for `robot`.

    A file that is not a model file, a dynamics model, or a model trained for another robot
    raises a ValueError (ModelFileError, LearnError, WrongRobotError) saying which."""
    from kinematica.learn import LearnError, load_model
    from kinematica.learn.model import check_robot

    model = load_model(path)
    if model.kind != "ik":
        raise LearnError(f"a {model.kind} model (joint torques from q, q̇, q̈); the IK panel takes an IK model "
                         f"(`kinematica learn ik`)")
    check_robot(model, robot)
    return LoadedModel(name, model)


def method_choices(methods: dict[str, str], loaded: LoadedModel | None) -> dict[str, str]:
    """The IK methods the panel offers: the core's, and the model's when one is loaded."""
    return {**methods, METHOD: METHOD_LABEL} if loaded is not None else dict(methods)


def seed_choices(loaded: LoadedModel | None) -> dict[str, str]:
    """Where a numeric solve starts: the current joint values, or the loaded model's answer."""
    return dict(SEEDS) if loaded is not None else {"current": SEEDS["current"]}


def answer_words(result: km.IKResult, unit: str) -> str:
    """The verdict on the model's answer alone (never 'solved' unless FK says so)."""
    if result.success:
        return "The ANFIS model's answer meets the tolerances."
    miss = f"{float(result.position_error):.3g} {unit}"
    if not result.reachable:
        return f"Not solved — {result.reason}. The arm was not moved."
    return (f"Not solved — the ANFIS model's answer misses the target by {miss} and "
            f"{np.degrees(float(result.orientation_error)):.3g}° (a learned answer is approximate). "
            "It is listed below to adopt; to finish it, pick Levenberg–Marquardt with the model's answer "
            "as the start. The arm was not moved.")


def picked_words(model: Any, target: km.Target) -> str:
    """", for the orientation it picked" when the target leaves free the orientation the model
    reads (a position alone; `kinematica.learn.complete`), else nothing."""
    from kinematica.learn.complete import needs_orientation

    return ", for the orientation it picked" if needs_orientation(model, target) else ""
