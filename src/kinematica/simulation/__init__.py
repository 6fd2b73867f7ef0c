"""Simulation: the equations of motion integrated under a torque function or a controller, the
motion returned as a `Trajectory`. A layer above `dynamics` (the equations) and `trajectory`
(the value it returns), so that neither points up at the other."""

from .simulate import (
           MAX_EVALUATIONS,
           METHODS,
           SimulationStopped,
           computed_torque,
           pd_gravity,
           simulate,
)

__all__ = ["simulate", "SimulationStopped", "pd_gravity", "computed_torque",
           "MAX_EVALUATIONS", "METHODS"]  # the defaults a face states
