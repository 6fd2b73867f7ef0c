"""Dynamics: inertial parameters, recursive Newton–Euler, mass matrix, forward dynamics, simulation."""

from .params import DynamicsError, link_params, with_payload
from .rne import rne
from .energy import energy, kinetic_energy, potential_energy
from .simulate import SimulationStopped, computed_torque, pd_gravity, simulate
from .terms import coriolis, forward_dynamics, gravity_torques, mass_matrix

__all__ = ["rne", "simulate", "SimulationStopped", "pd_gravity", "computed_torque", "energy", "kinetic_energy",
           "potential_energy", "mass_matrix", "gravity_torques", "coriolis", "forward_dynamics", "DynamicsError", "link_params", "with_payload"]
