"""Exports for other tools: the robot and its motion as a glTF 2.0 digital twin (`to_glb`)."""

from .gltf import to_glb

__all__ = ["to_glb"]
