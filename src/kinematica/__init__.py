"""Kinematica: kinematics and dynamics of serial robot manipulators.

>>> import kinematica as km
>>> robot = km.load("kuka-kr6-r900")
>>> km.fk(robot, [0, 0, 0, 0, 0, 0])[:3, 3].round(4)
array([0.    , 0.5615, 0.89  ])
"""

from typing import TYPE_CHECKING

from . import ik, plan
from .errors import InputError, InputTypeError, KinematicaError, SetupError, WriteError
from .lazy import attach, table

# The `ik` subpackage is loaded here (it is light) and its name given back to the function, which
# loads at first use: were the subpackage first imported later, by a module needing its parts,
# Python would bind km.ik to the subpackage. The same for `plan`.
del ik, plan

if TYPE_CHECKING:  # what __getattr__ below loads at first use, named for type checkers and editors
    from . import (  # reached as km.dynamics / km.scene, not in __all__
        dynamics as dynamics,
    )
    from . import export, hardware, spatial, trajectory, workspace
    from . import scene as scene
    from .dynamics import (
        DynamicsError,
        coriolis,
        energy,
        forward_dynamics,
        gravity_torques,
        identify,
        mass_matrix,
        regressor,
        rne,
        with_payload,
    )
    from .ik import IKResult, Target, TargetError, ik, ik_all, self_motion
    from .ik import target as targets
    from .kinematics import (
        JacobianReport,
        OffsetFit,
        Singularity,
        condition,
        det_jjt,
        fk,
        fk_frames,
        fk_jacobian,
        identify_offsets,
        jacobian,
        jacobian_derivative,
        manipulability,
        planar_fk,
        planar_jacobian,
        rank,
        screw_axes,
        singular_values,
        singularity,
        task_rows,
        to_dh,
    )
    from .model import (
        Inertial,
        MissingLimitWarning,
        MJCFError,
        OffChainBodiesWarning,
        ParameterTable,
        Robot,
        RobotError,
        RobotFileError,
        URDFWarning,
        from_dh,
        from_link_frames,
        from_mdh,
        from_mjcf,
        from_planar,
        from_poe,
        from_servo,
        from_urdf,
        load,
        robot_names,
        save,
        to_servo,
        to_urdf,
        urdf_tips,
    )
    from .plan import Plan, PlanError, Roadmap, plan
    from .scene import Scene, SceneError, SceneFileError
    from .simulation import SimulationStopped, computed_torque, pd_gravity, simulate
    from .trajectory import Trajectory

# Every name is imported at first use (PEP 562, `lazy.attach`), not with the package: `import
# kinematica` costs a few ms, and a CLI call pays only for what it runs — the dynamics'
# integrators and the trajectories' splines bring SciPy, the robot-file readers lxml and YAML
# (`python -X importtime -c "import kinematica"`).
__getattr__ = attach(__name__, {
    **table("ik", "IKResult Target TargetError ik ik_all self_motion"),
    "targets": "ik:target",
    **table("kinematics", "JacobianReport Singularity condition det_jjt fk fk_frames fk_jacobian jacobian "
                          "jacobian_derivative manipulability planar_fk planar_jacobian rank screw_axes "
                          "singular_values singularity task_rows to_dh identify_offsets OffsetFit"),
    **table("model", "Inertial MissingLimitWarning MJCFError OffChainBodiesWarning ParameterTable Robot RobotError "
                     "RobotFileError URDFWarning from_dh from_link_frames from_mdh from_mjcf from_planar from_poe "
                     "from_servo from_urdf load robot_names save to_servo to_urdf urdf_tips"),
    **table("dynamics", "DynamicsError coriolis energy forward_dynamics gravity_torques mass_matrix rne with_payload "
                        "regressor identify"),
    **table("simulation", "SimulationStopped computed_torque pd_gravity simulate"),
    "Trajectory": "trajectory",
    **table("scene", "Scene SceneError SceneFileError"),
    **table("plan", "plan Plan PlanError Roadmap"),
}, modules=("model", "kinematics", "spatial", "trajectory", "dynamics", "simulation", "hardware", "scene", "workspace", "export",
            "viz"))


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


try:  # written by setuptools-scm when the package is installed (pyproject.toml)
    from ._version import version as __version__
except ImportError:  # a source tree put on sys.path without installing it
    __version__ = "0+unknown"

__all__ = [
    # errors: every one Kinematica raises is a KinematicaError
    "KinematicaError", "InputError", "InputTypeError", "SetupError", "WriteError",
    # models
    "Robot", "RobotError", "RobotFileError", "ParameterTable", "Inertial", "from_dh", "from_mdh",
    "from_planar", "from_link_frames", "from_urdf", "to_urdf", "load", "save", "robot_names",
    "to_servo", "from_servo", "urdf_tips", "from_poe", "from_mjcf", "MJCFError", "URDFWarning", "OffChainBodiesWarning", "MissingLimitWarning",
    # kinematics
    "fk", "fk_frames", "fk_jacobian", "jacobian", "jacobian_derivative", "planar_fk",
    "planar_jacobian", "manipulability", "det_jjt", "condition", "rank", "singular_values",
    "task_rows", "singularity", "Singularity", "JacobianReport", "screw_axes", "to_dh",
    "identify_offsets", "OffsetFit",
    # inverse kinematics
    "ik", "ik_all", "self_motion", "IKResult", "Target", "TargetError", "targets",
    # dynamics
    "rne", "mass_matrix", "gravity_torques", "coriolis", "forward_dynamics", "with_payload",
    "simulate", "SimulationStopped", "pd_gravity", "computed_torque", "energy", "DynamicsError",
    "regressor", "identify",
    # trajectories
    "trajectory", "Trajectory",
    # shared workspaces
    "Scene", "SceneError", "SceneFileError",
    # motion planning in a scene (OMPL loads when a plan runs)
    "plan", "Plan", "PlanError", "Roadmap",
    "spatial",
    # the physical Braccio: firmware, serial bridge, emulator (pyserial loads when a link opens)
    "hardware",
    # workspace, reachability and dexterity maps (Dask loads when a map runs)
    "workspace",
    # a glTF digital twin (pygltflib and trimesh load when one is written)
    "export",
]
