"""Figures (Matplotlib): the arm, IK solutions, IK convergence, time plots, workspace, animation.

Every function returns a `matplotlib.figure.Figure` built without pyplot (thread-safe, Agg):
save it with `fig.savefig(path)` or `kinematica.viz.save(fig, path)`; nothing is shown.

>>> import kinematica as km, numpy as np
>>> from kinematica import viz
>>> fig = viz.arm(km.load("planar-3r"), np.radians([30, 30, 20]), size=(4, 3), dpi=50)
>>> fig.canvas.get_width_height()
(200, 150)
"""

from ..extras import require

require("plot", "kinematica.viz")  # one line naming the extra, not a traceback from deep inside

from .animate import AnimationError, animate, frame_times
from .arm import ArmDrawing, arm, projections, solutions
from .geometry import ArmGeometry, arm_geometry, reach
from .maps import workspace_map
from .notebook import View, view
from .plots import convergence, ee_path, time_plots
from .style import VizError, new_figure, save
from .workspace import workspace, workspace_points

__all__ = ["arm", "projections", "solutions", "convergence", "time_plots", "ee_path",
           "workspace", "workspace_points", "workspace_map", "animate", "AnimationError", "frame_times",
           "ArmDrawing", "ArmGeometry", "arm_geometry", "reach", "VizError", "new_figure", "save",
           "view", "View"]
