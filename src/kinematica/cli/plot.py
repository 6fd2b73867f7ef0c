"""`kinematica plot` and `kinematica animate`: figures and animations written to files.

plot ROBOT KIND --out FILE (.png, .svg or .pdf), KIND one of:
  arm          the arm at --q (default home): planar robots in their plane, others in 3-D
  projections  the arm in the XY, XZ and YZ planes side by side (paper 003)
  solutions    every IK solution of --position (+ orientation) overlaid, labelled by branch
  workspace    a point cloud of random configurations, coloured by manipulability
  convergence  the error and λ per iteration of `ik` from --q0 to --position (paper 000)
  trajectory   q, q̇, q̈ and τ of a --trajectory file over time (paper 002)
  path         the end-effector path of a --trajectory file over time and in space
  map          a workspace map file (.npz from `kinematica workspace`): a section or 3-D scatter
animate ROBOT --trajectory FILE --out FILE.gif (or .mp4 where ffmpeg is installed).

Matplotlib is imported only when a figure is made, so the other subcommands start fast.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

import kinematica as km

from ..bounds import FRAMES, POINTS, count
from .common import (
    Failure,
    UsageError,
    add_robot,
    emit,
    finite_numbers,
    option_joint_values,
    robot_of,
)
from .dynamics import check_trajectory
from .ik import IK_METHODS
from .targets import TARGET_OPTIONS, add_target_args, ik_target

KINDS = ("arm", "projections", "solutions", "workspace", "convergence", "trajectory", "path", "map")
IMAGE_FORMATS = {".png": "PNG", ".svg": "SVG", ".pdf": "PDF"}
ANIMATION_FORMATS = {".gif": "GIF", ".mp4": "MP4"}
VIEWS = ("auto", "3d", "projections", "xy", "xz", "yz", "rz")
MAX_PIXELS = 10_000
# which options each kind takes (the others must be left out)
USES = {
    "arm": {"q", "frames", "view", "target"},
    "projections": {"q", "frames", "target"},
    "solutions": {"q", "view", *TARGET_OPTIONS},
    "workspace": {"view", "samples", "seed", "color"},
    "convergence": {"q0", "method", "limits", *TARGET_OPTIONS},
    "trajectory": {"trajectory", "rad"},
    "path": {"trajectory"},
    "map": {"view", "map", "value", "at"},
}
_ALL = sorted(set().union(*USES.values()))


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _check_options(args: argparse.Namespace) -> None:
    """Options that the kind does not use are an error, not silently ignored."""
    for name in _ALL:
        value = getattr(args, name, None)
        if value not in (None, False) and name not in USES[args.kind]:
            takers = [k for k in KINDS if name in USES[k]]
            raise UsageError(f"{_flag(name)} goes with {' or '.join(takers)}, not {args.kind}")
    needs = {"solutions": "position", "convergence": "position", "trajectory": "trajectory",
             "path": "trajectory", "map": "map"}.get(args.kind)
    if needs and getattr(args, needs) is None:
        raise UsageError(f"plot {args.kind} needs {_flag(needs)}")


def out_path(text: str, formats: dict[str, str], what: str) -> Path:
    path = Path(text)
    if path.suffix.lower() not in formats:
        raise UsageError(f"--out: cannot tell the {what} format of {path.name!r}: use "
                         f"{', '.join(formats)}")
    return path


def figure_size(args: argparse.Namespace) -> tuple[tuple[float, float] | None, float]:
    """(size in inches or None for the figure's default, dpi) from --size W H (pixels), --dpi."""
    dpi = float(finite_numbers([args.dpi], "--dpi")[0]) if args.dpi is not None else 100.0
    if not 10 <= dpi <= 1000:
        raise UsageError(f"--dpi: expected 10 to 1000, got {args.dpi}")
    if args.size is None:
        return None, dpi
    w, h = finite_numbers(args.size, "--size")
    if not (1 <= w <= MAX_PIXELS and 1 <= h <= MAX_PIXELS):
        raise UsageError(f"--size: width and height in pixels, 1 to {MAX_PIXELS}, got "
                         f"{' '.join(args.size)}")
    return (w / dpi, h / dpi), dpi


def _written(path: Path, fmt: str, fig_or_px: Any, dpi: float, **extra: Any) -> dict[str, Any]:
    if isinstance(fig_or_px, tuple):
        w, h = fig_or_px
    else:
        w, h = (round(v * dpi) for v in fig_or_px.get_size_inches())
    return {"path": str(path), "format": fmt, "width_px": int(w), "height_px": int(h),
            "dpi": dpi, **extra}


def _text(d: dict[str, Any]) -> str:
    w = d["written"]
    more = f", {w['frames']} frames at {w['fps']:g} fps" if "frames" in w else ""
    note = f"\n{d['note']}" if d.get("note") else ""
    return (f"wrote {w['path']} ({w['width_px']} × {w['height_px']} px {w['format']}{more})"
            f"{note}")


def _load_trajectory(robot: km.Robot, where: str) -> km.Trajectory:
    tr = km.trajectory.load(where)
    check_trajectory(robot, tr, where)
    return tr


# --- the figures -----------------------------------------------------------------------------
def _figure(args: argparse.Namespace, robot: km.Robot, size, dpi) -> tuple[Any, str | None]:
    """The figure of args.kind, and a note for the reader (or None)."""
    from .. import viz

    kw = {"size": size, "dpi": dpi}
    kind = args.kind
    if kind in ("arm", "projections"):
        q = option_joint_values(robot, args.q, args.deg, "--q", robot.q_home)
        target = None if args.target is None else finite_numbers(args.target, "--target")
        if target is not None and len(target) not in (2, 3):
            raise UsageError(f"--target: give X Y Z (or X Y for a planar robot), got "
                             f"{len(target)} values")
        if kind == "projections":
            return viz.projections(robot, q, target=target, frames=args.frames, **kw), None
        return viz.arm(robot, q, view=args.view or "auto", target=target, frames=args.frames,
                       **kw), None
    if kind == "solutions":
        t, _ = ik_target(robot, args)
        current = option_joint_values(robot, args.q, args.deg, "--q", robot.q_home)
        sols = km.ik_all(robot, t, current)
        if not sols:
            raise Failure(f"no solution to draw: {km.ik(robot, t, current).reason}")
        return viz.solutions(robot, sols, current=current, target=t.p, view=args.view, **kw), \
            f"{len(sols)} solution{'s' if len(sols) != 1 else ''}"
    if kind == "workspace":
        samples = 5000 if args.samples is None else count(args.samples, "--samples", POINTS, error=UsageError)
        color = None if args.color == "none" else "manipulability"
        return viz.workspace(robot, samples, seed=args.seed if args.seed is not None else 0,
                             color=color, view=args.view or "auto", **kw), None
    if kind == "convergence":
        return _convergence(args, robot, kw)
    if kind == "map":
        return _map(args, robot, kw)
    tr = _load_trajectory(robot, args.trajectory)
    if kind == "trajectory":
        return viz.time_plots(tr, robot=robot, degrees=not args.rad, **kw), None
    return viz.ee_path(tr, robot=robot, **kw), None


def _map(args: argparse.Namespace, robot: km.Robot, kw: dict[str, Any]):
    from .. import viz
    from ..workspace import io as map_files

    data = map_files.read(args.map)
    if data["meta"].get("robot") != robot.name:
        raise UsageError(f"--map: {args.map} is a map of {data['meta'].get('robot')!r}, not of {robot.name!r}")
    at = None if args.at is None else float(finite_numbers([args.at], "--at")[0])
    m = data["meta"]
    return viz.workspace_map(data, value=args.value, view=args.view or "auto", at=at, **kw), \
        f"{m['kind']} map of {m['voxels']} voxels"


def _convergence(args: argparse.Namespace, robot: km.Robot, kw: dict[str, Any]):
    from .. import viz

    if args.method == "analytic":
        raise UsageError("--method analytic has no iterations to plot: use lm, gn, newton, "
                         "transpose or dls")
    t, _ = ik_target(robot, args)
    q0 = option_joint_values(robot, args.q0, args.deg, "--q0", robot.q_home)
    res = km.ik(robot, t, q0, method=args.method or "lm", limits=args.limits or "auto",
                history=True)
    if not res.history:
        raise Failure(f"no iterations to plot: {res.reason}")
    position_only = t.kind == "position" or (t.kind == "planar" and t.phi is None)
    unit = robot.length_unit if position_only else None
    fig = viz.convergence(res, unit=unit, **kw)
    return fig, f"{res.reason}; {len(res.history)} iterations plotted"


def cmd_plot(args: argparse.Namespace, out: TextIO) -> int:
    robot = robot_of(args)
    _check_options(args)
    path = out_path(args.out, IMAGE_FORMATS, "image")
    size, dpi = figure_size(args)
    fig, note = _figure(args, robot, size, dpi)
    from ..viz import save

    save(fig, path)
    fmt = IMAGE_FORMATS[path.suffix.lower()]
    data = {"robot": robot.name, "kind": args.kind, "note": note,
            "written": _written(path, fmt, fig, dpi)}
    return emit(args, data, _text, out)


def cmd_animate(args: argparse.Namespace, out: TextIO) -> int:
    from .. import viz

    robot = robot_of(args)
    path = out_path(args.out, ANIMATION_FORMATS, "animation")
    size, dpi = figure_size(args)
    fps = float(finite_numbers([args.fps], "--fps")[0])
    if not 0 < fps <= 100:
        raise UsageError(f"--fps: expected more than 0 and at most 100, got {args.fps}")
    if args.n_frames is not None:
        count(args.n_frames, "--n-frames", FRAMES, error=UsageError)
    tr = _load_trajectory(robot, args.trajectory)
    try:
        viz.animate(robot, tr, path, fps=fps, frames=args.n_frames, view=args.view,
                    frames_axes=args.frames, size=size, dpi=dpi)
    except viz.AnimationError as e:
        raise Failure(str(e)) from None
    frames = len(viz.frame_times(tr, fps, args.n_frames))
    w, h = ((round(size[0] * dpi), round(size[1] * dpi)) if size is not None else
            _animation_pixels(path))
    data = {"robot": robot.name, "kind": "animation", "trajectory": args.trajectory,
            "note": None, "written": _written(path, ANIMATION_FORMATS[path.suffix.lower()],
                                              (w, h), dpi, frames=frames, fps=fps)}
    return emit(args, data, _text, out)


def _animation_pixels(path: Path) -> tuple[int, int]:
    if path.suffix.lower() == ".gif":
        from PIL import Image

        with Image.open(path) as im:
            return im.size
    return 0, 0


# --- parsers ---------------------------------------------------------------------------------
def _add_size(p: argparse.ArgumentParser) -> None:
    p.add_argument("--size", nargs=2, metavar=("W", "H"),
                   help="image size in pixels (default depends on the figure, e.g. 800 600)")
    p.add_argument("--dpi", metavar="DPI", default=None, help="dots per inch (default 100)")


def add_parsers(sub: Any) -> None:
    """The subparsers of plot and animate."""
    p = sub.add_parser("plot", help="draw the arm, IK solutions, convergence, trajectories or "
                                    "the workspace to an image file",
                       description="Figures written to .png, .svg or .pdf. KIND: arm, "
                                   "projections (XY/XZ/YZ), solutions (every IK solution of a "
                                   "target), workspace, convergence (of ik), trajectory (q, "
                                   "q̇, q̈, τ over time), path (the end effector's), map (a "
                                   "workspace map file: a section or 3-D scatter).")
    add_robot(p)
    p.add_argument("kind", metavar="KIND", choices=KINDS, help=" | ".join(KINDS))
    p.add_argument("--out", metavar="FILE", required=True, help="image file: .png, .svg or .pdf")
    p.add_argument("--q", nargs="+", metavar="Q",
                   help="joint values (arm, projections; the start for solutions); default home")
    p.add_argument("--frames", action="store_true", help="draw x/y/z axes at every link frame")
    p.add_argument("--view", choices=VIEWS, default=None,
                   help="auto (planar robots in their plane, others 3-D), 3d, projections, or a "
                        "plane xy, xz, yz, rz (the vertical plane through the arm)")
    p.add_argument("--target", nargs="+", metavar="X", help="mark a point X Y Z (arm, projections)")
    add_target_args(p, note="solutions, convergence: ")
    p.add_argument("--q0", nargs="+", metavar="Q", help="convergence: the IK start (default home)")
    p.add_argument("--method", choices=IK_METHODS, default=None, help="convergence: the IK method (default lm)")
    p.add_argument("--limits", choices=("auto", "clip", "wrap", "ignore"), default=None,
                   help="convergence: joint limits handling (default auto: clip from --q0)")
    p.add_argument("--trajectory", metavar="FILE", help="trajectory file (.csv or .json)")
    p.add_argument("--rad", action="store_true", help="trajectory: plot angles in rad, not deg")
    p.add_argument("--samples", type=int, metavar="N", help="workspace: configurations (default 5000)")
    p.add_argument("--seed", type=int, metavar="S", help="workspace: random seed (default 0)")
    p.add_argument("--color", choices=("manipulability", "none"), default=None,
                   help="workspace: colour the points by manipulability (default) or not")
    p.add_argument("--map", metavar="FILE", help="map: a workspace map (.npz from `kinematica workspace`)")
    p.add_argument("--value", metavar="NAME", help="map: what colours the voxels: samples, share, reached, "
                                                   "manipulability_mean/_min, condition_mean/_max, singular")
    p.add_argument("--at", metavar="C", help="map: the section's coordinate along its normal axis "
                                             "(default: through the first joint)")
    p.add_argument("--deg", action="store_true",
                   help="angle inputs (--q, --q0, --rpy, --euler-zyz, --pitch, --phi) in degrees")
    _add_size(p)
    p.set_defaults(func=cmd_plot)

    a = sub.add_parser("animate", help="animate a trajectory file to .gif (or .mp4 with ffmpeg)",
                       description="The arm moving along a trajectory file, written to an "
                                   "animated GIF, or to MP4 where ffmpeg is installed.")
    add_robot(a)
    a.add_argument("--trajectory", metavar="FILE", required=True,
                   help="trajectory file (.csv or .json)")
    a.add_argument("--out", metavar="FILE", required=True, help=".gif, or .mp4 (needs ffmpeg)")
    a.add_argument("--fps", metavar="N", default="20", help="frames per second (default 20)")
    a.add_argument("--n-frames", type=int, metavar="N", default=None,
                   help="number of frames (default: real time, duration·fps + 1, at most 600)")
    a.add_argument("--view", choices=VIEWS, default="auto", help="as for plot (default auto)")
    a.add_argument("--frames", action="store_true", help="draw x/y/z axes at every link frame")
    _add_size(a)
    a.set_defaults(func=cmd_animate)
