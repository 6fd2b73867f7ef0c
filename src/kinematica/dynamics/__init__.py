"""Dynamics: inertial parameters, recursive Newton–Euler, mass matrix, forward dynamics, simulation."""

from .params import DynamicsError, link_params, with_payload
from .rne import rne
from .terms import coriolis, forward_dynamics, gravity_torques, mass_matrix

__all__ = ["rne", "mass_matrix", "gravity_torques", "coriolis", "forward_dynamics", "DynamicsError", "link_params", "with_payload"]
