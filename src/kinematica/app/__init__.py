"""The browser simulator (`kinematica serve`): a NiceGUI app, served locally and offline.

A face over the core, as the CLI is: it calls `kinematica` and owns the I/O. One concept per
module:
- state.py: one tab's session (robot, joints, mode, IK target and solutions, poses, plan, view;
  no NiceGUI); project.py: the session as a project dict / file;
- page.py: the header, tabs and project menu, and how a change reaches every tab; main.py:
  `configure`, `root` and `run`, which serve it with per-browser storage;
- simulator.py (the Simulator tab) over panel.py (joints, readout, IK), scene.py (the 3-D view),
  camera.py (projections), handles.py (dragged target and its orientation handles);
- playlist.py (pose list and plans), posefiles.py (their files), poses.py (the Poses card),
  player.py (the player);
- workspace.py (the scene around the arm), plancard.py (its Plan row) over planrun.py (the query,
  run off the event loop, and its verdict), trail.py (a planned path drawn in the view);
- plots.py and figures.py (the Plots tab), mathtab.py and mathdoc.py (the Math tab),
  background.py (building those off the event loop), robottab.py and robotedit.py (the Robot tab).

NiceGUI is imported only when a submodule that needs it is: `import kinematica.app` is cheap.
"""

from ..extras import require

require("app", "the simulator (kinematica.app)")  # cheap: nothing is imported to check

__all__ = ["run"]


def run(robot: str | None = None, *, host: str = "127.0.0.1", port: int = 8080, show: bool = True) -> None:
    """Serve the simulator with `robot` (a bundled name or a robot file; default the Braccio)."""
    from .main import run as _run

    _run(robot, host=host, port=port, show=show)
