"""The browser simulator (`kinematica serve`): a NiceGUI app, served locally and offline.

A face over the core, as the CLI is: it calls `kinematica` and owns the I/O. One concept per
module: state.py (one tab's session: robot, joint values, mode, IK target and solutions; no
NiceGUI), scene.py (the 3-D view in `ui.scene`), panel.py (joint sliders and fields, the pose
readout, the IK panel), main.py (the page, and `run`, which serves it).

NiceGUI is imported only when a submodule that needs it is: `import kinematica.app` is cheap.
"""

__all__ = ["run"]


def run(robot: str | None = None, *, host: str = "127.0.0.1", port: int = 8080, show: bool = True) -> None:
    """Serve the simulator with `robot` (a bundled name or a robot file; default the Braccio)."""
    from .main import run as _run

    _run(robot, host=host, port=port, show=show)
