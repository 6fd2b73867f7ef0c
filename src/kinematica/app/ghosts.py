"""Which IK solutions the view draws as ghosts, where their numbers go, and the words that say so.

Every solution of one target ends at the same tool, so numbers put at the tools would pile up;
each number sits instead just off its own ghost's tool, on the side of that ghost's elbow (its
arm points at its number), and when another number is already there it moves further along
that side, with a leader line back to the tool. At most `MAX_GHOSTS` drawings are made at once
(a 12-solution Puma is a tangle otherwise); the rest are listed in words. Plain numpy: no NiceGUI.
"""

from __future__ import annotations

import numpy as np

import kinematica as km
from kinematica.viz.geometry import arm_geometry, reach

MAX_GHOSTS = 6


def same_drawing(robot: km.Robot, solutions: list, outside: bool = True) -> list[list[int]]:
    """Indices of the solutions to draw, grouped by identical drawings (a wrist flip turns
    joints 4 and 6 by half a turn: the skeleton is the same), in list order; those outside the
    joint limits only when `outside`. A group is drawn once, in the colour of its first member."""
    groups: list[list[int]] = []
    shapes: list[np.ndarray] = []
    tol = 1e-6 * max(reach(robot), 1e-12)
    for i, sol in enumerate(solutions):
        if not (sol.within_limits or outside):
            continue
        shape = arm_geometry(robot, sol.q).skeleton
        for members, other in zip(groups, shapes, strict=True):
            if np.allclose(shape, other, atol=tol):
                members.append(i)
                break
        else:
            groups.append([i])
            shapes.append(shape)
    return groups


def apex(points: np.ndarray) -> np.ndarray:
    """The point of a polyline farthest from the chord between its ends (an arm's elbow: where
    the branches of one target differ, so their labels do not pile up at the shared tool)."""
    a, b = points[0], points[-1]
    chord = b - a
    n = np.linalg.norm(chord)
    if n == 0:
        return points[len(points) // 2]
    u = chord / n
    rel = points - a
    d = np.linalg.norm(rel - np.outer(rel @ u, u), axis=1)
    return points[int(np.argmax(d))]


def label_spots(tools: np.ndarray, elbows: np.ndarray, gap: float) -> list[tuple[np.ndarray, bool]]:
    """(spot, leader) for each ghost k: a point `gap` from tools[k] towards elbows[k] (straight
    up when they coincide), moved on by `gap` steps along that way until it is at least `gap`
    from every spot already placed; `leader` when it had to move (draw a line to the tool).

    >>> spots = label_spots(np.zeros((2, 3)), np.array([[1.0, 0, 0], [1.0, 0, 0]]), 0.1)
    >>> [s.round(2).tolist() for s, _ in spots], [m for _, m in spots]
    ([[0.1, 0.0, 0.0], [0.2, 0.0, 0.0]], [False, True])
    """
    out: list[tuple[np.ndarray, bool]] = []
    for tool, elbow in zip(np.asarray(tools, float), np.asarray(elbows, float), strict=True):
        way = elbow - tool
        n = np.linalg.norm(way)
        way = way / n if n > 1e-12 else np.array([0.0, 0.0, 1.0])
        step = 1
        spot = tool + gap * way
        while any(np.linalg.norm(spot - s) < gap * (1 - 1e-9) for s, _ in out) and step < 50:
            step += 1
            spot = tool + step * gap * way
        out.append((spot, step > 1))
    return out


def drawn_and_listed(groups: list[list[int]], cap: int = MAX_GHOSTS) -> tuple[list[list[int]], list[int]]:
    """The first `cap` groups of identical drawings (drawn), and the solution indices of the
    others (listed only)."""
    return groups[:cap], sorted(i for g in groups[cap:] for i in g)


def caption(total: int, inside: int, drawn: int, listed: list[int], outside_shown: bool) -> str:
    """The line above the solution list: how many there are, how many within the limits, and
    exactly what the view draws of them.

    >>> caption(4, 0, 0, [], False)
    '4 solutions, none within the joint limits; none drawn (tick "draw the solutions outside the joint limits" to see them):'
    """
    head = f"{total} solution{'s' * (total != 1)}, " + (f"{inside} within the joint limits" if inside
                                                          else "none within the joint limits")
    if drawn == 0:
        return head + ('; none drawn (tick "draw the solutions outside the joint limits" to see them):' if total and not outside_shown
                       else "; none drawn:")
    which = "those within the limits" if not outside_shown and inside < total else "each"
    if listed:
        shown = ", ".join(str(i + 1) for i in listed)
        return (f"{head}; {drawn} drawn as numbered ghosts (at most {MAX_GHOSTS} at once), "
                f"not drawn: {shown}:")
    return f"{head}; {which} drawn as a numbered ghost:"
