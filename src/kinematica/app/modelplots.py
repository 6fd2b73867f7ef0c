"""The Plots tab's figures of the learned IK model loaded for the robot (issue 13): its training
curve, from the report inside the model file (the tool error of its answers to training and
validation targets per epoch, in mm and degrees: issues 32 and 29), and the histogram of its answers' tool position
errors on fresh targets of its branch — new joint values, their FK as targets, the model's
answers judged by FK afresh — so the histogram is of targets the model never saw.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kinematica.viz import learned as viz_learned
from kinematica.viz.style import VizError

from .chartdata import histogram_chart, training_chart
from .figures import Plot
from .learned import LoadedModel

FRESH = 1000  # fresh targets for the histogram: the median and p95 to a few per cent, in ~0.1 s
NO_MODEL = ("No learned model for {robot}: in the Simulator tab's IK card press “model” and load a model file "
            "made by `kinematica learn ik`; its training curve and error histogram appear here.")


def output_unit(loaded: LoadedModel) -> str:
    """The unit of the model's outputs (the learned joints' values)."""
    robot = loaded.model.robot
    rev = robot.revolute[loaded.model.branch.learned]
    return "rad" if rev.all() else robot.length_unit if not rev.any() else f"rad or {robot.length_unit}"


def fresh_errors(loaded: LoadedModel, count: int = FRESH, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Tool position (length unit) and orientation (rad) errors of the model's answers to
    `count` fresh targets of its branch."""
    from kinematica.learn.evaluate import answer_errors, fresh_test

    _, targets = fresh_test(loaded.model, count, np.random.default_rng(seed))
    return answer_errors(loaded.model, targets)


def curve_in_mm(report: dict) -> dict:
    """The report with its per-epoch tool position errors (training and validation) in mm: the
    curve reads in mm whatever the robot's length unit (issue 29)."""
    unit = report.get("length_unit")
    if unit not in ("m", "mm"):
        return report
    k = 1000.0 if unit == "m" else 1.0
    out: dict[str, Any] = dict(report, length_unit="mm")
    for part in ("tool_train", "tool_validation"):
        tool = report.get(part)
        if isinstance(tool, dict):
            out[part] = {key: ([k * v for v in val] if key.startswith("position_") else val) for key, val in tool.items()}
    return out


def training_words(loaded: LoadedModel) -> str:
    """The training curve's caption: how long, and the tool error at the epoch the model kept
    (the joint RMSE hybrid learning minimised, for a model file without the tool history)."""
    r = curve_in_mm(loaded.model.report)
    train = np.asarray(r["rmse_train"], dtype=float).reshape(len(r["rmse_train"]), -1)
    words = (f"{loaded.name}: {len(train)} epochs, {r.get('train_seconds', float('nan')):.3g} s of training on "
             f"{r.get('train', '?')} samples; ")
    tool, kept = r.get("tool_validation"), viz_learned.kept_epoch(r)
    if not isinstance(tool, dict) or kept is None:
        named = zip(r.get("joints", []), train[-1], strict=False)  # a report without "joints": no names, no values
        return words + ("final training RMSE per joint " + ", ".join(f"{n} {v:.3g}" for n, v in named)
                        + f" {output_unit(loaded)}.")
    unit = r.get("length_unit", loaded.model.robot.length_unit)
    deg = tool["orientation_median_deg"][kept - 1]
    return words + (f"at the epoch kept ({kept}) its answers to {tool['count']} validation targets (a subsample) missed "
                    f"by {tool['position_median'][kept - 1]:.3g} {unit} (median), "
                    f"{tool['position_mean'][kept - 1]:.3g} {unit} (mean)"
                    + (f", {deg:.3g}° (orientation median)" if deg > 0 else "") + ", by FK.")


def model_plots(loaded: LoadedModel) -> list[Plot]:
    """The training curve and the error histogram, each with a caption of its numbers."""
    model, r = loaded.model, loaded.model.report
    unit = model.robot.length_unit
    pos, ori = fresh_errors(loaded)
    words = training_words(loaded)
    try:
        curve = (training_chart(curve_in_mm(r), output_unit(loaded)),)
    except VizError as e:  # a report without a usable history: the caption says why, no chart
        curve, words = (), f"{words} No training curve: {e}."
    deg = np.degrees(ori)
    errs = (f"On {len(pos)} fresh targets of branch {model.branch.spec}: median {np.median(pos):.3g} {unit}, "
            f"95th percentile {np.percentile(pos, 95):.3g} {unit}, max {pos.max():.3g} {unit}"
            + (f"; orientation median {np.median(deg):.3g}°" if deg.max() > 0 else "")
            + ".")
    ws = r.get("warm_start")
    if ws:  # measured at training time on held-out targets (the model's report)
        errs += (f" As the start of Levenberg–Marquardt it took {ws['anfis']['mean_iterations']:.3g} iterations on "
                 f"average, against {ws['home']['mean_iterations']:.3g} from home.")
    return [Plot("plot-training", curve, words), Plot("plot-model-errors", (histogram_chart(pos, unit),), errs)]
