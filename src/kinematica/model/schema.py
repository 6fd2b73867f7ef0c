"""The YAML robot-file schema (JSON Schema), and validation that names the bad field and line.

The schema is documented for users in docs/robot-files.md; keep the two in step.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import yaml

from ..errors import KinematicaError

__all__ = ["SCHEMA", "COLLISION", "VISUALS", "dump", "RobotFileError", "load_yaml", "validate", "line_of",
           "field_name", "parse"]

if TYPE_CHECKING:
    import jsonschema

_num = {"type": "number"}
_vec3 = {"type": "array", "items": _num, "minItems": 3, "maxItems": 3}
_mat3 = {"type": "array", "items": _vec3, "minItems": 3, "maxItems": 3}
_mat4 = {"type": "array", "minItems": 4, "maxItems": 4,
         "items": {"type": "array", "items": _num, "minItems": 4, "maxItems": 4}}
_pair = {"type": "array", "items": _num, "minItems": 2, "maxItems": 2}

_placement = {
    "type": "object",
    "additionalProperties": False,
    "properties": {"xyz": _vec3, "rpy": _vec3, "rotation": _mat3, "matrix": _mat4},
}

_inertial = {
    "type": "object",
    "additionalProperties": False,
    "required": ["mass"],
    "properties": {
        "mass": {"type": "number", "minimum": 0},
        "com": _vec3,
        "inertia": {"oneOf": [_mat3, {"type": "array", "items": _num, "minItems": 6, "maxItems": 6}]},
        "cylinder": {"type": "object", "additionalProperties": False, "required": ["radius", "height"],
                     "properties": {"radius": _num, "height": _num, "axis": {"enum": ["x", "y", "z"]}}},
        "box": {"type": "object", "additionalProperties": False, "required": ["size"],
                "properties": {"size": _vec3}},
        "sphere": {"type": "object", "additionalProperties": False, "required": ["radius"],
                   "properties": {"radius": _num}},
    },
}

_servo = {
    "type": "object",
    "additionalProperties": False,
    "required": ["zero", "sign"],
    "properties": {"zero": _num, "sign": {"enum": [1, -1]}, "range": _pair, "pin": {"type": "integer"}},
}

_common_joint = {
    "name": {"type": "string", "minLength": 1},
    "type": {"enum": ["revolute", "prismatic", "helical"]},
    "pitch": _num,  # a helical joint's slide along its axis per rad turned (length unit/rad)
    "limits": _pair,
    "inertial": _inertial,
    "servo": _servo,
    "link": {"type": "string"},
    "friction": {"type": "object", "additionalProperties": False,
                 "properties": {"viscous": {"type": "number", "minimum": 0},
                                "coulomb": {"type": "number", "minimum": 0}}},
    "armature": {"type": "number", "minimum": 0},
}

_joint_by_kind = {
    "dh": {**_common_joint, "a": _num, "alpha": _num, "d": _num, "theta": _num},
    "planar": {**_common_joint, "length": {"type": "number", "minimum": 0}},
    "frames": {**_common_joint, "xyz": _vec3, "rpy": _vec3, "rotation": _mat3, "axis": _vec3},
}
_joint_by_kind["mdh"] = _joint_by_kind["dh"]
# a PoE joint is its screw axis (ω; v) at q = 0; its links' frames are not the user's, so no inertial
# (and no pitch: a helical screw carries its own, ω·v)
_joint_by_kind["poe"] = {**{k: v for k, v in _common_joint.items() if k not in ("inertial", "pitch")},
                         "screw": {"type": "array", "items": _num, "minItems": 6, "maxItems": 6}}

SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "kind", "length_unit", "joints"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "description": {"type": "string"},
        "source": {"type": "string"},
        "notes": {"type": "string"},
        "kind": {"enum": ["dh", "mdh", "planar", "frames", "poe"]},
        "length_unit": {"enum": ["m", "mm"]},
        "angle_unit": {"enum": ["deg", "rad"]},
        "joints": {"type": "array", "minItems": 1},
        "base": _placement,
        "tool": _placement,
        "home_pose": _placement,
        "screw_frame": {"enum": ["space", "body"]},
        "home": {"type": "array", "items": _num},
        "gripper": {"type": "object"},
        "extras": {"type": "object"},
        "collision": None,  # COLLISION below
    },
}


_link_pair = {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 2, "maxItems": 2}
COLLISION = {
    "type": "object",
    "additionalProperties": False,
    "properties": {"radius": {"type": "number", "exclusiveMinimum": 0},
                   "exclude": {"type": "array", "items": _link_pair},
                   "include": {"type": "array", "items": _link_pair}},
}
"""A robot's collision geometry (kinematica.scene): the capsule `radius` around its links
(robot length unit) and link-name pairs to `exclude` from or `include` in its self-collision check."""
SCHEMA["properties"]["collision"] = COLLISION

_positive = {"type": "number", "exclusiveMinimum": 0}
_SHAPE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["body"],
    "oneOf": [{"required": [k]} for k in ("box", "cylinder", "sphere", "mesh")],
    "properties": {
        "body": {"type": "integer", "minimum": 0},
        "name": {"type": "string"},
        "xyz": _vec3, "rpy": _vec3,
        "color": {"oneOf": [{"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"},
                            {"type": "array", "items": {"type": "number", "minimum": 0, "maximum": 1},
                             "minItems": 3, "maxItems": 4}]},
        "box": {"type": "object", "additionalProperties": False, "required": ["size"],
                "properties": {"size": {"type": "array", "items": _positive, "minItems": 3, "maxItems": 3}}},
        "cylinder": {"type": "object", "additionalProperties": False, "required": ["radius", "length"],
                     "properties": {"radius": _positive, "length": _positive}},
        "sphere": {"type": "object", "additionalProperties": False, "required": ["radius"],
                   "properties": {"radius": _positive}},
        "mesh": {"type": "object", "additionalProperties": False, "required": ["file"],
                 "properties": {"file": {"type": "string", "minLength": 1},
                                "scale": {"type": "array", "items": _num, "minItems": 3, "maxItems": 3}}},
        "grip": {"type": "object", "additionalProperties": False, "required": ["axis"],
                 "properties": {"axis": _vec3, "pivot": _vec3, "open": _num, "closed": _num,
                                "slide": {"type": "boolean"}}},
    },
}
VISUALS = {
    "type": "object",
    "additionalProperties": False,
    "properties": {"source": {"type": "string"}, "shapes": {"type": "array", "items": _SHAPE}},
}
"""What the robot looks like (kinematica.model.visual): shapes fixed to its bodies (0 the base,
k link frame k), in the robot's length unit, and where they come from (`source`)."""
SCHEMA["properties"]["visuals"] = VISUALS


class _DuplicateKey(yaml.constructor.ConstructorError):
    """A mapping gives one key twice (PyYAML would keep the last silently)."""

    def __init__(self, key: Any, first: yaml.Node, again: yaml.Node):
        super().__init__(None, None, f"key {key!r} appears twice", again.start_mark)
        self.key, self.first, self.again = key, first.start_mark.line + 1, again.start_mark.line + 1


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's safe loader reading floats as YAML 1.2 does (`1e-3` is a number, not a string)
    and refusing a key given twice in one mapping (YAML forbids it; PyYAML keeps the last).
    On libyaml's parser where PyYAML has it: the pure-Python one took 60 ms a robot file."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[Any, yaml.Node] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *base` may override keys
                continue
            key = self.construct_object(key_node, deep=deep)
            try:
                if key in seen:
                    raise _DuplicateKey(key, seen[key], key_node)
                seen[key] = key_node
            except TypeError:  # an unhashable key: PyYAML's own error follows
                pass
        return super().construct_mapping(node, deep=deep)


class _Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper knowing `_Loader`'s floats, so it quotes a string such as a joint
    named `1e3`, which it would otherwise write bare and `_Loader` read back as a number."""


_FLOAT_12 = re.compile(r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
                  |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
                  |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
                  |[-+]?\.(?:inf|Inf|INF)
                  |\.(?:nan|NaN|NAN))$""", re.X)
for _cls in (_Loader, _Dumper):
    _cls.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT_12, list("-+0123456789."))


def _string(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    # Unicode line breaks (NEL, LS, PS) in a single-quoted scalar are folded on reading; only
    # double quotes escape them (\N, \L, \P).
    style = '"' if any(c in text for c in "\x85\u2028\u2029") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _string)


def dump(data: dict[str, Any]) -> str:
    """YAML text of a robot-file mapping that `parse` reads back to the same mapping."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=None, width=100)


class RobotFileError(KinematicaError, ValueError):
    """A robot file is malformed; the message names the file, line and field."""


def _node_at(root: yaml.Node, path: list) -> yaml.Node:
    node = root
    for key in path:
        if isinstance(node, yaml.MappingNode):
            nxt = next((v for k, v in node.value if k.value == key), None)
            if nxt is None:
                return node
            node = nxt
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            return node
    return node


def _field(path: list) -> str:
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out or "(top level)"


def _unknown_key_line(node: yaml.Node, err: jsonschema.ValidationError) -> tuple[int, str] | None:
    if err.validator != "additionalProperties" or not isinstance(node, yaml.MappingNode):
        return None
    if not isinstance(err.schema, Mapping):  # jsonschema types a schema as possibly a bool too
        return None
    allowed = set(err.schema.get("properties", {}))
    for k, _ in node.value:
        if k.value not in allowed:
            return k.start_mark.line + 1, str(k.value)
    return None


def load_yaml(text: str, where: str) -> tuple[Any, yaml.Node]:
    """(data, node tree) of YAML text read as robot files are (floats as in YAML 1.2, no key
    given twice); RobotFileError naming the file and line when it is not valid YAML or empty.
    Scene files share it (`kinematica.scene.scenefile`)."""
    try:
        loader = _Loader(text)
        try:  # one parse: the nodes (their lines name the bad field) and the data built from them
            root = loader.get_single_node()
            data = None if root is None else loader.construct_document(root)
        finally:
            loader.dispose()
    except _DuplicateKey as e:
        raise RobotFileError(f"{where} line {e.again}: key {e.key!r} appears twice in one mapping "
                             f"(first at line {e.first}); give each key once") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark else ""
        raise RobotFileError(f"{where}{line}: not valid YAML ({getattr(e, 'problem', e)})") from None
    if root is None:
        raise RobotFileError(f"{where}: the file is empty")
    return data, root


def validate(data: Any, schema: dict, root: yaml.Node, where: str, path: list | None = None) -> None:
    """Check `data` (found at `path` in the node tree `root`) against a JSON schema; the first
    error as RobotFileError naming the file, line and field."""
    _validate(data, schema, root, where, list(path or []))


def line_of(root: yaml.Node, path: list) -> int:
    """The 1-based line of the field at `path` (or of its nearest existing parent)."""
    return _node_at(root, path).start_mark.line + 1


def field_name(path: list) -> str:
    """A field path as users read it: joints[2].limits."""
    return _field(path)


def parse(text: str, where: str = "<robot file>", schema: bool = True) -> dict[str, Any]:
    """Parse and validate robot-file text; raise RobotFileError naming file, line and field.
    schema=False skips the JSON-schema pass (the meaning checks still run): for the bundled
    files, which the tests hold to the schema, so that loading one does not import jsonschema
    (~1/4 of `kinematica fk puma560 …`'s start-up)."""
    data, root = load_yaml(text, where)
    if not schema:
        _check_meaning(data, root, where)
        return data
    _validate(data, SCHEMA, root, where, [])
    if isinstance(data.get("joints"), list):
        joint_schema = {"type": "object", "additionalProperties": False,
                        "properties": _joint_by_kind[data["kind"]]}
        for i, j in enumerate(data["joints"]):
            _validate(j, joint_schema, root, where, ["joints", i])
    _check_meaning(data, root, where)
    return data


_EXCLUSIVE = [("placement", ("matrix", "xyz")), ("placement", ("matrix", "rpy")),
              ("placement", ("matrix", "rotation")), ("placement", ("rotation", "rpy")),
              ("inertial", ("inertia", "cylinder", "box", "sphere"))]


def _fail(root: yaml.Node, where: str, path: list, message: str) -> None:
    line = _node_at(root, path).start_mark.line + 1
    raise RobotFileError(f"{where} line {line}: {_field(path)}: {message}")


def _exclusive(d: dict, what: str, root: yaml.Node, where: str, path: list) -> None:
    for kind, keys in _EXCLUSIVE:
        given = [k for k in keys if k in d]
        if kind == what and len(given) > 1:
            _fail(root, where, path + [given[1]], f"give only one of {', '.join(given)}")


def _is_rotation(R: Any) -> bool:
    import numpy as np

    R = np.asarray(R, dtype=float)
    return bool(np.allclose(R.T @ R, np.eye(3), atol=1e-6) and np.linalg.det(R) > 0)


def _check_meaning(data: dict, root: yaml.Node, where: str) -> None:
    """Rules a JSON schema states badly: keys that exclude each other, ordered limits, and
    joint types the kind cannot hold — each reported at its own line, in the file's units."""
    for key in ("base", "tool", "home_pose"):
        if key in data:
            _exclusive(data[key], "placement", root, where, [key])
    for i, j in enumerate(data["joints"]):
        path = ["joints", i]
        _exclusive(j, "placement", root, where, path)
        if "inertial" in j:
            _exclusive(j["inertial"], "inertial", root, where, path + ["inertial"])
        if "limits" in j and j["limits"][0] > j["limits"][1]:
            _fail(root, where, path + ["limits"], f"lower limit {j['limits'][0]} is above upper limit {j['limits'][1]}")
        if data["kind"] == "planar" and j.get("type", "revolute") != "revolute":
            _fail(root, where, path + ["type"], "a planar chain has revolute joints only")
        if data["kind"] == "planar" and "length" not in j:
            _fail(root, where, path, "a planar joint needs 'length'")
        if data["kind"] == "poe" and "screw" not in j:
            _fail(root, where, path, "a poe joint needs 'screw': its axis (ωx, ωy, ωz, vx, vy, vz) at q = 0")
        for key in ("rotation",):
            if key in j and not _is_rotation(j[key]):
                _fail(root, where, path + [key], "must be an orthonormal 3x3 matrix with determinant +1")
    poe = data["kind"] == "poe"
    for key, allowed in (("home_pose", poe), ("screw_frame", poe), ("tool", not poe)):
        if key in data and not allowed:
            _fail(root, where, [key], "belongs to kind: poe only" if key != "tool" else
                  "a poe robot's tool is its home_pose (M, the tool at q = 0)")
    if poe and "home_pose" not in data:
        _fail(root, where, ["kind"], "kind: poe needs home_pose: the tool's placement at q = 0 (M)")
    for key in ("base", "tool", "home_pose"):
        if "rotation" in data.get(key, {}) and not _is_rotation(data[key]["rotation"]):
            _fail(root, where, [key, "rotation"], "must be an orthonormal 3x3 matrix with determinant +1")
    if "home" in data and len(data["home"]) != len(data["joints"]):
        _fail(root, where, ["home"], f"expected {len(data['joints'])} values (one per joint), got {len(data['home'])}")


_VALIDATORS: dict[int, Any] = {}  # id(schema) -> its validator


def _validate(data: Any, schema: dict, root: yaml.Node, where: str, prefix: list) -> None:
    import jsonschema  # at the first file read, not at `import kinematica`
    from jsonschema.exceptions import (
        best_match,  # (loaded by the line above; named for the checker)
    )

    validator = _VALIDATORS.get(id(schema))
    if validator is None or validator.schema is not schema:  # made once per schema (its checks cost ~1 ms)
        validator = _VALIDATORS[id(schema)] = jsonschema.Draft202012Validator(schema)
    if validator.is_valid(data):  # the common case: no error objects built, no best match sought
        return
    err = best_match(validator.iter_errors(data))
    if err is None:
        return
    path = prefix + list(err.absolute_path)
    node = _node_at(root, path)
    unknown = _unknown_key_line(node, err)
    if unknown:
        line, key = unknown
        allowed = ", ".join(sorted(err.schema.get("properties", {})))
        raise RobotFileError(f"{where} line {line}: {_field(path + [key])}: unknown field "
                             f"{key!r} (allowed: {allowed})")
    raise RobotFileError(f"{where} line {node.start_mark.line + 1}: {_field(path)}: {err.message}")
