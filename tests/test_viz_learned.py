"""Figures of a learned model (viz/learned.py): what they draw, checked against their inputs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kinematica.viz import VizError
from kinematica.viz.learned import error_histogram, training_curve


def test_the_training_curve_draws_every_output_and_marks_the_kept_epoch() -> None:
    train = [[0.5, 0.4], [0.2, 0.3], [0.1, 0.2]]
    val = [[0.6, 0.5], [0.3, 0.3], [0.35, 0.3]]  # the second epoch has the lowest validation sum
    fig = training_curve({"rmse_train": train, "rmse_validation": val, "joints": ["a", "b"]}, unit="rad")
    lines = fig.axes[0].get_lines()
    np.testing.assert_array_equal(lines[0].get_ydata(), [0.5, 0.2, 0.1])
    np.testing.assert_array_equal(lines[3].get_ydata(), [0.5, 0.3, 0.3])
    assert lines[-1].get_xdata()[0] == 2 and "kept: epoch 2" in lines[-1].get_label()


def test_an_ik_models_curve_is_its_tool_error_in_the_length_unit() -> None:
    """Issue 32 item 8: the curve of an IK model is the tool error of its answers per epoch (what
    the histogram beside it shows), in mm and degrees, not joint RMSE in rad."""
    report = {"rmse_train": [[0.5], [0.2], [0.2]], "rmse_validation": [[0.6], [0.3], [0.4]], "joints": ["a"],
              "length_unit": "mm", "tool_validation": {"count": 200, "position_median": [3.0, 1.2, 1.3],
                                                       "position_mean": [4.0, 2.5, 2.6],
                                                       "orientation_median_deg": [2.0, 0.5, 0.6]}}
    fig = training_curve(report, unit="rad")
    ax, right = fig.axes
    assert ax.get_ylabel() == "tool position error [mm]" and right.get_ylabel() == "tool orientation error [°]"
    np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), [3.0, 1.2, 1.3])
    np.testing.assert_array_equal(ax.get_lines()[1].get_ydata(), [4.0, 2.5, 2.6])
    np.testing.assert_array_equal(right.get_lines()[0].get_ydata(), [2.0, 0.5, 0.6])
    assert ax.get_lines()[-1].get_xdata()[0] == 2  # the kept epoch: the lowest validation RMSE
    with pytest.raises(VizError, match="tool_validation"):
        training_curve({**report, "tool_validation": {"count": 1}})


def test_a_report_without_history_is_refused() -> None:
    with pytest.raises(VizError, match="rmse_train"):
        training_curve({})
    with pytest.raises(VizError, match="non-negative"):
        error_histogram(np.array([0.1, -1.0]))


@settings(max_examples=20)
@given(st.lists(st.floats(0, 1e3, allow_nan=False), min_size=1, max_size=200))
def test_the_histogram_counts_every_error_once(errors) -> None:
    e = np.array(errors)
    fig = error_histogram(e, unit="mm")
    ax = fig.axes[0]
    assert sum(p.get_height() for p in ax.patches) == len(e)
    assert f"median {np.median(e):.3g} mm" in [t.get_text() for t in ax.get_legend().get_texts()]
