"""Exports for other tools: the robot and its motion as a glTF 2.0 digital twin (`to_glb`), and
a live joint-state stream (`JointStateSender`: JSON lines over UDP) for an engine that mirrors
the arm."""

from .gltf import to_glb
from .jointstate import DEFAULT_URL, JointStateSender, StreamError, resolve

__all__ = ["to_glb", "JointStateSender", "StreamError", "DEFAULT_URL", "resolve"]
