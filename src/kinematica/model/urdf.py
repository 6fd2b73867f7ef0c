"""URDF import (`from_urdf`) and export (`to_urdf`) of serial-chain robots.

URDF conventions, which both directions follow:

* lengths in metres, angles in radians, masses in kg, inertia tensors in kg·m² about the
  centre of mass, expressed in the `<inertial><origin>` frame;
* `<origin xyz rpy>`: translate by xyz, then turn by roll, pitch, yaw about the *fixed* x, y, z
  axes, R = Rz(yaw)·Ry(pitch)·Rx(roll) (`spatial.rpy_to_matrix`);
* a joint's child link frame = parent link frame · origin · motion(axis, q); the axis (default
  1 0 0) passes through the child frame's origin.

Import: link frame i of the Robot *is* the URDF child link frame of movable joint i (table kind
"frames"). Fixed joints between movable ones fold into the next joint's origin, those before the
first movable joint into `robot.base`, those after the last into `robot.tool`. The inertial of
link i is the rigid body of its URDF child link plus every link fixed to it and every link behind
a movable joint off the chain (gripper fingers, another arm), that joint held at a configuration
(`urdf_bodies`: `hold`, else 0 within its limits; an OffChainBodiesWarning says so); a link
without <inertial> is massless. A revolute or prismatic joint without <limit> is unlimited, with
a MissingLimitWarning (URDF requires one); a missing lower/upper is 0 (spec). Trees: `urdf_tree`.
With `length_unit="mm"` lengths and prismatic limits are ×1000 and inertia ×1e6 (kg·mm²).

Export: links `base_link`, one per joint, `tool0` (and `world` when the base is not identity),
always in metres. URDF link i is the Robot's link frame i when the joint axis passes through its
origin (URDF-, link-frame-, MDH- and planar robots), else the joint frame (standard DH with
a ≠ 0); inertials are re-expressed in that frame. Joint offsets fold into the origins, the
home configuration goes into a comment only (URDF has none). A prismatic or half-open revolute limit
at infinity is written as ±1.7976931348623157e308 (DBL_MAX), which `from_urdf` reads back as
±inf (any |limit| >= 1e300 does). A robot's joint drives (armature, viscous and Coulomb
friction, `robot.extras["drives"]`) go into a comment only: URDF has no armature. Effort and velocity limits are not part of a Robot: those
imported from a URDF are kept in `robot.extras["urdf"]` and written back, others as 0.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import lxml.etree as etree  # (lxml/__init__ does not name etree: type checkers find it this way)
import numpy as np

from .. import spatial
from ..keywords import strict
from .builders import from_link_frames
from .inertial import Inertial
from .robot import PRISMATIC, Robot, RobotError
from .schema import RobotFileError
from .urdf_bodies import (
    MissingLimitWarning,
    OffChainBodiesWarning,
    URDFWarning,
    children_of,
    folded_message,
    held_shapes_message,
    held_values,
    limits,
    rigid_body,
    warn,
)
from .urdf_collision import collision_shapes
from .urdf_tree import candidate_tips, choose_chain
from .urdf_visual import mesh_files, visual_shapes, write_visual
from .visual import gripper_fraction

_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")
_NUMBERS = {  # element -> {attribute: how many numbers}
    "origin": {"xyz": 3, "rpy": 3}, "axis": {"xyz": 3}, "mass": {"value": 1},
    "limit": {"lower": 1, "upper": 1, "effort": 1, "velocity": 1},
    "inertia": {k: 1 for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")},
    "mimic": {"multiplier": 1, "offset": 1},
}
_XACRO = "http://www.ros.org/wiki/xacro"
# The XML declaration's version, e.g. "0.0" in many of pybullet_data's files: libxml2 refuses
# any but 1.x, while urdfdom (ROS, Pinocchio) ignores it. Read as 1.0; lines stay where they are.
_XML_VERSION = re.compile(rb"""^((?:\xef\xbb\xbf)?\s*<\?xml\s+version\s*=\s*["'])[^"']*(["'])""")


# --- reading --------------------------------------------------------------------------------
def _parse_xml(text_or_path: Any, where: str) -> tuple[etree._Element, str]:
    """The <robot> element of URDF text, bytes or a file path; RobotFileError if malformed."""
    if isinstance(text_or_path, Path) or (isinstance(text_or_path, str) and text_or_path.strip()
                                               and "<" not in text_or_path):
        path = Path(text_or_path)
        if not path.is_file():
            raise FileNotFoundError(f"URDF file not found: {path}")
        where = str(path) if where == "<urdf>" else where
        data = path.read_bytes()
    else:
        data = text_or_path.encode("utf-8") if isinstance(text_or_path, str) else bytes(text_or_path)
    data = _XML_VERSION.sub(rb"\g<1>1.0\g<2>", data, count=1)  # see _XML_VERSION
    parser = etree.XMLParser(resolve_entities=False, no_network=True, remove_blank_text=True)
    try:
        tree = etree.parse(io.BytesIO(data), parser)
    except etree.XMLSyntaxError as e:
        raise RobotFileError(f"{where}: malformed XML at line {e.lineno}: {e.msg}") from None
    if tree.docinfo.internalDTD is not None:
        raise RobotFileError(f"{where}: a <!DOCTYPE> with entities is not supported in URDF")
    root = tree.getroot()
    if any(isinstance(el.tag, str) and el.tag.startswith("{" + _XACRO) for el in root.iter()):
        raise RobotFileError(f"{where}: this is a xacro file; expand it first (xacro in.urdf.xacro > out.urdf)")
    if root.tag != "robot":
        raise RobotFileError(f"{where}: line {root.sourceline}: root element is <{root.tag}>, expected <robot>")
    return root, where


def _check(root: etree._Element, where: str) -> None:
    """Everything yourdfpy would silently default or crash on, with the line it is on."""
    def bad(el, msg):
        raise RobotFileError(f"{where}: line {el.sourceline}: <{el.tag}>: {msg}")

    if not root.get("name"):
        bad(root, "the robot has no name attribute")
    for el in root.iter():
        for attr, count in _NUMBERS.get(el.tag, {}).items() if isinstance(el.tag, str) else ():
            if el.get(attr) is None:
                continue
            try:
                vals = [float(v) for v in el.get(attr).split()]
            except ValueError:
                vals = []
            if len(vals) != count or (el.tag != "limit" and not all(map(math.isfinite, vals))):
                bad(el, f"{attr}={el.get(attr)!r} must be {count} finite number{'s' * (count > 1)}")
    links: set[str] = set()
    for el in root.findall("link"):
        if not el.get("name") or el.get("name") in links:
            bad(el, f"link name {el.get('name')!r} used twice" if el.get("name") else "a link needs a name")
        links.add(el.get("name"))
        inertial = el.find("inertial")
        if inertial is not None:
            mass, inertia = inertial.find("mass"), inertial.find("inertia")
            if mass is None or mass.get("value") is None:
                bad(inertial, f"link {el.get('name')!r}: <inertial> needs <mass value=...>")
            if inertia is None or any(inertia.get(k) is None for k in _NUMBERS["inertia"]):
                bad(inertial, f"link {el.get('name')!r}: <inertia> needs ixx ixy ixz iyy iyz izz")
    joints, below, has_parent = set(), {}, set()
    for el in root.findall("joint"):
        name = el.get("name")
        if not name or name in joints:
            bad(el, f"joint name {name!r} used twice" if name else "a joint needs a name")
        joints.add(name)
        if el.get("type") not in _TYPES:
            bad(el, f"joint {name!r}: type {el.get('type')!r} unknown: use one of {', '.join(_TYPES)}")
        for tag in ("parent", "child"):
            sub = el.find(tag)
            if sub is None or sub.get("link") not in links:
                bad(el if sub is None else sub, f"joint {name!r}: {tag} link "
                    f"{None if sub is None else sub.get('link')!r} is not defined")
        child = el.find("child").get("link")
        if child in has_parent:
            bad(el, f"joint {name!r}: link {child!r} has two parent joints")
        has_parent.add(child)
        below.setdefault(el.find("parent").get("link"), []).append(child)
    for el in root.findall("joint/mimic"):
        if el.get("joint") not in joints:
            warn(URDFWarning(f"{where}: line {el.sourceline}: joint {el.getparent().get('name')!r} mimics "
                             f"{el.get('joint')!r}, which is not defined: it stays a mimic joint, on no chain "
                             "and held at 0 within its limits when off one"))
    roots = sorted(links - has_parent)
    if len(roots) != 1:
        raise RobotFileError(f"{where}: the links must form one tree with one root link; "
                             f"found {len(roots)} roots ({', '.join(roots) or 'a cycle'})")
    seen, todo = set(), roots[:]
    while todo:
        seen.add(todo[-1])
        todo += below.get(todo.pop(), [])
    if seen != links:
        raise RobotFileError(f"{where}: links {', '.join(sorted(links - seen))} form a cycle "
                             f"apart from the root link {roots[0]!r}")


def _load(root: etree._Element, where: str):
    import yourdfpy

    try:
        return yourdfpy.URDF.load(io.BytesIO(etree.tostring(root)), build_scene_graph=False,
                                  build_collision_scene_graph=False, load_meshes=False,
                                  load_collision_meshes=False)
    except Exception as e:  # noqa: BLE001 — yourdfpy raises many kinds; name the file and the cause
        raise RobotFileError(f"{where}: cannot read the URDF ({type(e).__name__}: {e})") from None


def _scaled(T: np.ndarray, k: float) -> np.ndarray:
    T = T.copy()
    T[:3, 3] *= k
    return T


@strict
def from_urdf(text_or_path: Any, *, where: str = "<urdf>", tip: str | None = None,
              hold: Mapping[str, float] | None = None, length_unit: str = "m",
              name: str | None = None, package_dirs: Sequence[str | Path] = ()) -> Robot:
    """Robot from URDF text (str or bytes) or a .urdf file path: the serial chain from the root
    link to `tip` (a link name; `urdf_tips` lists the candidates).

    Without `tip`, the chain is the longest one of actuated joints; branches made only of fixed
    or mimic joints, and a gripper's driver joint whose mimic sits in a sibling branch, are not
    part of it, and it runs on through fixed joints to a tool link while there is one way on.
    Revolute, continuous (limits ±inf) and prismatic joints become joints; fixed joints fold
    into constants. Links behind movable joints off the chain ride along rigidly, those joints
    held at `hold` ({joint name: value}, rad or m) or else 0 within their limits, and an
    `OffChainBodiesWarning` says so (`robot.extras["urdf"]["held"]` keeps the values). A link
    without `<inertial>` is massless. `length_unit` ("m" or "mm") is the unit of the returned
    Robot; the file is always in metres. Raises RobotFileError naming the problem for malformed
    XML, no movable joint, an unknown or ambiguous tip, a bad hold, non-physical inertia, and
    mimic, floating or planar joints on the chain.

    The links' `<visual>` shapes become `robot.visuals` (`urdf_visual`): mesh files
    (`package://PKG/...`) are looked for above the file's folder as ROS does and under
    `package_dirs`; a missing one warns once (URDFWarning) and its link is drawn as the skeleton.

    >>> import kinematica as km
    >>> r = km.from_urdf('''<robot name="r"><link name="a"/><link name="b"/>
    ...   <joint name="j" type="continuous"><parent link="a"/><child link="b"/>
    ...   <origin xyz="0 0 0.5"/><axis xyz="0 1 0"/></joint></robot>''')
    >>> r.joint_names, r.link_names, r.limits.tolist()
    (('j',), ('b',), [[-inf, inf]])
    """
    if length_unit not in ("m", "mm"):
        raise RobotError(f"length unit {length_unit!r} unknown: use 'm' or 'mm'")
    root, where = _parse_xml(text_or_path, where)
    _check(root, where)
    urdf = _load(root, where)
    scale = 1000.0 if length_unit == "mm" else 1.0
    path = choose_chain(urdf, tip, where)
    for j in path:
        if j.type in ("floating", "planar"):
            raise RobotFileError(f"{where}: joint {j.name!r} is {j.type}: only revolute, continuous, "
                                 "prismatic and fixed joints make a serial chain")
        if j.mimic is not None:
            raise RobotFileError(f"{where}: joint {j.name!r} mimics {j.mimic.joint!r}: mimic (coupled) "
                                 "joints are not supported on the chain; choose another tip")
    chain = {j.name for j in path if j.type != "fixed"}
    if not chain:
        raise RobotFileError(f"{where}: no movable joint between the root link and tip {tip!r}")
    held = held_values(urdf, chain, hold, where)
    lines = {el.get("name"): el.sourceline for el in root.findall("joint")}
    lines |= {el.getparent().get("name"): el.sourceline for el in root.findall("link/inertial")}
    children = children_of(urdf)
    pending, base, rows, links, inertials, folded, held_mass = np.eye(4), np.eye(4), [], [], [], {}, 0.0
    for j in path:
        origin = np.eye(4) if j.origin is None else j.origin
        if j.type == "fixed":
            pending = pending @ origin
            continue
        if np.linalg.norm(j.axis) < 1e-12:
            raise RobotFileError(f"{where}: joint {j.name!r}: axis must be a non-zero vector")
        if j.type in ("revolute", "prismatic") and j.limit is None:
            warn(MissingLimitWarning(
                f"{where}: line {lines[j.name]}: {j.type} joint {j.name!r} has no <limit> (URDF requires "
                "one): taken as unlimited; a joint that turns freely is type=\"continuous\""))
        base, X = (base, pending @ origin) if rows else (pending, origin)
        pending = np.eye(4)
        rows.append({"name": j.name, "type": PRISMATIC if j.type == PRISMATIC else "revolute",
                     "xyz": tuple(map(float, X[:3, 3] * scale)), "rpy": tuple(map(float, spatial.matrix_to_rpy(X[:3, :3]))),
                     "axis": tuple(float(a) for a in j.axis), "limits": limits(j, scale)})
        links.append(j.child)
        body, behind, mass = rigid_body(urdf, j.child, children, chain, held, scale, lines, where)
        inertials.append(body)
        folded |= behind
        held_mass += mass
    if held_mass > 0:
        warn(OffChainBodiesWarning(folded_message(where, folded, held_mass, held, urdf)))
    massless = Inertial(0.0, np.zeros(3), np.zeros((3, 3)))  # a link without <inertial> (legal)
    extras: dict[str, Any] = {"urdf": {k: tuple(getattr(urdf.joint_map[r["name"]].limit, k, None) for r in rows)
                                       for k in ("effort", "velocity")} | {"held": held}}
    first = next(j for j in path if j.type != "fixed")
    folder = Path(where).parent if Path(where).suffix.lower() == ".urdf" else None
    shapes, shaped = collision_shapes(urdf, [first.parent] + links, chain, held, scale, folder, where,
                                     package_dirs)
    named = {n for n, m in folded.items() if m > 0} if held_mass > 0 else set()
    if shaped - named:
        warn(OffChainBodiesWarning(held_shapes_message(where, [n for n in held if n in shaped - named], held, urdf)))
    if shapes:
        extras["collision_shapes"] = shapes
    looks = visual_shapes(urdf, path, links, chain, held, scale, folder, where, package_dirs)
    if looks:
        extras["visuals"] = looks
        extras["visual_source"] = f"the <visual> elements of {where}"
    try:
        return from_link_frames(
            rows, name=name or urdf.robot.name, length_unit=length_unit,
            base=_scaled(base, scale), tool=_scaled(pending, scale), meta=dict(
                link_names=tuple(links),
                inertials=tuple(massless if b is None else b for b in inertials) if any(inertials) else None,
                description=f"Imported from URDF {where}: links {path[0].parent} to {path[-1].child}.",
                extras=extras))
    except (RobotError, ValueError) as e:
        raise RobotFileError(f"{where}: {e}") from None


@strict
def urdf_tips(text_or_path: Any, *, where: str = "<urdf>") -> dict[str, tuple[str, ...]]:
    """The candidate tips of a URDF (one per distinct chain of movable joints that ends a
    branch): tip link name → the movable joints of its chain, in the file's order. Any of
    them can be passed as `tip` to `from_urdf` / `km.load`."""
    root, where = _parse_xml(text_or_path, where)
    _check(root, where)
    return candidate_tips(_load(root, where))


# --- writing --------------------------------------------------------------------------------
def _num(x: float) -> str:
    x = float(x)
    if np.isinf(x):
        return repr(float(np.copysign(np.finfo(float).max, x)))
    text = "0" if x == 0 else repr(x)
    return text[:-2] if text.endswith(".0") else text


def _vec(v, snap: bool = False) -> str:
    """Numbers as shortest exact decimals; `snap` clears rounding noise (|x| < 1e-15) in
    positions (m), angles (rad) and axes."""
    return " ".join(_num(0.0 if snap and abs(x) < 1e-15 else x) for x in v)


def _comment(text: str) -> etree._Comment:
    return etree.Comment(" " + " ".join(str(text).split()).replace("--", "- -").rstrip("-") + " ")


def _unique(name: str, taken: set[str]) -> str:
    out, k = name, 1
    while out in taken:
        k += 1
        out = f"{name}_{k}"
    taken.add(out)
    return out


def _frames(robot: Robot) -> np.ndarray:
    """G_i (n, 4, 4): URDF link i = joint frame i · G_i. G_i = A_i (the Robot's own link frame)
    when the joint still moves about an axis through that frame's origin, else identity."""
    G = np.tile(np.eye(4), (robot.n, 1, 1))
    for i, A in enumerate(robot.after):
        size = max(1.0, float(np.abs(A[:3, 3]).max()))
        if robot.joint_types[i] == PRISMATIC or np.abs(A[:2, 3]).max() <= 1e-14 * size:
            G[i] = A
    return G


def _joint(root, name, kind, parent, child, T, per_m) -> etree._Element:
    el = etree.SubElement(root, "joint", name=name, type=kind)
    etree.SubElement(el, "parent", link=parent)
    etree.SubElement(el, "child", link=child)
    etree.SubElement(el, "origin", xyz=_vec(T[:3, 3] / per_m, True), rpy=_vec(spatial.matrix_to_rpy(T[:3, :3]), True))
    return el


def _inertial(link: etree._Element, inert: Inertial, H: np.ndarray, per_m: float) -> None:
    """<inertial> of `inert` (given in a frame placed at H in the URDF link), in m and kg·m²;
    `per_m` robot length units make a metre."""
    R, node = H[:3, :3], etree.SubElement(link, "inertial")
    I = R @ inert.inertia @ R.T / per_m**2
    etree.SubElement(node, "origin", xyz=_vec((R @ inert.com + H[:3, 3]) / per_m), rpy="0 0 0")
    etree.SubElement(node, "mass", value=_num(inert.mass))
    etree.SubElement(node, "inertia", **{f"i{a}{b}": _num(I["xyz".index(a), "xyz".index(b)])
                                        for a, b in ("xx", "xy", "xz", "yy", "yz", "zz")})


def to_urdf(robot: Robot, *, mesh_folder: str | None = None) -> str:
    """URDF text of any Robot, in metres (mm robots are converted; a comment says so).

    The chain is `world` (only when the base is not identity) → `base_link` → one link per
    joint (`robot.link_names`, or link1 … linkn) → `tool0` (fixed), joint i turning about or
    sliding along its axis through URDF link i's origin. Revolute joints without limits become
    continuous. `from_urdf` of the text gives back the same forward kinematics, limits, names
    and inertials (with `length_unit="mm"` for a mm robot).

    `robot.visuals` become <visual> elements of their links (a gripper's fingers at its home
    opening); a mesh is named `mesh_folder/<file name>` (`urdf_visual.mesh_files`: copy the
    files there, as `kinematica export` does) or, without a folder, by its absolute file:// path.
    """
    if robot.helical.any():
        i = int(np.argmax(robot.helical))
        raise RobotError(f"joint {i + 1} ({robot.joint_names[i]}) of {robot.name!r} is helical (pitch "
                         f"{robot.pitch[i]:g} {robot.length_unit}/rad): URDF has no helical joint type; "
                         "save it as a robot file (km.save) instead")
    s = 1000.0 if robot.length_unit == "mm" else 1.0  # robot length units per metre
    taken: set[str] = set()
    names = [_unique(n, taken) for n in (robot.link_names or [f"link{i + 1}" for i in range(robot.n)])]
    base_link, tool_link = _unique("base_link", taken), _unique("tool0", taken)
    world = None if np.allclose(robot.base, np.eye(4), rtol=0, atol=1e-15) else _unique("world", taken)
    joint_names = set(robot.joint_names)
    root = etree.Element("robot", name=robot.name)
    root.append(_comment(f"Written by kinematica from robot {robot.name!r}. URDF units: m, rad, kg, "
                         "kg·m²; rpy = roll, pitch, yaw about the fixed x, y, z axes."))
    if robot.length_unit == "mm":
        root.append(_comment("The robot's own length unit is mm: lengths here were divided by 1000 and "
                             "inertia (kg·mm²) by 1e6. Read it back in mm with "
                             "kinematica.from_urdf(path, length_unit='mm')."))
    for text in (robot.description, robot.source):
        if text:
            root.append(_comment(text))
    if robot.home is not None:
        root.append(_comment(f"home configuration (not part of URDF): {_vec(robot.home)}"))
    drives = robot.extras.get("drives")
    if drives:  # URDF has no armature, and from_urdf reads no <dynamics>: said, not half-written
        root.append(_comment("joint drives (not written as URDF, so not read back): " + "; ".join(
            f"{k} {_vec(drives[k])}" for k in ("armature", "viscous", "coulomb"))))
    links = {n: etree.SubElement(root, "link", name=n) for n in [world, base_link, *names, tool_link] if n}
    if world:
        _joint(root, _unique("world_joint", joint_names), "fixed", world, base_link, robot.base, s)
    kept = robot.extras.get("urdf")
    known = kept if isinstance(kept, dict) else {}
    G, prev = _frames(robot), np.eye(4)  # prev: previous URDF link → this joint's `before`
    for i in range(robot.n):
        prismatic = robot.joint_types[i] == PRISMATIC
        lo, hi = robot.limits[i]
        free = not prismatic and np.isinf(lo) and np.isinf(hi)
        J = spatial.trans(z=robot.offsets[i]) if prismatic else spatial.rotz(robot.offsets[i])
        el = _joint(root, robot.joint_names[i], "continuous" if free else robot.joint_types[i],
                    names[i - 1] if i else base_link, names[i], prev @ robot.before[i] @ J @ G[i], s)
        etree.SubElement(el, "axis", xyz=_vec(G[i][2, :3], True))
        limit = {k: _num(v[i]) for k in ("effort", "velocity")
                 if len(v := known.get(k, ())) == robot.n and v[i] is not None}
        if not free:
            k = s if prismatic else 1.0
            limit |= {"lower": _num(lo / k), "upper": _num(hi / k)}
        if limit:  # urdfdom (ROS, Pinocchio) needs effort and velocity: 0 when unknown
            etree.SubElement(el, "limit", **({"effort": "0", "velocity": "0"} | limit))
        prev = spatial.inv(G[i]) @ robot.after[i]
        inert = None if robot.inertials is None else robot.inertials[i]
        if inert is not None:
            _inertial(links[names[i]], inert, prev, s)
    _joint(root, _unique("tool0_joint", joint_names), "fixed", names[-1], tool_link, prev @ robot.tool, s)
    files = mesh_files(robot.visuals, mesh_folder) if mesh_folder else {}
    for v in robot.visuals:
        H = np.eye(4) if v.body == 0 else spatial.inv(G[v.body - 1]) @ robot.after[v.body - 1]
        write_visual(links[base_link if v.body == 0 else names[v.body - 1]], v, H, s, gripper_fraction(robot), files)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + etree.tostring(root, encoding="unicode",
                                                                       pretty_print=True)
