"""Exports for other tools: the robot and its motion as a glTF 2.0 digital twin (`to_glb`), and
a live joint-state stream (`JointStateSender`: JSON lines over UDP) for an engine that mirrors
the arm."""

from . import jointstate
from .gltf import to_glb
from .jointstate import JointStateSender, StreamError

__all__ = ["to_glb", "JointStateSender", "StreamError",
           "jointstate"]  # the stream's parts a face states: `jointstate.DEFAULT_URL`, `jointstate.resolve`
