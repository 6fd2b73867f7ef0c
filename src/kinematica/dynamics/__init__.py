"""Dynamics: inertial parameters, recursive Newton–Euler, mass matrix, forward dynamics, the
regressor τ = Y·π and identification of the base parameters. Simulation, which returns a
`Trajectory`, is a layer above (`kinematica.simulation`)."""

from .energy import energy, kinetic_energy, potential_energy
from .identify import base_parameters, exciting_trajectory, identify
from .params import GRAVITY, DynamicsError, length_scale, link_params, with_payload
from .regressor import inertial_parameters, regressor, with_parameters
from .rne import rne
from .terms import coriolis, forward_dynamics, gravity_torques, mass_matrix

__all__ = ["rne", "energy", "kinetic_energy",
           "potential_energy", "mass_matrix", "gravity_torques", "coriolis", "forward_dynamics", "DynamicsError", "link_params", "with_payload",
           "regressor", "inertial_parameters", "with_parameters", "base_parameters", "identify", "exciting_trajectory",
           "GRAVITY", "length_scale"]  # the defaults and units a face states
