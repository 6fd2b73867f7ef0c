"""One emulated Feetech STS3215: its control table, its motion, and what it measures.

The shaft follows the goal position with the servo's limits: its speed toward the goal is at
most the goal speed (ticks/s; 0 means the top speed `TOP_SPEED`) and at most √(2·a·|error|) so
that it stops on the goal, and it changes by at most a·dt (a = acceleration register × 100
ticks/s²; 0 means `TOP_ACCEL`). With the torque off it stays where it is unless turned by hand
(`turn`). What it reports (present_position) is the shaft as a real one reads it:

    reading = shaft − sag − d · backlash / 2 + noise,    rounded to whole ticks

`sag` (ticks) is the steady droop of a loaded joint under gravity (a P controller holds short of
its goal: the emulator's stand-in for the arm's weight, constant per servo), d (±1) the
direction of the last motion (the gear train's free play shows against it), `noise` a Gaussian
of standard deviation `noise` ticks. `present_load` reports the sag's share of the holding
torque (‰ of max torque: `sag_load` per tick of sag). Positions, limits and goals are in the
homing-offset frame (present = raw − offset), as on the servo.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import feetech as ft

TOP_SPEED = 3400.0   # ticks/s: ~300°/s, an STS3215 at 12 V without load (0.222 s/60°)
TOP_ACCEL = 50_000.0  # ticks/s²: the servo's own ramp when the acceleration register is 0
READ_ONLY = {"firmware_major", "firmware_minor", "model_number", "present_position", "present_speed",
             "present_load", "present_voltage", "present_temperature", "status", "moving", "present_current"}


@dataclass(frozen=True)
class Imperfection:
    """What an emulated servo's measurement carries: Gaussian noise (sd, ticks), backlash (ticks,
    peak to peak) and gravity sag (ticks short of the goal while holding)."""

    noise: float = 0.0
    backlash: float = 0.0
    sag: float = 0.0


class Servo:
    """An STS3215 on the bus: registers, a shaft that moves in time, and faults when told."""

    def __init__(self, servo_id: int, position: int = 2048, imperfection: Imperfection = Imperfection(),
                 seed: int = 0) -> None:
        self.id = servo_id
        self.regs = bytearray(ft.TABLE_SIZE)
        for name, value in (("firmware_major", 3), ("firmware_minor", 10), ("model_number", ft.STS3215_MODEL),
                            ("id", servo_id), ("min_position", 0), ("max_position", 4095),
                            ("max_temperature", 70), ("max_voltage", 140), ("min_voltage", 40),
                            ("max_torque", 1000), ("overload_torque", 80), ("torque_limit", 1000), ("lock", 1),
                            ("present_voltage", 120), ("present_temperature", 31), ("p_gain", 32)):
            self._store(name, value)
        self.shaft = float(position)  # raw ticks (before the homing offset)
        self.speed = 0.0
        self.direction = 1.0
        self._store("goal_position", position)
        self.imperfection = imperfection
        self.rng = np.random.default_rng(seed)
        self.error = 0  # the fault bits it reports (status register and every status packet)

    # --- registers --------------------------------------------------------------------------
    def _store(self, name: str, value: int) -> None:
        reg = ft.TABLE[name]
        self.regs[reg.address:reg.address + reg.size] = ft.encode(name, value)

    def get(self, name: str) -> int:
        reg = ft.TABLE[name]
        return ft.decode(name, bytes(self.regs[reg.address:reg.address + reg.size]))

    def read(self, address: int, n: int) -> bytes:
        """The n bytes at `address`, with the present-state registers measured now."""
        self._measure()
        return bytes(self.regs[address:address + n]).ljust(n, b"\0")

    def write(self, address: int, data: bytes) -> None:
        """Store `data` at `address`, byte by byte, skipping read-only registers; a torque enable
        holds the shaft where it is, a goal clamped to the position limits."""
        touched = set()
        for k, b in enumerate(data):
            for name, reg in ft.TABLE.items():
                if reg.address <= address + k < reg.address + reg.size and name not in READ_ONLY:
                    self.regs[address + k] = b
                    touched.add(name)
        if "torque_enable" in touched and self.get("torque_enable"):
            self.error &= ~(1 << 5)  # re-enabling clears an overload, as the servo's does
            if "goal_position" not in touched:
                self._store("goal_position", round(self.shaft) - self.get("homing_offset"))
        if "goal_position" in touched:
            lo, hi = self.get("min_position"), self.get("max_position")
            self._store("goal_position", min(max(self.get("goal_position"), lo), hi))

    # --- motion and measurement ---------------------------------------------------------------
    def step(self, dt: float) -> None:
        """Move the shaft for dt s toward the goal, within the speed and acceleration limits."""
        if not self.get("torque_enable") or dt <= 0:
            self.speed = 0.0
            return
        goal = self.get("goal_position") + self.get("homing_offset")
        vmax = abs(self.get("goal_speed")) or TOP_SPEED
        a = self.get("acceleration") * 100.0 or TOP_ACCEL
        err = goal - self.shaft
        want = math.copysign(min(vmax, math.sqrt(2 * a * abs(err))), err)
        dv = max(-a * dt, min(a * dt, want - self.speed))
        self.speed += dv
        move = self.speed * dt
        if abs(move) >= abs(err) and err * move >= 0:  # arrives within this step
            self.shaft, self.speed = float(goal), 0.0
        else:
            self.shaft += move
        if abs(move) > 1e-9:
            self.direction = math.copysign(1.0, move)

    def turn(self, ticks: float) -> None:
        """Turned by hand (torque off) or pushed: the shaft moves by `ticks`."""
        self.shaft += ticks
        if ticks:
            self.direction = math.copysign(1.0, ticks)

    def _measure(self) -> None:
        im = self.imperfection
        holding = bool(self.get("torque_enable"))
        sag = im.sag if holding else 0.0
        noise = self.rng.normal(0.0, im.noise) if im.noise > 0 else 0.0
        reading = self.shaft - sag - self.direction * im.backlash / 2 + noise - self.get("homing_offset")
        self._store("present_position", int(max(-32767, min(32767, round(reading)))))
        self._store("present_speed", round(self.speed))
        load = 1023 if self.error & (1 << 5) else min(1000, round(abs(sag) * 8))
        self._store("present_load", int(math.copysign(load, -sag)) if sag else load)
        self._store("moving", int(abs(self.speed) > 1.0))
        self._store("status", self.error)

    def fail(self, bits: int) -> None:
        """Raise fault bits; an overload releases the torque, as the servo's protection does."""
        self.error |= bits
        if bits & (1 << 5):
            self._store("torque_enable", 0)
            self.speed = 0.0
        if bits & (1 << 2):
            self._store("present_temperature", self.get("max_temperature") + 3)
