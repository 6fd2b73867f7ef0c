"""One ANFIS answer, layer by layer: what the Math tab shows for a learned IK model, as it shows
LM step by step.

For one target and each learned joint: the inputs (as given and scaled), every membership
degree μ_im, the firing strength w_r = Π_i μ_i,rule(r, i) of the strongest rules, their normalised
weights w̄_r = w_r / Σ w, their outputs f_r = p_r · x + r_r and contributions w̄_r f_r, and the
sum — the joint value before it is clipped into the branch. "picked" says whether the target left
free the orientation the network reads, so that the inputs hold the model's own pick (`complete`).
A model in the elbow coordinates (`learn.elbow`) also gives the wrist point its inputs come from
and the shoulder; its elbow joint's "sum" is the cosine cos(θ3 − θ3*), "value" the joint value
it turns back into (with the shoulder and straight angle under "elbow"); every other joint's
"value" is its "sum".

>>> from kinematica.learn import train_ik
>>> import kinematica as km
>>> m = train_ik("planar-3r", samples=600, rules=8, epochs=2, warm_start=0)
>>> e = explain_answer(m, km.targets.planar([10, 45], 1.7), top=3)
>>> j = e["joints"][0]
>>> abs(sum(r["contribution"] for r in j["all_rules"]) - j["sum"]) < 1e-12
True
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..ik.target import as_target
from . import elbow
from .anfis import forward, regressors
from .closed import network_joints
from .complete import needs_orientation, network_inputs
from .model import IKModel
from .sampling import TASKS

__all__ = ["explain_answer"]


def explain_answer(model: IKModel, target, top: int = 5) -> dict[str, Any]:
    """The layers of the model's answer to one target (see the module docstring); `top` strongest
    rules are listed in full per joint, all rules' contributions in "all_rules"."""
    t = as_target(target)
    if t.shape != ():
        raise InputError(f"explain_answer takes one target, got a batch of shape {t.shape}")
    net, el = model.net, model.elbow
    X = network_inputs(model, t)  # a target without the orientation read: the model's pick
    raw = X[:, :net.inputs] if el is None else elbow.coordinates(el, X)
    x = model.scaled_inputs(X)
    L = forward(net, x)
    names = TASKS[model.task][:net.inputs] if el is None else elbow.NAMES
    out = {"inputs": dict(zip(names, raw[0].tolist(), strict=True)),
           "scaled": dict(zip(names, x[0].tolist(), strict=True)),
           "picked": needs_orientation(model, t), "joints": []}
    if el is not None:
        out["wrist_point"] = dict(zip(TASKS[model.task][:net.inputs], X[0, :net.inputs].tolist(), strict=True))
        out["elbow"] = {"shoulder": el.shoulder.tolist(), "straight": el.straight, "side": el.side}
    X1 = regressors(x, net.products)[0]
    values = model.joints_from(L["y"][:, :1].T)[0]
    for k, j in enumerate(network_joints(model.robot, model.branch)):
        mu = L["mu"][k, 0]  # (d, m)
        w, wbar, f = L["w"][k, 0], L["wbar"][k, 0], L["f"][k, 0]
        rules = [{"rule": int(r), "memberships": [int(m) for m in net.rules[r]], "firing": float(w[r]),
                  "weight": float(wbar[r]), "consequent": net.theta[k, r].tolist(), "output": float(f[r]),
                  "contribution": float(wbar[r] * f[r])} for r in range(net.n_rules)]
        strongest = sorted(rules, key=lambda r: -r["weight"])[:top]
        out["joints"].append({
            "joint": model.robot.joint_names[j], "regressors": X1.tolist(),
            "memberships": {n: [{"centre": float(net.c[k, i, m]), "width": float(net.sigma[k, i, m]),
                                 "degree": float(mu[i, m])} for m in range(net.c.shape[2]) if m <= net.rules[:, i].max()]
                            for i, n in enumerate(names)},
            "strongest": strongest, "all_rules": rules, "sum": float(L["y"][k, 0]),
            "output": model.robot.joint_names[j], "value": float(values[k])})
        if el is not None and j == 2:
            out["joints"][-1].update(output=elbow.output_name(model.robot.joint_names[j]), elbow=out["elbow"])
    return out
