"""Motion planning in a scene on OMPL: a collision-free joint path for one robot, the others
held still, checked at a stated resolution, simplified, and timed into a `Trajectory`.

problem (the query's input, checked; verdicts on the start and goal), edges (states and
straight edges checked against the scene at a resolution), solver (OMPL: state space,
validity checker, motion validator, planners by name, simplifier, seed), result (`Plan` and
its timing), planner (`plan`), roadmap (`Roadmap`: a PRM kept between plans), request (MoveIt
motion-plan requests as start and goal). Needs the `plan` extra (OMPL, toppra). `km.plan` is
the function; this package is `kinematica.plan`.
"""

from typing import TYPE_CHECKING

from ..lazy import attach

if TYPE_CHECKING:  # loaded at first use (`kinematica.lazy`): a plan brings the scene and OMPL
    from .planner import plan
    from .problem import PlanError
    from .request import Request, read_request
    from .result import Plan
    from .roadmap import Roadmap
    from .solver import PLANNERS

__getattr__ = attach(__name__, {"plan": "planner", "PlanError": "problem", "Plan": "result", "PLANNERS": "solver",
                                "read_request": "request", "Request": "request", "Roadmap": "roadmap"})

__all__ = ["plan", "Plan", "PlanError", "PLANNERS", "Roadmap", "read_request", "Request"]
