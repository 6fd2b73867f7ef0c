"""Write the `visuals:` section of the bundled robots (src/kinematica/model/robots/*.yaml): what
each looks like, built from primitives (boxes, cylinders, spheres) because no permissively
licensed mesh of these arms ships in a registry package that the project could bundle.

Each shape is laid out here in world coordinates at the configuration q = 0 — between the
joint origins and along the joint axes that the robot file itself gives (`arm_geometry`), at
the published link lengths — with its cross-section, housing sizes and colours estimated from
photographs and datasheets (stated per robot in `SOURCES`); it is then stored in the frame of
the body that carries it (0 the base, k link frame k), so it moves with the model.

Run after changing a robot's kinematics:   python scripts/robot_visuals.py [ROBOT ...]
It replaces the `visuals:` block at the end of each file and leaves the rest as written.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import kinematica as km
from kinematica import spatial
from kinematica.model.schema import dump

FOLDER = Path(__file__).resolve().parents[1] / "src/kinematica/model/robots"


class Layout:
    """Shapes of one robot placed in world coordinates at q = 0, kept in their bodies' frames."""

    def __init__(self, name: str) -> None:
        self.robot = km.load(name)
        self.deg = self.robot.table is not None and self.robot.table.angle_unit == "deg"
        self.frames = km.fk_frames(self.robot, np.zeros(self.robot.n))
        self.shapes: list[dict] = []

    def _add(self, body: int, X: np.ndarray, geometry: dict, color: str, name: str, grip: dict | None = None) -> None:
        local = np.linalg.inv(self.frames[body]) @ X
        rpy = spatial.matrix_to_rpy(local[:3, :3])
        row = {"body": body, "name": name, **geometry, "xyz": _num(local[:3, 3]),
               "rpy": _num(np.degrees(rpy) if self.deg else rpy), "color": color}
        if np.allclose(rpy, 0, atol=1e-12):
            del row["rpy"]
        if grip is not None:
            row["grip"] = grip
        self.shapes.append(row)

    def cylinder(self, body: int, a, b, radius: float, color: str, name: str) -> None:
        """A cylinder from world point a to b."""
        a, b = np.asarray(a, float), np.asarray(b, float)
        R = spatial.axis_to_z(b - a).T  # a rotation whose z is along b − a
        self._add(body, spatial.homogeneous(R, (a + b) / 2), {"cylinder": {"radius": radius, "length": _one(
            np.linalg.norm(b - a))}}, color, name)

    def box(self, body: int, center, size, color: str, name: str, grip: dict | None = None) -> None:
        """An axis-aligned box (world axes at q = 0)."""
        self._add(body, spatial.transl(center), {"box": {"size": _num(size)}}, color, name, grip)

    def sphere(self, body: int, center, radius: float, color: str, name: str) -> None:
        self._add(body, spatial.transl(center), {"sphere": {"radius": radius}}, color, name)

    def grip(self, body: int, pivot, axis, open_angle: float) -> dict:
        """A finger's turn about `axis` through `pivot` (world, q = 0), open by `open_angle` deg."""
        F = np.linalg.inv(self.frames[body])
        k = 1.0 if self.deg else np.pi / 180
        return {"axis": _num(F[:3, :3] @ axis), "pivot": _num(F @ [*pivot, 1.0])[:3], "open": _one(open_angle * k),
                "closed": 0}


def _num(v) -> list[float]:
    return [_one(x) for x in np.asarray(v, float)]


def _one(x: float) -> float:
    """6 significant digits (0.001 mm on a metre arm), rounding noise of the frames cleared."""
    return 0.0 if abs(x) < 1e-9 else float(f"{float(x):.6g}") + 0.0


# --- the robots ---------------------------------------------------------------------------------
WHITE, SERVO, IVORY = "#eceff1", "#263238", "#f5f5f0"


def braccio() -> Layout:
    """Tinkerkit Braccio (mm), q = 0 straight up: shoulder axis 71.5 above the base plate, 125 mm
    links, wrist roll 60 mm above the pitch axis, finger pivots 30 mm further."""
    L = Layout("braccio")
    L.cylinder(0, (0, 0, 0), (0, 0, 40), 58, WHITE, "base housing (M1 inside)")
    L.cylinder(1, (0, 0, 40), (0, 0, 47), 52, WHITE, "turntable")
    for y in (-25.5, 25.5):
        L.box(1, (0, y, 62), (46, 4, 40), WHITE, "shoulder bracket plate")
    L.box(1, (-10, 0, 71.5), (40.5, 38, 20), SERVO, "M2 shoulder servo (SR431)")
    for y in (-22.5, 22.5):
        L.box(2, (0, y, 134), (24, 3, 150), WHITE, "upper arm U-bracket plate")
    L.box(2, (0, 0, 110), (24, 45, 3), WHITE, "upper arm U-bracket web")
    L.box(2, (-10, 0, 196.5), (40.5, 38, 20), SERVO, "M3 elbow servo (SR431)")
    for y in (-22.5, 22.5):
        L.box(3, (0, y, 259), (24, 3, 150), WHITE, "forearm U-bracket plate")
    L.box(3, (0, 0, 235), (24, 45, 3), WHITE, "forearm U-bracket web")
    L.box(3, (-8, 0, 321.5), (31.3, 29, 16.5), SERVO, "M4 wrist pitch servo (SR311)")
    for y in (-17, 17):
        L.box(4, (0, y, 336), (20, 3, 40), WHITE, "wrist bracket plate")
    L.box(4, (0, 0, 365), (31.3, 16.5, 29), SERVO, "M5 wrist roll servo (SR311)")
    L.box(5, (0, 0, 383), (62, 30, 4), WHITE, "gripper base plate")
    L.box(5, (0, -20, 398), (31.3, 16.5, 29), SERVO, "M6 gripper servo (SR311)")
    for x, sign in ((-14, -1), (14, 1)):
        grip = L.grip(5, (x, 0, 411.5), (0, sign, 0), 28)  # opens outwards, about 28° at M6 = 10
        L.box(5, (x, 8, 444), (5, 16, 65), WHITE, "gripper finger", grip)
    return L


def puma560() -> Layout:
    """Puma 560 (m), base frame at the shoulder, 0.672 m above the floor (Corke's pedestal)."""
    L = Layout("puma560")
    grey, dark, beige = "#cfd3d6", "#4a5056", "#e3dccb"
    L.cylinder(0, (0, 0, -0.672), (0, 0, -0.652), 0.22, dark, "floor plate")
    L.cylinder(0, (0, 0, -0.652), (0, 0, -0.2), 0.12, grey, "pedestal")
    L.cylinder(1, (0, 0, -0.2), (0, 0, -0.05), 0.14, beige, "waist column")
    L.cylinder(1, (0, 0.12, 0), (0, -0.02, 0), 0.13, beige, "shoulder housing")
    L.box(2, (0.2, -0.07, 0), (0.52, 0.09, 0.13), beige, "upper arm")
    L.cylinder(2, (0, -0.025, 0), (0, -0.115, 0), 0.1, beige, "upper arm hub")
    L.cylinder(3, (0.4318, -0.105, 0), (0.4318, -0.2, 0), 0.08, beige, "elbow housing")
    L.cylinder(3, (0.4521, -0.15, -0.03), (0.4521, -0.15, 0.38), 0.055, beige, "forearm")
    L.cylinder(4, (0.4521, -0.12, 0.4318), (0.4521, -0.18, 0.4318), 0.04, grey, "wrist")
    L.sphere(5, (0.4521, -0.15, 0.4318), 0.035, dark, "wrist bend")
    L.cylinder(6, (0.4521, -0.15, 0.44), (0.4521, -0.15, 0.46), 0.03, dark, "flange")
    return L


def ur5() -> Layout:
    """UR5 CB3 (m), q = 0 stretched along −x. Housings sit at UR's published link offsets across
    the joint axes (0.136 m upper arm, −0.120 m forearm, 0.093 m wrist 1), which the DH table
    sums into d4."""
    L = Layout("ur5")
    grey, cap, dark = "#b8bcc0", "#7fa7c9", "#3c4043"
    z = 0.089159
    L.cylinder(0, (0, 0, 0), (0, 0, 0.02), 0.09, dark, "mounting flange")
    L.cylinder(0, (0, 0, 0.02), (0, 0, 0.07), 0.075, grey, "base")
    L.cylinder(1, (0, 0, 0.07), (0, 0, z + 0.06), 0.06, grey, "shoulder pan housing")
    L.cylinder(1, (0, 0.06, z), (0, -0.19, z), 0.06, grey, "shoulder lift housing")
    L.cylinder(1, (0, -0.19, z), (0, -0.2, z), 0.058, cap, "cap")
    L.cylinder(2, (0, -0.136, z), (-0.425, -0.136, z), 0.045, grey, "upper arm tube")
    L.cylinder(2, (-0.425, -0.19, z), (-0.425, -0.05, z), 0.05, grey, "elbow housing")
    L.cylinder(2, (-0.425, -0.19, z), (-0.425, -0.2, z), 0.048, cap, "cap")
    L.cylinder(3, (-0.425, -0.016, z), (-0.8172, -0.016, z), 0.035, grey, "forearm tube")
    L.cylinder(4, (-0.8172, 0.03, z), (-0.8172, -0.07, z), 0.045, grey, "wrist 1 housing")
    L.cylinder(4, (-0.8172, -0.1092, z + 0.05), (-0.8172, -0.1092, z - 0.045), 0.045, grey, "wrist 2 housing")
    L.cylinder(4, (-0.8172, -0.1092, z + 0.05), (-0.8172, -0.1092, z + 0.06), 0.043, cap, "cap")
    L.cylinder(5, (-0.8172, -0.06, -0.0055), (-0.8172, -0.165, -0.0055), 0.045, grey, "wrist 3 housing")
    L.cylinder(6, (-0.8172, -0.165, -0.0055), (-0.8172, -0.1914, -0.0055), 0.032, dark, "tool flange")
    return L


def kr6() -> Layout:
    """KUKA KR 6 R900 sixx (m), q = 0: upper arm up, forearm along +y."""
    L = Layout("kuka-kr6-r900")
    orange, black, grey = "#f28c28", "#2b2b2b", "#5f6368"
    L.box(0, (0, 0, 0.025), (0.26, 0.26, 0.05), black, "base frame")
    L.cylinder(0, (0, 0, 0.05), (0, 0, 0.2), 0.1, grey, "base")
    L.cylinder(1, (0, 0, 0.2), (0, 0, 0.33), 0.115, orange, "rotating column")
    L.box(1, (0, 0.02, 0.36), (0.16, 0.16, 0.1), orange, "shoulder block")
    L.cylinder(1, (-0.1, 0.025, 0.4), (0.09, 0.025, 0.4), 0.085, orange, "A2 housing")
    L.cylinder(1, (-0.1, 0.025, 0.4), (-0.13, 0.025, 0.4), 0.06, black, "A2 motor")
    L.box(2, (0.1, 0.025, 0.6275), (0.06, 0.12, 0.5), orange, "link arm")
    L.cylinder(2, (0.13, 0.025, 0.855), (-0.05, 0.025, 0.855), 0.07, orange, "A3 housing")
    L.box(3, (0, 0.06, 0.87), (0.12, 0.17, 0.12), orange, "arm housing")
    L.cylinder(3, (0, -0.02, 0.89), (0, -0.11, 0.89), 0.045, black, "A4 motor")
    L.cylinder(4, (0, 0.14, 0.89), (0, 0.43, 0.89), 0.05, orange, "arm")
    L.cylinder(5, (-0.055, 0.445, 0.89), (0.055, 0.445, 0.89), 0.045, orange, "in-line wrist")
    L.cylinder(6, (0, 0.49, 0.89), (0, 0.5615, 0.89), 0.032, grey, "mounting flange")
    return L


def panda() -> Layout:
    """Franka Emika Panda (m), q = 0 upright: white links, black joint rings."""
    L = Layout("panda")
    white, black = "#f4f4f4", "#2d2d2d"
    L.cylinder(0, (0, 0, 0), (0, 0, 0.1), 0.09, white, "base")
    L.box(0, (-0.09, 0, 0.05), (0.12, 0.16, 0.1), white, "base connector block")
    L.cylinder(1, (0, 0, 0.1), (0, 0, 0.28), 0.065, white, "link 1")
    L.cylinder(1, (0, 0, 0.1), (0, 0, 0.12), 0.067, black, "joint 1 ring")
    L.cylinder(1, (0, 0.065, 0.333), (0, -0.065, 0.333), 0.065, white, "joint 2 housing")
    L.cylinder(2, (0, 0, 0.333), (0, 0, 0.5), 0.062, white, "link 2")
    L.cylinder(3, (0, 0, 0.5), (0, 0, 0.6), 0.06, white, "link 3")
    L.box(3, (0.04, 0, 0.62), (0.12, 0.11, 0.08), white, "link 3 elbow")
    L.cylinder(3, (0.0825, 0.06, 0.649), (0.0825, -0.06, 0.649), 0.058, black, "joint 4 housing")
    L.box(4, (0.04, 0, 0.69), (0.12, 0.11, 0.08), white, "link 4 elbow")
    L.cylinder(5, (0, 0, 0.72), (0, 0, 0.99), 0.057, white, "link 5")
    L.cylinder(6, (0, 0.058, 1.033), (0, -0.058, 1.033), 0.056, white, "joint 6 housing")
    L.box(6, (0.045, 0, 1.033), (0.09, 0.1, 0.1), white, "link 6")
    L.cylinder(7, (0.088, 0, 1.06), (0.088, 0, 0.96), 0.05, black, "joint 7")
    L.cylinder(7, (0.088, 0, 0.96), (0.088, 0, 0.926), 0.04, white, "flange")
    return L


def arm_4dof() -> Layout:
    """Paper 001's four-joint arm (mm), q = 0 stretched along +x: shoulder 70 above the base,
    links of 82, 128 and 60 mm."""
    L = Layout("arm-4dof")
    blue, dark, grey = "#1e88e5", "#37474f", "#b0bec5"
    L.cylinder(0, (0, 0, 0), (0, 0, 12), 45, dark, "base plate")
    L.cylinder(1, (0, 0, 12), (0, 0, 52), 28, grey, "turning column")
    L.box(1, (0, 0, 60), (40, 44, 16), grey, "shoulder fork")
    L.cylinder(1, (0, 24, 70), (0, -24, 70), 16, dark, "shoulder motor")
    L.box(2, (41, 0, 70), (82, 22, 16), blue, "upper arm")
    L.cylinder(2, (82, 17, 70), (82, -17, 70), 13, dark, "elbow motor")
    L.box(3, (146, 0, 70), (128, 18, 14), blue, "forearm")
    L.cylinder(3, (210, 14, 70), (210, -14, 70), 11, dark, "wrist motor")
    L.box(4, (228, 0, 70), (36, 16, 12), grey, "gripper body")
    for y in (-6, 6):
        L.box(4, (258, y, 70), (24, 3, 10), dark, "gripper finger")
    return L


def arm_5dof() -> Layout:
    """Paper 002's five-joint arm (m), q = 0 stretched along +x with the last link up: each link
    the solid cylinder of its Table 2 (height, radius) where the file's inertials put it, so the
    drawing and the mass model agree."""
    L = Layout("arm-5dof")
    colors = ("#90a4ae", "#ef6c00", "#ef6c00", "#546e7a", "#fbc02d")
    L.cylinder(0, (0, 0, -0.012), (0, 0, 0), 0.08, "#37474f", "base plate")
    for k, (inertial, color) in enumerate(zip(L.robot.inertials, colors, strict=True), start=1):
        radius, height, axis = _solid(inertial.shape)
        F = L.frames[k]
        centre = (F @ [*inertial.com, 1.0])[:3]
        half = F[:3, "xyz".index(axis)] * height / 2
        L.cylinder(k, centre - half, centre + half, radius, color, f"link {k} (Table 2)")
    return L


def _solid(shape: str | None) -> tuple[float, float, str]:
    """(radius, height, axis) of an inertial computed from a solid cylinder ("cylinder r=… h=…
    axis=…", as `Inertial.cylinder` names it)."""
    if not shape or not shape.startswith("cylinder "):
        raise SystemExit(f"expected a link computed from a solid cylinder, got {shape!r}")
    fields = dict(part.split("=") for part in shape.split()[1:])
    return float(fields["r"]), float(fields["h"]), fields["axis"]


def arm_5dof_geo() -> Layout:
    """Paper 003's five-joint arm (mm), q = 0 stretched along +x: shoulder 3 above the base,
    links of 50 and 25 mm, a 5 mm gripper link rolling about its approach axis."""
    L = Layout("arm-5dof-geo")
    green, dark, grey = "#43a047", "#37474f", "#cfd8dc"
    L.cylinder(0, (0, 0, 0), (0, 0, 1.5), 12, dark, "base plate")
    L.cylinder(1, (0, 0, 1.5), (0, 0, 3), 9, grey, "turntable")
    L.cylinder(1, (0, 6, 3), (0, -6, 3), 4, dark, "shoulder servo")
    L.box(2, (25, 0, 3), (50, 6, 5), green, "upper arm")
    L.cylinder(2, (50, 5, 3), (50, -5, 3), 3.5, dark, "elbow servo")
    L.box(3, (62.5, 0, 3), (25, 5, 4), green, "forearm")
    L.cylinder(3, (75, 4, 3), (75, -4, 3), 3, dark, "wrist pitch servo")
    L.cylinder(4, (75, 0, 3), (77, 0, 3), 3.2, grey, "wrist roll")
    L.box(5, (78, 0, 3), (2, 6, 3), dark, "gripper palm")
    for y in (-2.2, 2.2):
        L.box(5, (80, y, 3), (4, 0.8, 2.5), grey, "gripper finger")
    return L


def planar_3r() -> Layout:
    """Paper 000's planar three-link section (mm), q = 0 along +x in the XY plane: three 20 mm
    links turning about z, each a bar between two joint bosses."""
    L = Layout("planar-3r")
    bar, dark = "#64b5f6", "#455a64"
    L.cylinder(0, (0, 0, -4), (0, 0, -2), 8, dark, "base disc")
    for k, x in enumerate((0, 20, 40), start=1):
        L.cylinder(k, (x, 0, -2), (x, 0, 2), 4, dark, f"joint {k} boss")
        L.box(k, (x + 10, 0, 0), (20, 5, 3), bar, f"link {k}")
    L.sphere(3, (60, 0, 0), 2.5, dark, "tool tip")
    return L


BUILDERS = {"braccio": braccio, "puma560": puma560, "ur5": ur5, "kuka-kr6-r900": kr6, "panda": panda,
            "arm-4dof": arm_4dof, "arm-5dof": arm_5dof, "arm-5dof-geo": arm_5dof_geo, "planar-3r": planar_3r}
SOURCES = {
    "braccio": "Primitives written by scripts/robot_visuals.py: the published link lengths of this file; "
               "bracket plates, turntable and base housing sized from photographs of the Tinkerkit Braccio "
               "(estimates, +-5 mm); servo bodies at the SR431 (40.5 x 20 x 38 mm) and SR311 (31.3 x 16.5 x 29 mm) "
               "datasheet sizes. The fingers turn about their pivots with M6 (open at 10, closed at 73).",
    "puma560": "Primitives written by scripts/robot_visuals.py: link lengths of this file; pedestal to the "
               "floor 0.672 m below the shoulder (Corke's Robotics Toolbox for Python), waist, arm and wrist "
               "cross-sections estimated from photographs of the Unimation Puma 560.",
    "ur5": "Primitives written by scripts/robot_visuals.py: UR's DH lengths and link offsets across the "
           "joints (0.136, -0.120, 0.093 m); housing and tube diameters estimated from the UR5 (CB3) "
           "datasheet drawing. No UR mesh is bundled (not permissively licensed in a registry package).",
    "kuka-kr6-r900": "Primitives written by scripts/robot_visuals.py: the geometry vectors of this file; "
                     "base 0.26 m square and housings estimated from KUKA's KR AGILUS sixx dimension drawing.",
    "panda": "Primitives written by scripts/robot_visuals.py: the modified DH lengths of this file; link "
             "diameters estimated from Franka Emika's Panda datasheet drawing. Franka's own meshes "
             "(franka_description) are not bundled; load its URDF with the meshes for the real look.",
    "arm-4dof": "Primitives written by scripts/robot_visuals.py: the DH lengths of this file (paper 001, Fig. 2: "
                "70, 82, 128, 60 mm); the paper shows no drawing with sizes, so the cross-sections, motors and "
                "gripper are estimates for a desktop arm of this reach.",
    "arm-5dof": "Primitives written by scripts/robot_visuals.py: each link the solid cylinder of paper 002's "
                "Table 2 (heights 0.071, 0.295, 0.205, 0.091, 0.08 m; radii 0.06, 0.035, 0.035, 0.035, 0.05 m) "
                "placed where this file's inertials put it; the 12 mm base plate is an estimate.",
    "arm-5dof-geo": "Primitives written by scripts/robot_visuals.py: paper 003's Table 1 (base 3, links 50 and "
                    "25, gripper 5 mm); the paper gives no cross-sections, so the bars, servos and fingers are "
                    "estimates for a hobby arm of this size.",
    "planar-3r": "Primitives written by scripts/robot_visuals.py: paper 000's three 20 mm links in the XY "
                 "plane; bar widths and joint bosses are estimates (the paper draws lines).",
}


def block(name: str) -> str:
    layout = BUILDERS[name]()
    return dump({"visuals": {"source": SOURCES[name], "shapes": layout.shapes}})


def write(name: str) -> Path:
    path = FOLDER / f"{name}.yaml"
    text = path.read_text(encoding="utf-8")
    head = text.split("\nvisuals:")[0].rstrip("\n") + "\n"
    path.write_text(head + block(name), encoding="utf-8")
    km.load(name)  # still a valid robot file
    return path


if __name__ == "__main__":
    for name in sys.argv[1:] or BUILDERS:
        print("wrote", write(name))
