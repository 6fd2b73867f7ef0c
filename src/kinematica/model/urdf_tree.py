"""Which serial chain of a URDF tree to import: the candidate tips and the default choice.

A URDF is a tree of links joined by joints; a Robot is one chain of it, from the root link to a
*tip* link. The candidate tips are one per distinct chain of movable joints that ends at a leaf:
the chain runs from the root to the leaf and stops before the first joint no serial chain can
hold (mimic, floating, planar), and its tip is the link after its last movable joint, followed on
through fixed joints while there is only one way on (so a flange, hand and TCP come along).

Works on a parsed `yourdfpy.URDF` (`urdf.robot.joints`, `urdf.link_map`, `urdf.joint_map`).
"""

from __future__ import annotations

import difflib

from .schema import RobotFileError

_NOT_ON_A_CHAIN = ("floating", "planar")


def path_to(urdf, link: str) -> list:
    """The joints from the root link down to `link`, in order."""
    child_of = {j.child: j for j in urdf.robot.joints}
    out = []
    while link in child_of:
        out.append(child_of[link])
        link = out[-1].parent
    return out[::-1]


def tool_link(urdf, link: str) -> str:
    """`link`, followed on through fixed joints while exactly one fixed joint leaves it."""
    while True:
        fixed = [j for j in urdf.robot.joints if j.parent == link and j.type == "fixed"]
        if len(fixed) != 1:
            return link
        link = fixed[0].child


def candidate_tips(urdf) -> dict[str, tuple[str, ...]]:
    """Tip link → names of the movable joints of its chain, one entry per distinct chain, in the
    file's link order. Chains stop before a mimic, floating or planar joint."""
    parents = {j.parent for j in urdf.robot.joints}
    chains: dict[tuple[str, ...], str] = {}
    for leaf in (name for name in urdf.link_map if name not in parents):
        movable = []
        for j in path_to(urdf, leaf):
            if j.type in _NOT_ON_A_CHAIN or j.mimic is not None:
                break
            if j.type != "fixed":
                movable.append(j)
        if movable:
            chains.setdefault(tuple(j.name for j in movable), tool_link(urdf, movable[-1].child))
    return {tip: key for key, tip in chains.items()}


def describe_tips(tips: dict[str, tuple[str, ...]]) -> str:
    """'a' (3 joints), 'b' (7 joints) … — the candidates as a message lists them."""
    return ", ".join(f"{tip!r} ({len(key)} joint{'s' * (len(key) != 1)})" for tip, key in tips.items())


def choose_chain(urdf, tip: str | None, where: str) -> list:
    """Joints from the root link to `tip`; without a tip, the longest chain of actuated joints.

    The default skips mimic joints and, where that leaves a chain, the driver joint of a mimic
    (a gripper's fingers are not part of the arm); it is refused, with the candidate tips
    listed, when several chains are equally long.
    """
    if tip is not None:
        if tip not in urdf.link_map:
            close = difflib.get_close_matches(tip, list(urdf.link_map), n=3)
            hint = f"did you mean {', '.join(close)}?" if close else f"links: {', '.join(urdf.link_map)}"
            raise RobotFileError(f"{where}: tip link {tip!r} not found; {hint}")
        return path_to(urdf, tip)
    parents = {j.parent for j in urdf.robot.joints}
    leaves = [name for name in urdf.link_map if name not in parents]
    drivers = {j.mimic.joint for j in urdf.robot.joints if j.mimic is not None}
    for skip in (drivers, set()):  # a gripper's mimicked driver joint is not part of the arm
        keys = {leaf: tuple(j.name for j in path_to(urdf, leaf) if j.type != "fixed" and j.mimic is None
                            and j.name not in skip) for leaf in leaves}
        longest = max((len(k) for k in keys.values()), default=0)
        if longest:
            break
    if not longest:
        raise RobotFileError(f"{where}: no movable joint (revolute, continuous or prismatic) in the URDF"
                             + (" other than mimic joints" if drivers else ""))
    chains = list(dict.fromkeys(key for key in keys.values() if len(key) == longest))
    ends = [tool_link(urdf, urdf.joint_map[key[-1]].child) for key in chains]
    if len(chains) > 1:
        raise RobotFileError(
            f"{where}: the tree branches into {len(chains)} chains of {longest} movable joints, ending at "
            f"{', '.join(map(repr, ends))}; choose one with tip=<link name> (km.load(path, tip=...), or "
            f"--tip LINK on the command line); candidate tips: {describe_tips(candidate_tips(urdf))}")
    return path_to(urdf, ends[0])
