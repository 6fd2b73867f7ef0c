"""Table view of a learned model's report (`kinematica learn ...`): what was trained, how good
it is alone, and what it is worth as a warm start — the honest summary first."""

from __future__ import annotations

from typing import Any

from ..textfmt import fields, table


def _g(x: Any) -> str:
    return "—" if x is None else f"{x:.3g}"


def _errors_row(label: str, s: dict[str, Any]) -> list[str]:
    if not s.get("count"):
        return [label, "0", "—", "—", "—", "—", "—"]
    return [label, str(s["count"]), _g(s["position_median"]), _g(s["position_p95"]), _g(s["position_max"]),
            _g(s["orientation_median_deg"]), f"{100 * s['within_1mm_1deg']:.1f}"]


def ik_text(d: dict[str, Any], full: bool) -> str:
    u = d["length_unit"]
    a = d["alone"]
    parts = [fields([("model", d["model"]),
                     ("robot", f"{d['robot']}, branch {d['branch']}, joints {', '.join(d['joints'])}"),
                     ("network", f"{d['rules']} rules ({d['partition']}, {d['shape']}) on inputs "
                                 f"({', '.join(d['inputs'])}), one network per joint"
                                 + (f" answering {', '.join(d['outputs'])}" if d.get("outputs", d["joints"]) != d["joints"]
                                    else "")
                                 + (f"; {', '.join(d['closed_form_joints'])} in closed form from the orientation"
                                    if d.get("closed_form_joints") else "")),
                     ("training", f"{d['train']} of {d['samples']} samples, {d['epochs']} of at most "
                                  f"{d['max_epochs']} epochs, {d['train_seconds']:.1f} s"),
                     ("alone", f"tool position error median {_g(a['position_median'])} {u} "
                               f"({a['position_median_percent_of_reach']:.2f} % of the {_g(d['reach'])} {u} reach), "
                               f"p95 {_g(a['position_p95'])} {u}: an approximation, not a solver"),
                     ("unreachable", f"{d['unreachable']['claimed_solved']} of {d['unreachable']['count']} "
                                     f"targets beyond the reach reported solved")])]
    ws = d.get("warm_start")
    if ws:
        parts.append(fields([("as LM seed", f"mean iterations {ws['home']['mean_iterations']:.1f} from home → "
                                            f"{ws['anfis']['mean_iterations']:.1f} from the model "
                                            f"(nearest training sample: {ws['nearest']['mean_iterations']:.1f})")]))
    if not full:
        return "\n".join(parts + ["", "(--report for the whole evaluation; 'kinematica learn report MODEL' later)"])
    rows = [_errors_row("held-out targets", a), _errors_row("near the limits", d["near_limits"]),
            _errors_row("near singular poses", d["near_singular"])]
    if d.get("nearest_alone"):
        rows.append(_errors_row("nearest neighbour alone", d["nearest_alone"]))
    parts += ["", f"The model alone (position in {u}, orientation in degrees):",
              table(["targets", "count", "pos median", "pos p95", "pos max", "ori median", "≤1 mm & 1° (%)"], rows,
                    indent="  ", align="lrrrrrr")]
    if ws:
        rows = [[k, f"{v['mean_iterations']:.2f}", f"{100 * v['success']:.1f}", f"{1e6 * v['seconds_per_solve']:.0f}"]
                for k, v in ws.items()]
        parts += ["", "LM warm start (same targets, limits wrap):",
                  table(["seed", "mean iterations", "success (%)", "µs per solve"], rows, indent="  ", align="lrrr")]
        pays = d.get("pays_off_after")
        parts.append("  training pays off after " + ("never (no time saved per solve)" if pays is None
                                                     else f"{pays:,.0f} solves"))
    return "\n".join(parts)


def dynamics_text(d: dict[str, Any], full: bool) -> str:
    parts = [fields([("model", d["model"]),
                     ("robot", d["robot"]),
                     ("network", f"{d['rules']} rules ({d['partition']} on "
                                 f"{', '.join(d.get('premise_joints') or ['q'])}, {d['shape']}), one network per joint"
                                 + (f", {d['products']} product terms (q̇ q̇, q q̈) in each rule" if d.get("products") else "")),
                     ("training", f"{d['train']} of {d['trajectories']} trajectories × {d['points_per_trajectory']} "
                                  f"points, {d['epochs']} of at most {d['max_epochs']} epochs, "
                                  f"{d['train_seconds']:.1f} s"),
                     ("time per call", f"model {1e6 * d['seconds_per_call_model']:.2f} µs, batched RNE "
                                       f"{1e6 * d['seconds_per_call_rne']:.2f} µs")])]
    rows = [[j, _g(r), _g(p), f"{pct:.1f}"] for j, r, p, pct in
            zip(d["joints"], d["rmse"], d["peak_torque"], d["rmse_percent_of_peak"], strict=True)]
    parts += ["", f"Against RNE on {d['test']} held-out trajectories:",
              table(["joint", "RMSE (N·m)", "peak |τ| (N·m)", "RMSE % of peak"], rows, indent="  ", align="lrrr")]
    return "\n".join(parts)


def explain_text(d: dict[str, Any]) -> str:
    """The layers of one answer: inputs, then per joint the memberships and the strongest rules."""
    names = list(d["inputs"])
    parts = [fields([("model", f"{d['model']} ({d['robot']}, branch {d['branch']})"),
                     *([("wrist point", ", ".join(f"{n} = {v:.4g}" for n, v in d["wrist_point"].items()))]
                       if "wrist_point" in d else []),
                     ("inputs", ", ".join(f"{n} = {v:.4g}" for n, v in d["inputs"].items())),
                     ("scaled", ", ".join(f"{n} = {v:.4g}" for n, v in d["scaled"].items()))])]
    for j in d["joints"]:
        v = j.get("value", j["sum"])
        head = (f"Joint {j['joint']} = Σ w̄_r f_r" if "elbow" not in j else
                f"Joint {j['joint']}: {j['output']} = Σ w̄_r f_r = {j['sum']:.6g}, so {j['joint']}")
        parts += ["", f"{head} = {v:.6g} rad = {v * 57.29577951308232:.4f}° (before clipping into the branch)",
                  "  layer 1, membership degrees μ (centre, width in scaled units):"]
        for i, n in enumerate(names):  # clustered rules have one membership each: show the strongest rules' only
            mfs = j["memberships"][n]
            shown = range(len(mfs)) if len(mfs) <= 7 else sorted({r["memberships"][i] for r in j["strongest"]})
            parts.append(f"    {n}: " + "  ".join(f"#{m + 1} {mfs[m]['degree']:.3f} ({mfs[m]['centre']:+.2f}, "
                                                  f"{mfs[m]['width']:.2f})" for m in shown))
        rows = [[str(r["rule"]), " ".join(str(m + 1) for m in r["memberships"]), f"{r['firing']:.4g}",
                 f"{r['weight']:.4f}", f"{r['output']:.5g}", f"{r['contribution']:.5g}"] for r in j["strongest"]]
        parts += ["  layers 2–5, the strongest rules (firing scaled so the strongest is 1):",
                  table(["rule", "memberships", "firing w", "weight w̄", "output f", "w̄·f"], rows, indent="    ",
                        align="rlrrrr")]
    return "\n".join(parts)


def report_text(d: dict[str, Any], full: bool) -> str:
    return ik_text(d, full) if d["kind"] == "ik" else dynamics_text(d, full)
