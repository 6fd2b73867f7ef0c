"""Model angles ↔ servo degrees with a calibration for the bundled Braccio: round trips, equal to
`km.to_servo` without one, refusals naming the joint, value and limit, and the tool error whole
degrees cost, against FK of `km.from_servo` (the oracle) and a lever-arm bound."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import kinematica as km
from kinematica.hardware import protocol as pr
from kinematica.hardware.calibration import (Calibration, CalibrationError, load_calibration,
                                             save_calibration)
from kinematica.hardware.limits import (CommandRefused, check_speed, check_stream_accel, check_stream_speed,
                                        check_stream_steps, quantisation_error, reached_q, servo_degrees, whole_degrees)

BRACCIO = km.load("braccio")
BANNER = pr.DEFAULT_BANNER
ROUND_OFF = 1e-9  # degrees / rad: a few conversions by 180/π, nothing ill-conditioned

calibrations = st.builds(Calibration, st.tuples(*[st.floats(-10, 10)] * 6),
                         st.tuples(*[st.sampled_from([1, -1])] * 6))
# joint values well inside the limits, so that a 10° calibration offset keeps the servos in range
inner_q = st.lists(st.floats(-60, 60), min_size=5, max_size=5).map(np.radians)


@settings(max_examples=60, deadline=None)
@given(calibrations, st.lists(st.floats(-500, 500), min_size=6, max_size=6))
def test_calibration_round_trips(cal, nominal):
    np.testing.assert_allclose(cal.to_nominal(cal.to_physical(nominal)), nominal, atol=ROUND_OFF)
    np.testing.assert_allclose(cal.to_physical(cal.to_nominal(nominal)), nominal, atol=ROUND_OFF)


@settings(max_examples=60, deadline=None)
@given(calibrations, inner_q, st.floats(20, 60))
def test_model_angles_round_trip_through_calibrated_servo_degrees(cal, q, gripper):
    physical = servo_degrees(BRACCIO, cal, q, gripper, BANNER)
    np.testing.assert_allclose(reached_q(BRACCIO, cal, physical), q, atol=ROUND_OFF)
    np.testing.assert_allclose(cal.to_nominal(physical)[5], gripper, atol=ROUND_OFF)
    # whole degrees: each joint within half a degree of the plan, whichever way its horn turns
    whole = whole_degrees(physical)
    assert np.all(np.abs(reached_q(BRACCIO, cal, whole) - q) <= np.radians(0.5) + ROUND_OFF)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-75, 75), min_size=5, max_size=5).map(np.radians))
def test_without_calibration_the_servo_degrees_are_to_servo(q):
    physical = servo_degrees(BRACCIO, Calibration(), q, 10, BANNER)
    np.testing.assert_allclose(physical[:5], km.to_servo(BRACCIO, q), atol=0)
    np.testing.assert_allclose(reached_q(BRACCIO, Calibration(), physical), km.from_servo(BRACCIO, physical[:5]),
                               atol=ROUND_OFF)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-75, 75), min_size=5, max_size=5).map(np.radians))
def test_quantisation_error_is_fk_of_the_whole_degrees(q):
    degrees = whole_degrees(servo_degrees(BRACCIO, Calibration(), q, 10, BANNER))
    oracle = np.linalg.norm(km.fk(BRACCIO, q)[:3, 3] - km.fk(BRACCIO, km.from_servo(BRACCIO, degrees[:5]))[:3, 3])
    err = quantisation_error(BRACCIO, Calibration(), q, degrees)
    assert err == pytest.approx(oracle, rel=1e-9, abs=1e-9)
    # half a degree on each joint moves the tool point at most 0.5° × the lever arms: base
    # and shoulder ≤ 340 mm (the arm's length past the shoulder), elbow 215, wrist pitch 90 mm
    assert err <= np.radians(0.5) * (340 + 340 + 215 + 90) + 1e-9


def test_quantisation_error_is_batched_and_zero_on_whole_degrees():
    q = np.radians([[10, -30, 80, 90, 0], [10.4, -30.3, 80.2, 89.6, 0.5]])
    degrees = whole_degrees(servo_degrees(BRACCIO, Calibration(), q, 10, BANNER))
    err = quantisation_error(BRACCIO, Calibration(), q, degrees)
    assert err.shape == (2,) and err[0] < 1e-9 and err[1] > 0.1


@pytest.mark.parametrize("q_deg, cal, words", [
    ([0, 76, 0, 0, 0], Calibration(), r"joint 'M2 shoulder' = 76° is outside its limits \[-75°, 75°\]"),
    ([-91, 0, 0, 0, 0], Calibration(), r"joint 'M1 base' = -91° is outside its limits \[-90°, 90°\]"),
    ([0, 0, 0, 0, 88], Calibration(offset=(0, 0, 0, 0, -5, 0)),
     r"joint 'M5 wrist roll' needs servo -3° \(calibrated\), outside its range \[0°, 180°\]"),
    ([0, 0, 0, 0, 0], Calibration(offset=(0, 0, 0, 0, 0, -1)),
     r"gripper 'M6 gripper' needs servo 9° \(calibrated\), outside its range \[10°, 73°\]")])
def test_refusals_name_the_joint_the_value_and_the_limit(q_deg, cal, words):
    with pytest.raises(CommandRefused, match=words):
        servo_degrees(BRACCIO, cal, np.radians(q_deg), 10, BANNER)


def test_a_refused_point_of_a_trajectory_is_named_by_its_index():
    q = np.zeros((4, 5))
    q[2, 3] = np.radians(95)
    with pytest.raises(CommandRefused, match=r"'M4 wrist pitch' = 95° .* at point 2"):
        servo_degrees(BRACCIO, Calibration(), q, 10, BANNER)
    with pytest.raises(CommandRefused, match="expected 5 finite joint values"):
        servo_degrees(BRACCIO, Calibration(), [0, 0, np.nan, 0, 0], 10, BANNER)


@pytest.mark.parametrize("speed", [19, 101, 140, 60.5, float("nan"), "fast", True])
def test_speeds_outside_the_board_range_are_refused(speed):
    with pytest.raises(CommandRefused, match=r"outside the board's range \[20, 100\]"):
        check_speed(speed, BANNER)
    assert check_speed(20, BANNER) == 20 and check_speed(100.0, BANNER) == 100


def test_stream_speed_is_checked_per_step_and_joint():
    t = np.array([0.0, 0.1, 0.2])
    physical = np.array([[90, 45, 180, 180, 90, 10], [90, 45, 180, 180, 90, 10], [90, 45, 169, 180, 90, 10.0]])
    with pytest.raises(CommandRefused, match=r"'M3 elbow' would turn at 110 °/s between points 1 and 2 \(t = 0.1 s\)"
                                             r", over the limit of 100 °/s"):
        check_stream_speed(BRACCIO, t, physical, BANNER)
    physical[2, 2] = 170  # 10° in 0.1 s: exactly the limit
    check_stream_speed(BRACCIO, t, physical, BANNER)


def test_the_whole_degrees_sent_are_checked_as_the_board_checks_them():
    """|Δ whole degrees|·1000 ≤ 100·ms, exact: one degree needs 10 ms (the 1 ms/1° step the
    board once let through on its one degree of slack is refused before it is sent)."""
    deg = np.array([[90, 45, 180, 180, 90, 10], [91, 45, 180, 180, 90, 10], [92, 45, 180, 180, 90, 10]])
    check_stream_steps(BRACCIO, np.array([1, 10, 10]), deg, BANNER)
    with pytest.raises(CommandRefused, match=r"'M1 base' would step 1° \(whole servo degrees\) in 9 ms between points "
                                             r"1 and 2, over the board's 100 °/s: give a rate of at most 100 Hz"):
        check_stream_steps(BRACCIO, np.array([1, 10, 9]), deg, BANNER)
    with pytest.raises(CommandRefused, match=r"in 1 ms between points 0 and 1"):
        check_stream_steps(BRACCIO, np.array([1, 1, 10]), deg, BANNER)


def test_a_stream_must_start_and_end_at_rest_and_accelerate_within_the_limit():
    t = np.linspace(0, 1, 11)
    still = np.tile([90, 45, 180, 180, 90, 10.0], (11, 1))
    line = still.copy()
    line[:, 0] += 40 * t  # 40 °/s from the first step: 400 °/s² over the first 0.1 s, exactly the limit
    check_stream_accel(BRACCIO, t, line, BANNER)
    line[:, 0] = 90 + 41 * t
    with pytest.raises(CommandRefused, match=r"'M1 base' would accelerate at 410 °/s² from rest at its start, over "
                                             r"the board's 400 °/s²"):
        check_stream_accel(BRACCIO, t, line, BANNER)
    line[:, 0] = 90 + np.cumsum([0, 2] + [4.5] * 9)  # 20 then 45 °/s: a smooth start, then a stop from 45 °/s
    with pytest.raises(CommandRefused, match="would accelerate at 450 °/s² to rest at its end"):
        check_stream_accel(BRACCIO, t, line, BANNER)
    jolt = still.copy()
    jolt[6:, 1] += 5  # 5° in one 0.1 s step: 50 °/s, from and back to rest
    with pytest.raises(CommandRefused, match=r"'M2 shoulder' would accelerate at 500 °/s² at point 5 \(t = 0.5 s\)"):
        check_stream_accel(BRACCIO, t, jolt, BANNER)


def test_calibration_files_round_trip(tmp_path):
    cal = Calibration(offset=(1.5, -3.0, 0.0, 2.0, 0.0, -1.0), direction=(1, 1, -1, 1, -1, 1))
    assert load_calibration(save_calibration(cal, tmp_path / "cal.yaml")) == cal
    (tmp_path / "few.yaml").write_text("servos:\n  M2: {offset: -3}\n  M5: {direction: -1}\n")
    assert load_calibration(tmp_path / "few.yaml") == Calibration((0, -3, 0, 0, 0, 0), (1, 1, 1, 1, -1, 1))
    (tmp_path / "cal.json").write_text('{"servos": {"M1": {"offset": 2}}}')
    assert load_calibration(tmp_path / "cal.json").offset[0] == 2


@pytest.mark.parametrize("text, words", [
    ("servos:\n  M7: {offset: 1}\n", r"unknown entries \['M7'\]"),
    ("servos:\n  M1: {direction: 2}\n", "M1: direction must be 1 or -1, got 2"),
    ("servos:\n  M2: {offset: 60}\n", r"M2: offset must be a number within ±45 deg, got 60"),
    ("servos:\n  M2: {offset: .nan}\n", "M2: offset must be a number"),
    ("servos:\n  M3: {offset: true}\n", "M3: offset and direction are numbers"),
    ("servos:\n  M3: {gain: 2}\n", r"M3: expected \{offset: DEG, direction: 1 or -1\}"),
    ("- 1\n- 2\n", "expected a mapping with a 'servos' mapping"),
    ("servos: [1, 2]\n", "expected a mapping with a 'servos' mapping"),
    ("servos: {M1: [\n", "not YAML or JSON")])
def test_bad_calibration_files_say_what_is_wrong(tmp_path, text, words):
    path = tmp_path / "cal.yaml"
    path.write_text(text)
    with pytest.raises(CalibrationError, match=words):
        load_calibration(path)


def test_a_missing_calibration_file_is_named(tmp_path):
    with pytest.raises(CalibrationError, match="cannot read calibration .*nope.yaml"):
        load_calibration(tmp_path / "nope.yaml")
