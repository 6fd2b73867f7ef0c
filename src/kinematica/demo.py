"""The papers' worked examples, recomputed with the public API (`kinematica demo` prints them).

`EXAMPLES` is the list the CLI walks: one `Example` per worked example, each naming its paper,
robot and a function that computes its `Check` rows — what the paper printed beside what we
compute, and a note where ../shared/papers/DIGEST.md lists an erratum. New examples (IK, dynamics,
trajectories) are added by appending an `Example` to `EXAMPLES`; nothing else needs to change.

>>> [c.computed for c in run(EXAMPLES[0])][:1]
['(30.7935, 47.0167)']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import kinematica as km

from .kinematics import select_rows
from .textfmt import compact, vector

__all__ = ["Check", "Example", "run", "EXAMPLES"]


@dataclass(frozen=True)
class Check:
    """One row of a worked example.

    quantity: what is compared; paper: what the paper printed (text, as printed);
    computed: what we compute, formatted; value: the same as plain JSON-able data;
    note: context, and every erratum the digest lists for this quantity ("erratum: …").
    """

    quantity: str
    paper: str
    computed: str
    value: Any
    note: str = ""


@dataclass(frozen=True)
class Example:
    """A worked example: its paper ("000"…"004"), a title, the bundled robot it uses, and the
    function that computes its rows."""

    paper: str
    title: str
    robot: str
    compute: Callable[[], list[Check]]


def run(example: Example) -> list[Check]:
    """The rows of one example."""
    return example.compute()


def _pos(T: np.ndarray) -> list[float]:
    return [float(v) + 0.0 for v in T[:3, 3]]


# --- paper 000: planar 3R section of the Braccio ------------------------------------------
def _paper000_fk() -> list[Check]:
    robot = km.load("planar-3r")
    th0 = np.radians([30.0, 30.0, 20.0])
    p0 = km.fk(robot, th0)[:2, 3]
    p1 = km.fk(robot, np.radians([38.5, 68.8, 62.8]))[:2, 3]
    target = np.array([-10.0, 35.0])
    e0 = target - p0
    reach = float(sum(r["L"] for r in robot.parameter_table.as_dicts()))
    dist = float(np.linalg.norm(target))
    verdict = "reachable" if dist <= reach else "out of reach"
    L = [r["L"] for r in robot.parameter_table.as_dicts()]
    dJ = np.abs(km.planar_jacobian(L, th0) - km.jacobian(robot, th0)[:2]).max()
    return [
        Check("FK of θ0 = (30°, 30°, 20°): start point (x, y), mm", "(30.79, 47.02)",
              vector(p0), p0.tolist(),
              "the paper prints the start point but not θ0; (30°, 30°, 20°) is the natural start "
              "that reproduces it (digest §1.5)"),
        Check("initial error e0 = target − start, ‖e0‖", "(−40.79, −12.02), ‖e‖ ≈ 42.53",
              f"{vector(e0, 2)}, ‖e0‖ = {np.linalg.norm(e0):.2f}",
              {"e0": e0.tolist(), "norm": float(np.linalg.norm(e0))}),
        Check("reach check of the target (−10, 35)", "|p| ≈ 36.40 < R_max = 60: reachable",
              f"|p| = {dist:.2f} ≤ L1 + L2 + L3 = {reach:.0f}: {verdict}",
              {"distance": dist, "reach": reach, "reachable": dist <= reach}),
        Check("FK of θ = (38.5°, 68.8°, 62.8°) (Fig. 3): (x, y), mm", "target (−10, 35)",
              vector(p1, 3), p1.tolist(),
              "erratum: the result is printed as \"Δθ = [39, 69, 63]ᵀ\"; it is θ, not Δθ. "
              "θ3 = 62.8° (converged 62.749°) fits stopping at ‖e‖ < 0.1"),
        Check("analytic planar Jacobian (eqs. 9–10) vs geometric rows (vx, vy) at θ0",
              "formulas only", f"max |Δ| = {dJ:.1e}", float(dJ)),
    ]


# --- paper 001: 4-DOF arm, DH table of Fig. 2 ----------------------------------------------
def _paper001_fk() -> list[Check]:
    robot = km.load("arm-4dof")
    q = np.zeros(robot.n)
    J = select_rows(km.jacobian(robot, q), "position")
    s = km.singularity(robot, q, rows="position")
    return [
        Check("tool position at q = 0, mm", "— (results only as screenshots)",
              vector(km.fk(robot, q)[:3, 3], 3), _pos(km.fk(robot, q))),
        Check("rank of the 3×4 position Jacobian", "rank J < 3 ⇒ singular (criterion)",
              str(int(km.rank(J))), int(km.rank(J))),
        Check("det(J Jᵀ), mm⁶", "→ 0 near a singularity (criterion)",
              f"{float(km.det_jjt(J)):.3g}", float(km.det_jjt(J))),
        Check("singularity verdict", "—", s.message,
              {"singular": s.singular, "near": s.near, "kind": s.kind, "message": s.message},
              "erratum: the paper's start pose q = 0 (fully stretched) is itself singular: "
              "rank J = 2, det(J Jᵀ) = 0 (digest §7)"),
    ]


# --- paper 002: 5-DOF arm of Thu Rain, DH Table 1 ------------------------------------------
def _rain_closed_forms(q: np.ndarray, d1: float, a2: float, a3: float, d5: float) -> np.ndarray:
    """The digest's corrected closed forms (α4 = −π/2): the 4x4 pose [n o a p]."""
    c1, s1 = np.cos(q[0]), np.sin(q[0])
    c5, s5 = np.cos(q[4]), np.sin(q[4])
    c234, s234 = np.cos(q[1] + q[2] + q[3]), np.sin(q[1] + q[2] + q[3])
    r = a2 * np.cos(q[1]) + a3 * np.cos(q[1] + q[2]) - d5 * s234
    T = np.eye(4)
    T[:3, 0] = (c1 * c5 * c234 - s1 * s5, s1 * c5 * c234 + c1 * s5, c5 * s234)
    T[:3, 1] = (-s1 * c5 - c1 * s5 * c234, c1 * c5 - s1 * s5 * c234, -s5 * s234)
    T[:3, 2] = (-c1 * s234, -s1 * s234, c234)
    T[:3, 3] = (c1 * r, s1 * r, d1 + a2 * np.sin(q[1]) + a3 * np.sin(q[1] + q[2]) + d5 * c234)
    return T


def _paper002_fk() -> list[Check]:
    robot = km.load("arm-5dof")
    T = km.fk(robot, np.zeros(robot.n))
    nos = {k: T[:3, i].tolist() for i, k in enumerate("noa")}
    rows = {r["name"]: r for r in robot.parameter_table.as_dicts()}
    q = np.radians([10.0, 20.0, 30.0, 40.0, 50.0])
    closed = _rain_closed_forms(q, rows["q1"]["d"], rows["q2"]["a"], rows["q3"]["a"], rows["q5"]["d"])
    diff = float(np.abs(closed - km.fk(robot, q)).max())
    return [
        Check("tool position p at q = 0, m", "— (no numbers; d1 left as a symbol)",
              vector(T[:3, 3], 3), _pos(T),
              "d1 = 0.071 m is assumed (height of link 1 in Table 2); the paper gives no value"),
        Check("orientation n, o, a at q = 0", "— (closed forms only)",
              "n = " + vector(T[:3, 0], 0) + ", o = " + vector(T[:3, 1], 0) + ", a = " + vector(T[:3, 2], 0),
              nos),
        Check("corrected closed forms vs FK at q = (10, 20, 30, 40, 50)°",
              "closed forms for n, o, a, p", f"max |Δ| = {diff:.1e}", diff,
              "erratum: the printed forms hold for α4 = +π/2 (Table 1: −π/2); n_z should be "
              "c5·s234 and o_x lacks the factor s5; the generic DH matrix's last column must be "
              "a·cθ, a·sθ (digest §3.3)"),
    ]


# --- paper 003: geometric 5-DOF arm, Tables 1 and 2 ----------------------------------------
def _paper003_fk() -> list[Check]:
    robot = km.load("arm-5dof-geo")

    def pose(deg: list[float]) -> tuple[str, dict]:
        T = km.fk(robot, np.radians(deg))
        a = T[:3, 2]
        pitch = float(np.degrees(np.arctan2(a[2], np.hypot(a[0], a[1]))))
        return (f"{vector(T[:3, 3], 2)}, pitch {pitch:.2f}°",
                {"q_deg": deg, "position": _pos(T), "pitch_deg": pitch})

    rows = []
    for quantity, paper, q, note in [
        ("FK of solution 1 (elbow-down), corrected θ4", "target (59.98, 21.83, 42.33), φ = 45°",
         [20, 16.30, 44.22, -15.52, 0], "θ from the digest's corrected output (§4.5)"),
        ("FK of solution 2 (elbow-up), corrected θ4", "target (59.98, 21.83, 42.33), φ = 45°",
         [20, 45.10, -44.22, 44.13, 0], "θ from the digest's corrected output (§4.5)"),
        ("FK of solution 1 as printed (20°, 16.29°, 44.22°, −105.51°)", "a solution for the target",
         [20, 16.29, 44.22, -105.51, 0],
         "erratum: the printed θ4 is −φ − (θ2 + θ3), against the paper's own θ4 = φ − (θ2 + θ3): "
         "z = 35.25, not 42.33"),
        ("FK of the \"given angles\" (20°, 45°, −30°, 45°)", "they produce the target",
         [20, 45, -30, 45, 0],
         "erratum: they reproduce the target only with a last-link pitch of −30° "
         "(θ4 = −45° in this model), not φ = 45°"),
    ]:
        text, value = pose(q)
        rows.append(Check(quantity, paper, text, value, note))
    return rows


# --- paper 004: KUKA KR 6 R900 in link frames -----------------------------------------------
def _paper004_fk() -> list[Check]:
    robot = km.load("kuka-kr6-r900")
    home = np.zeros(robot.n)
    F = km.fk_frames(robot, home)
    s = km.singularity(robot, home)
    end = np.array([-np.pi / 2, 0, 0, 0, -np.pi / 2, 0])
    printed = np.array([-1.567, 0, 0, 0, -1.571, 0])
    q = np.array([0.1, -0.4, 0.3, 0.2, 0.5, -0.1])
    dJ = float(np.abs(km.jacobian_derivative(robot, q) - km.jacobian(robot, q)).max())
    return [
        Check("tool position at home q = 0, m", "(0, 0.5615, 0.89)", vector(F[-1, :3, 3]),
              _pos(F[-1]), "erratum: the printed Y-sum omits the 0.025 term; 0,25 and 0,35 "
              "should read 0.025 and 0.035 (digest §7)"),
        Check("A06 at home (frame 6, before the tool G6)", "R = [[0,1,0],[0,0,1],[1,0,0]], "
              "p = (0, 0.5115, 0.89)", f"R = {compact(F[-2, :3, :3] + 0.0)}, p = {vector(F[-2, :3, 3])}",
              {"R": F[-2, :3, :3].tolist(), "p": _pos(F[-2])}),
        Check("singularity verdict at home", "Euler angles ambiguous at r33 = ±1", s.message,
              {"singular": s.singular, "near": s.near, "kind": s.kind, "message": s.message},
              "home (q5 = 0) is exactly the wrist singularity of the ZYZ wrist (digest §5.3)"),
        Check("tool position at q1 = q5 = −π/2, m", "(0.445, 0, 0.7735)",
              vector(km.fk(robot, end)[:3, 3]), _pos(km.fk(robot, end))),
        Check("tool position at the printed q1 = −1.567, q5 = −1.571", "(0.445, 0, 0.7735)",
              vector(km.fk(robot, printed)[:3, 3]), _pos(km.fk(robot, printed)),
              "erratum: the text turns q1 by +90° but prints −1.567; the end pose needs "
              "q1 = −π/2 = −1.5708 (y = 0.0017 otherwise)"),
        Check("derivative-matrix Jacobian (eqs. 12–13) vs geometric, sample q", "formulas only",
              f"max |Δ| = {dJ:.1e}", dJ),
    ]


# --- inverse kinematics ----------------------------------------------------------------------
def _deg(q: np.ndarray, decimals: int = 3) -> str:
    return vector(np.degrees(q), decimals) + "°"


def _ik_value(robot: km.Robot, r: km.IKResult) -> dict[str, Any]:
    """An IK result as plain data for the demo's JSON."""
    return {"success": bool(r.success), "reason": str(r.reason), "q": r.q.tolist(),
            "q_deg": np.degrees(r.q).tolist(), "iterations": int(r.iterations),
            "position_error": float(r.position_error),
            "orientation_error": float(r.orientation_error),
            "within_limits": bool(r.within_limits), "branch": r.branch, "method": r.method}


def _paper000_ik() -> list[Check]:
    robot = km.load("planar-3r")
    th0 = np.radians([30.0, 30.0, 20.0])
    tight = km.ik(robot, [-10, 35], th0, tol_position=1e-9)
    loose = km.ik(robot, [-10, 35], th0)
    far = km.ik(robot, [50, 50], th0)
    start = np.radians([80.0, -50.0, 30.0])
    stuck = km.ik(robot, [-10, 35], start, restarts=0)
    rescued = km.ik(robot, [-10, 35], start)
    return [
        Check("LM from θ0 = (30°, 30°, 20°) to (−10, 35), tolerance 1e-9 mm",
              "θ = (39, 69, 63)° (printed as \"Δθ\"), ‖e‖ < 0.1; Fig. 3: (38.5°, 68.8°, 62.8°)",
              f"{_deg(tight.q)}, {tight.iterations} iterations, ‖e‖ = {tight.position_error:.1e} mm",
              _ik_value(robot, tight),
              "digest §1.5: (38.509°, 68.800°, 62.749°) in 6 iterations, for λ0 from 1e-3 to 10; "
              "erratum: the paper prints θ as \"Δθ\""),
        Check("the same at the default tolerance 1e-3 mm", "—",
              f"{_deg(loose.q)}, {loose.iterations} iterations, ‖e‖ = {loose.position_error:.1e} mm",
              _ik_value(robot, loose)),
        Check("a point beyond the reach: (50, 50)", "√(x² + y²) > R_max = 60 ⇒ refused",
              f"success {far.success}: {far.reason}, {far.iterations} iterations",
              _ik_value(robot, far), "refused by the reach check before any iteration"),
        Check("LM from (80°, −50°, 30°) without restarts", "—",
              f"success {stuck.success}: {stuck.reason}", _ik_value(robot, stuck),
              "digest §1.5: this start stalls against the limits. With the default random restarts "
              f"inside the limits km.ik solves it: {_deg(rescued.q, 2)} "
              f"({rescued.iterations} iterations in all), another branch of the redundant arm"),
    ]


def _paper001_ik() -> list[Check]:
    robot = km.load("arm-4dof")
    q0 = np.zeros(robot.n)

    def det(q: np.ndarray) -> float:
        return float(km.det_jjt(select_rows(km.jacobian(robot, q), "position")))

    rows = []
    first: dict[str, km.IKResult] = {}
    methods: tuple[tuple[str, str, dict[str, Any]], ...] = (  # the options: km.ik's **options
        ("transpose", "Jacobian transpose, adaptive step", {}),
        ("dls", "damped least squares, λ = 10 mm", {"damping": 10.0}))
    for method, label, opts in methods:
        for y in (100.0, -100.0):
            r = km.ik(robot, [150.0, y, 0.0], q0, method=method, **opts)
            first.setdefault(method, r)
            note = ""
            if y < 0:  # the program's flow: the second target starts from the first solution
                chained = km.ik(robot, [150.0, y, 0.0], first[method].q, method=method, **opts)
                note = (f"from the first target's solution instead of q = 0 (the program's start → "
                        f"next flow): {chained.iterations} iterations to {_deg(chained.q, 2)}; the "
                        f"digest's \"{'54 and 57' if method == 'transpose' else '11 and 7'}\" "
                        "iterations count that way")
            elif method == "transpose":
                fixed = km.ik(robot, [150.0, y, 0.0], q0, method=method, step=1e-5, max_iter=1000)
                note = (f"from the stretched start q = 0, itself singular (rank 2); Buss's adaptive "
                        f"step; fixed α = 1e-5 rad/mm²: {fixed.iterations} iterations. The paper "
                        "gives neither step nor tolerance (here 1e-3 mm)")
            rows.append(Check(
                f"{label} to (150, {y:+.0f}, 0)", "— (screenshots only)",
                f"{_deg(r.q, 2)}, {r.iterations} iterations, det(J Jᵀ) = {det(r.q):.4g} mm⁶",
                {**_ik_value(robot, r), "det_JJT": det(r.q)}, note))
    return rows


def _paper003_ik() -> list[Check]:
    robot = km.load("arm-5dof-geo")
    target = km.targets.approach([59.98, 21.83, 42.33], pitch=np.radians(45.0))
    rows = []
    for name, printed, note in [
            ("solution 1", [20, 16.29, 44.22, -105.51, 0],
             "erratum: the printed θ4 is −φ − (θ2 + θ3), against the paper's own θ4 = φ − (θ2 + θ3); "
             "corrected (20.00, 16.30, 44.22, −15.52)° (digest §4.5)"),
            ("solution 2", [20, 45.09, -44.22, -45.87, 0],
             "erratum: printed θ4 as for solution 1; corrected (20.00, 45.10, −44.22, 44.13)°")]:
        r = km.ik(robot, target, np.radians(printed), method="analytic")
        rows.append(Check(
            f"closed form (method=\"analytic\"), the branch nearest the printed {name}",
            "(" + ", ".join(f"{v:g}°" for v in printed[:4]) + ")",
            f"{_deg(r.q[:4], 2)} [{r.branch}], FK error {r.position_error:.1e} mm",
            _ik_value(robot, r), note))
    sols = km.ik_all(robot, target)
    rows.append(Check(
        "every closed-form solution (km.ik_all)", "two (elbow down, elbow up)",
        f"{len(sols)} solutions (θ1…θ4), nearest to home first:\n" + _listing(
            [(s.branch, _deg(s.q[:4], 2)) for s in sols]),
        [_ik_value(robot, s) for s in sols],
        "the two \"back-flip\" solutions turn the base by 180° and lean over backwards"))
    return rows


def _listing(rows: list[tuple[str, str]]) -> str:
    """Lines "label  value" with the values aligned."""
    w = max(len(label) for label, _ in rows)
    return "\n".join(f"{label.ljust(w)}  {value}" for label, value in rows)


def _straight_line(robot: km.Robot, q_start: np.ndarray, q_end: np.ndarray, steps: int):
    """Newton along the straight line (position linear, orientation by the shortest rotation)
    from FK(q_start) to FK(q_end), each point seeded by the last (paper 004's test)."""
    T0, T1 = km.fk(robot, q_start), km.fk(robot, q_end)
    w = km.spatial.rotation_log(T1[:3, :3] @ T0[:3, :3].T)
    q, iterations = q_start.copy(), []
    for s in np.linspace(0, 1, steps + 1)[1:]:
        theta = float(np.linalg.norm(w))
        axis = w / theta if theta > 0 else np.array([0.0, 0.0, 1.0])
        R = _axis_angle(axis, s * theta) @ T0[:3, :3]
        T = km.spatial.homogeneous(R, (1 - s) * T0[:3, 3] + s * T1[:3, 3])
        r = km.ik(robot, T, q, method="newton", restarts=0, tol_position=1e-12,
                  tol_orientation=1e-12)
        q = r.q
        iterations.append(int(r.iterations))
    return q, iterations


def _axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    K = km.spatial.skew(axis)
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def _paper004_ik() -> list[Check]:
    robot = km.load("kuka-kr6-r900")
    end = np.array([-np.pi / 2, 0, 0, 0, -np.pi / 2, 0])
    T_end = km.fk(robot, end)
    home = np.zeros(robot.n)
    q_line, its = _straight_line(robot, home, end, 50)
    newton = km.ik(robot, T_end, home, method="newton")
    exact = km.ik(robot, T_end, home, method="analytic")
    sols = km.ik_all(robot, T_end, home)
    printed = np.array([-1.567, 0.053, -0.054, 0.002, -1.513, -0.034])
    T_p = km.fk(robot, printed)
    dp = float(np.linalg.norm(T_p[:3, 3] - T_end[:3, 3]))
    dr = float(np.linalg.norm(km.spatial.rotation_log(T_end[:3, :3] @ T_p[:3, :3].T)))
    inside = sum(bool(s.within_limits) for s in sols)
    listing = _listing([(s.branch, vector(s.q, 4) + ("" if s.within_limits else "  outside the limits"))
                        for s in sols])
    return [
        Check("Newton along the straight line home → end pose, 50 intervals, rad",
              "t = 50: (−1.567, 0.053, −0.054, 0.002, −1.513, −0.034)",
              f"{vector(q_line, 4)}, max |q − (−π/2, 0, 0, 0, −π/2, 0)| = "
              f"{np.abs(q_line - end).max():.1e}, {min(its)}–{max(its)} iterations per point",
              {"q": q_line.tolist(), "iterations": its, "max_deviation": float(np.abs(q_line - end).max())},
              "each point solved to 1e-12 from the previous one (digest §5.5: within 2.6e-14 rad)"),
        Check("the paper's own final joints (t = 50)", "reach the end pose (0.445, 0, 0.7735)",
              f"tool {dp * 1000:.1f} mm and {np.degrees(dr):.1f}° from the end pose",
              {"position_error": dp, "orientation_error": dr},
              "erratum: the final joints drift by up to 0.058 rad, as open-loop integration "
              "q += J⁻¹ Δr without error feedback does (digest §5.5, §7)"),
        Check("Newton in one solve from home q = 0 (a wrist singularity), rad", "—",
              f"{vector(newton.q, 4)}, {newton.iterations} iterations", _ik_value(robot, newton),
              "the same end pose by the wrist-flipped twin: A4 = A6 = ±π, A5 = +π/2"),
        Check("closed form (method=\"analytic\"), the branch nearest home, rad",
              "q1 = −1.567 (erratum), q5 = −1.571, others 0",
              f"{vector(exact.q, 4)} [{exact.branch}]", _ik_value(robot, exact),
              "q1 must be −π/2 = −1.5708: −1.567 leaves the tool at y = 0.0017 (digest §5.5)"),
        Check("every closed-form solution of the end pose (km.ik_all), rad", "— (one solution)",
              f"{len(sols)} solutions, {inside} within the KR 6 R900 limits, nearest to home first:\n"
              + listing, [_ik_value(robot, s) for s in sols],
              "the paper reports one configuration; the arm has eight for this pose, four of "
              "them inside the real KR 6 R900 limits"),
    ]


EXAMPLES: list[Example] = [
    Example("000", "Planar 3R (Braccio section): forward kinematics and reach check",
            "planar-3r", _paper000_fk),
    Example("001", "4-DOF arm: stretched start pose, Jacobian rank and det(J Jᵀ)",
            "arm-4dof", _paper001_fk),
    Example("002", "5-DOF arm (Thu Rain): home pose and closed forms", "arm-5dof", _paper002_fk),
    Example("003", "Geometric 5-DOF arm: the Table 2 solutions by forward kinematics",
            "arm-5dof-geo", _paper003_fk),
    Example("004", "KUKA KR 6 R900: home and end poses of the straight-line test",
            "kuka-kr6-r900", _paper004_fk),
    Example("000", "Planar 3R: Levenberg–Marquardt IK to (−10, 35), the reach check, a stall",
            "planar-3r", _paper000_ik),
    Example("001", "4-DOF arm: Jacobian-transpose and DLS IK to (150, ±100, 0)", "arm-4dof",
            _paper001_ik),
    Example("003", "Geometric 5-DOF arm: both elbow solutions in closed form", "arm-5dof-geo",
            _paper003_ik),
    Example("004", "KUKA KR 6 R900: IK of the end pose — Newton, closed form, all 8 branches",
            "kuka-kr6-r900", _paper004_ik),
]
