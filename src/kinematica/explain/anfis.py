"""A learned IK model's answer to one target, layer by layer (paper 002's ANFIS), as the Math tab
explains LM step by step: the inputs and their scaling, then for each learned joint the
membership degrees μ, the firing strengths w_r = Π_i μ, the normalised weights w̄_r, the rule
outputs f_r = p_r · x̃ + r_r and the sum Σ w̄_r f_r — and the answer judged afresh by FK.

The numbers come from the network's own forward pass (`learn.explain.explain_answer`); the
firing strengths are multiplied out here from the membership degrees shown, and the sum is
checked against the network's output, so the page cannot show a step the model did not take.

>>> import kinematica as km
>>> from kinematica.learn import train_ik
>>> m = train_ik("planar-3r", samples=600, rules=8, epochs=2, warm_start=0)
>>> doc = explain_anfis(m.robot, m, km.targets.planar([10, 45], 1.7))
>>> [s.title for s in doc.sections][:3]
['The model', 'Layer 0: the inputs, scaled', 'Joint θ1']
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError
from ..ik.frame import fit_target
from ..ik.residual import errors
from ..ik.target import as_target
from ..kinematics.fk import fk
from ..model.robot import Robot
from .common import (
    joint_math,
    joint_value,
    joints_quantity,
    joints_text,
    use_degrees,
    vector,
)
from .document import Document, Math, Table, number_latex, number_text

TOP = 6  # rules listed in full per joint (the strongest): the rest are summed in one line
LAYERS = [
    Math(r"\mu_{i m}(\tilde x_i) = \exp\!\left(-\frac{(\tilde x_i - c_{i m})^2}{2 \sigma_{i m}^2}\right)",
         "μ_im(x̃_i) = exp(−(x̃_i − c_im)² / (2 σ_im²))"),
    Math(r"w_r = \prod_i \mu_{i,\,m(r,i)}(\tilde x_i)", "w_r = Π_i μ_i,m(r,i)(x̃_i)"),
    Math(r"\bar w_r = \frac{w_r}{\sum_s w_s}", "w̄_r = w_r / Σ_s w_s"),
    Math(r"f_r = p_r \cdot \tilde x + r_r", "f_r = p_r · x̃ + r_r"),
    Math(r"y = \sum_r \bar w_r f_r", "y = Σ_r w̄_r f_r"),
]
BELL = Math(r"\mu_{i m}(\tilde x_i) = \frac{1}{1 + \left|(\tilde x_i - c_{i m}) / \sigma_{i m}\right|^{2b}},\ b = 2",
            "μ_im(x̃_i) = 1 / (1 + |(x̃_i − c_im)/σ_im|^(2b)), b = 2")


def explain_anfis(robot: Robot, model: Any, target, *, top: int = TOP, deg: bool | None = None) -> Document:
    """The layers of `model`'s answer to one `target` (see the module docstring); `top` strongest
    rules in full per joint."""
    from ..learn.closed import network_joints
    from ..learn.explain import explain_answer
    from ..learn.model import check_robot

    check_robot(model, robot)
    t = as_target(target)
    if t.shape != ():
        raise InputError(f"explain_anfis explains one target, got a batch of shape {t.shape}")
    deg = use_degrees(robot, True if deg is None else deg)
    e = explain_answer(model, t, top=model.net.n_rules)
    r = model.report
    doc = Document(f"The ANFIS model's answer for {robot.name}",
                   f"A learned inverse of one branch ({model.branch.spec}) of {robot.name}: {model.net.n_rules} fuzzy "
                   f"rules map the target's {len(e['inputs'])} inputs to each joint value through five layers. "
                   "Its answer is approximate; FK judges it at the end.")
    _model(doc, model, r)
    _inputs(doc, model, e)
    learned = network_joints(robot, model.branch)  # the wrist: closed form
    for k, (j, joint) in enumerate(zip(learned, e["joints"], strict=True)):
        _joint(doc, robot, model, k, j, joint, top, deg)
    _answer(doc, robot, model, t, deg)
    return doc


def _model(doc: Document, model, r: dict) -> None:
    s = doc.section("The model")
    shape = "Gaussian" if model.net.shape == "gauss" else "generalised bell"
    trained = ""
    if "samples" in r:
        trained = (f" It was trained on {r['train']} of {r['samples']} FK samples of the branch for {r['epochs']} "
                   f"epochs of hybrid learning (least squares for the consequents, a gradient step for the "
                   f"memberships).")
    alone = r.get("alone", {})
    if "position_median" in alone:
        unit = r.get("length_unit", model.robot.length_unit)
        trained += (f" On {alone['count']} held-out targets its answer alone missed by "
                    f"{number_text(alone['position_median'], None)} {unit} (median) and "
                    f"{number_text(alone['position_p95'], None)} {unit} (95th percentile).")
    partition = "a grid partition (every combination of memberships)" if r.get("partition") == "grid" \
        else "clusters of the training inputs (one rule per cluster, each with its own memberships)"
    s.step(f"A first-order Sugeno network per learned joint, {model.net.n_rules} rules from {partition}, "
           f"{shape} memberships.{trained}", formulas=LAYERS if model.net.shape == "gauss" else [BELL] + LAYERS[1:])


def _inputs(doc: Document, model, e: dict) -> None:
    s = doc.section("Layer 0: the inputs, scaled")
    if "elbow" in e:
        _from_the_shoulder(s, model, e)
    sc = model.scaling
    rows = []
    for i, (name, raw) in enumerate(e["inputs"].items()):
        rows.append([name, _unit(model, name), raw, sc.lo[i], sc.hi[i], e["scaled"][name]])
    s.step("The target, as the network reads it (angles in rad, wrapped into the window the training data "
           "used), mapped so that the training data spans [−1, 1]:",
           formulas=[Math(r"\tilde x_i = 2\,\frac{x_i - \mathrm{lo}_i}{\mathrm{hi}_i - \mathrm{lo}_i} - 1",
                          "x̃_i = 2 (x_i − lo_i)/(hi_i − lo_i) − 1")],
           table=Table(["input", "unit", "x", "lo", "hi", "x̃"], rows, None))
    if e.get("picked"):
        s.step("The target leaves free the orientation the network reads, so the model picked it: of a fixed set "
               "of candidates, the one whose answer, judged by FK, lands nearest the target.")
    out = [n for n, v in e["scaled"].items() if abs(v) > 1]
    if out:
        s.step(f"{', '.join(out)} lie{'s' if len(out) == 1 else ''} outside the training span: the network "
               "extrapolates there, and its answer is less trustworthy.")


def _from_the_shoulder(s, model, e: dict) -> None:
    """The step from the wrist point to the elbow coordinates (`learn.elbow`)."""
    u = model.robot.length_unit
    (rs, zs), wp = e["elbow"]["shoulder"], e["wrist_point"]
    rows = [[n, _unit(model, n), v] for n, v in wp.items()]
    s.step(f"The wrist point the target puts the arm's wrist at, in cylindrical coordinates about joint 1's axis; "
           f"the network reads it from the shoulder, where joint 2's axis crosses the arm's plane (ρs, zs) = "
           f"({number_text(rs, None)}, {number_text(zs, None)}) {u}: the squared distance s, on which the elbow's "
           "cosine depends alone, and the elevation β.",
           formulas=[Math(r"s = (\rho_w - \rho_s)^2 + (z_w - z_s)^2,\quad \beta = \operatorname{atan2}(z_w - z_s,\ "
                          r"\rho_w - \rho_s)", "s = (ρw − ρs)² + (zw − zs)², β = atan2(zw − zs, ρw − ρs)")],
           table=Table(["wrist point", "unit", "value"], rows, None))


def _unit(model, name: str) -> str:
    if name == "s":
        return f"{model.robot.length_unit}²"
    return "rad" if name in ("φ", "ψ", "pitch", "rx", "ry", "rz", "β") else model.robot.length_unit


def _joint(doc: Document, robot: Robot, model, k: int, j: int, e: dict, top: int, deg: bool) -> None:
    s = doc.section(f"Joint {joint_math(robot, j).text}")
    names = list(e["memberships"])
    net = model.net
    strongest = e["strongest"][:top]
    used = {(i, r["memberships"][i]) for r in strongest for i in range(len(names))}
    grid = net.c.shape[2] < net.n_rules
    rows = [[name, m + 1, mf["centre"], mf["width"], mf["degree"]]
            for i, name in enumerate(names) for m, mf in enumerate(e["memberships"][name])
            if grid or (i, m) in used]
    which = "every membership of every input" if grid else f"the memberships of the {len(strongest)} strongest rules"
    s.step(f"Layer 1, membership degrees: how well each scaled input fits each fuzzy set ({which}).",
           table=Table(["input", "set m", "centre c", "width σ", "μ"], rows, None))
    mu = {name: [mf["degree"] for mf in e["memberships"][name]] for name in names}
    w = [float(np.prod([mu[n][r["memberships"][i]] for i, n in enumerate(names)])) for r in e["all_rules"]]
    total = sum(w)
    rows = []
    for r in strongest:
        sets = ", ".join(f"{n}:{m + 1}" for n, m in zip(names, r["memberships"], strict=True))
        rows.append([r["rule"] + 1, sets, w[r["rule"]], r["weight"], r["output"], r["contribution"]])
    s.step(f"Layers 2–4 for the {len(strongest)} strongest of {net.n_rules} rules: the firing strength w_r "
           "(the product of the rule's membership degrees), the normalised weight w̄_r, the rule's output f_r "
           "(a linear function of the scaled inputs) and its share w̄_r f_r.",
           formulas=[Math(rf"\sum_s w_s = {_latex(total)}", f"Σ_s w_s = {number_text(total, None)}")],
           table=Table(["rule", "sets", "w", "w̄", "f", "w̄ f"], rows, None))
    best = strongest[0]
    s.step(f"The strongest rule, {best['rule'] + 1}, in full: its consequent coefficients (p_r, r_r) on "
           f"(x̃, 1) give f = {number_text(best['output'], None)}.",
           values=[vector("(p_r, r_r)", "(p_r, r_r)", best["consequent"], decimals=None),
                   vector(r"(\tilde x, 1)", "(x̃, 1)", e["regressors"], decimals=None)])
    rest = sum(r["contribution"] for r in e["all_rules"]) - sum(r["contribution"] for r in strongest)
    weight_rest = 1.0 - sum(r["weight"] for r in strongest)
    y, q = e["sum"], e["value"]
    value = joint_value(robot, j, q, deg)
    name = joint_math(robot, j).text
    elbowed = "elbow" in e  # the network answers this joint's cosine (`learn.elbow`)
    what = f"cos({name} − {name}*)" if elbowed else name
    words = (f"Layer 5, the sum: the rules above give {number_text(y - rest, None)}, the other "
             f"{net.n_rules - len(strongest)} (weight {number_text(weight_rest, None)} together) give "
             f"{number_text(rest, None)}: {what} = {number_text(y, None) if elbowed else value}.")
    if elbowed:
        el = e["elbow"]
        words += (f" The network answers the elbow's cosine, which the wrist point's distance fixes without the square "
                  f"root θ itself has near the straight elbow; back to the joint, with the straight angle {name}* = "
                  f"{joint_value(robot, j, el['straight'], deg)} and this branch on the "
                  f"{'+' if el['side'] > 0 else '−'} side of it: {name} = {name}* {'+' if el['side'] > 0 else '−'} "
                  f"arccos(c) = {value}.")
    lo, hi = model.branch.box[j]
    clipped = float(np.clip(q, lo, hi))
    if clipped != q:
        words += (f" The branch spans {joint_value(robot, j, lo, deg)} … {joint_value(robot, j, hi, deg)}: the "
                  f"answer is clipped to {joint_value(robot, j, clipped, deg)}.")
    latex = joint_math(robot, j).latex if not elbowed else rf"\cos({joint_math(robot, j).latex} - {joint_math(robot, j).latex}^*)"
    s.step(words, formulas=[Math(rf"{latex} = \sum_r \bar w_r f_r = {_latex(y)}",
                                 f"{what} = Σ_r w̄_r f_r = {number_text(y, None)}")])


def _latex(x: float) -> str:
    return number_latex(x, None)


def _answer(doc: Document, robot: Robot, model, t, deg: bool) -> None:
    from ..learn.closed import network_joints

    s = doc.section("The answer, judged by FK")
    q = np.asarray(model.answer(t), dtype=float)
    held = [j for j in range(robot.n) if j not in set(model.branch.learned)]
    note = (f" ({', '.join(joint_math(robot, j).text for j in held)} held at {'their' if len(held) > 1 else 'its'} "
            "branch value: the target leaves it free)") if held else ""
    wrist = np.setdiff1d(model.branch.learned, network_joints(robot, model.branch))
    if wrist.size:
        note += (f" ({', '.join(joint_math(robot, j).text for j in wrist)} in closed form from the target's orientation, "
                 "once the network has placed the wrist point)")
    s.step(f"The joint values: {joints_text(robot, q, deg)}{note}.",
           values=[joints_quantity(robot, q, deg, Math(r"\theta", "θ"))])
    pos, ori = errors(fit_target(robot, t), fk(robot, q))
    u = robot.length_unit
    T = fk(robot, q)
    s.step("Forward kinematics of these values, computed afresh, against the target:",
           values=[vector("p(θ)", "p(θ)", T[:3, 3], u), vector("p*", "p*", t.p, u)])
    s.step(f"The answer misses by {number_text(float(pos), None)} {u} and {number_text(np.degrees(float(ori)), None)}°. "
           "An ANFIS answer is approximate by nature: it is a good start for Levenberg–Marquardt, which finishes it "
           "in a few steps.")
