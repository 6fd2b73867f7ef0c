"""The simulator's joint-state stream (`kinematica serve --stream URL`): every joint state the
Simulator tab shows — a slider, an IK solution, each frame of a played trajectory — goes out as
one JSON line over UDP (kinematica.export.jointstate), so an external engine can mirror the arm.

One sender for the server: all browser tabs share it, and its `seq` counts their samples
together. During playback `t` is the trajectory's time at the frame; otherwise it is null.
"""

from __future__ import annotations

import numpy as np

import kinematica as km

from ..export import JointStateSender

SENDER: JointStateSender | None = None


def start(url: str | None) -> None:
    """Stream to `url` (udp://HOST:PORT) from now on; None: stop streaming."""
    global SENDER
    if SENDER is not None:
        SENDER.close()
    SENDER = None if url is None else JointStateSender(url, source="simulator")


def publish(robot: km.Robot, q: np.ndarray, t: float | None) -> None:
    """Send the joint state shown, when a stream was started."""
    if SENDER is not None:
        SENDER.send(q, t=t, robot=robot)
