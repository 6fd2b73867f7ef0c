"""The SO-101's tracking report for the command line: its JSON, its table and its plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..hardware.so101_calibration import NAMES
from ..textfmt import table


def report_data(r: Any) -> dict[str, Any]:
    """The report as plain data (angles in rad and degrees, the tool in the robot's length unit)."""
    return {"ok": r.ok, "reason": r.reason, "points": r.points, "sent": r.sent, "elapsed": r.elapsed,
            "rate": r.rate, "late": r.late, "length_unit": r.length_unit,
            "joints": [{"name": n, "rms": float(a), "max": float(b), "rms_deg": float(np.degrees(a)),
                        "max_deg": float(np.degrees(b))}
                       for n, a, b in zip(NAMES[:5], r.joint_rms, r.joint_max, strict=True)],  # the arm's joints
            "tool": {"rms": r.tool_rms, "max": r.tool_max},
            "t": r.t.tolist(), "commanded": r.commanded.tolist(),
            "measured": [None if np.isnan(row).any() else row.tolist() for row in r.measured]}


def report_text(d: dict[str, Any]) -> str:
    unit = d["length_unit"]
    scale, shown = (1000.0, "mm") if unit == "m" else (1.0, unit)
    rows = [[j["name"], f"{j['rms_deg']:.3f}", f"{j['max_deg']:.3f}"] for j in d["joints"]]
    rows.append(["tool point", f"{d['tool']['rms'] * scale:.3f} {shown}", f"{d['tool']['max'] * scale:.3f} {shown}"])
    head = (f"{'Played' if d['ok'] else 'Stopped'}: {d['sent']} of {d['points']} goals sent in {d['elapsed']:.2f} s "
            f"({d['rate']:.1f} Hz, {d['late']} cycles late)" + ("" if d["ok"] else f"\n{d['reason']}"))
    text = [head, "Tracking error (measured one cycle after each goal − the goal):",
            table(["joint", "RMS (deg)", "max (deg)"], rows, align="lrr")]
    if "plot" in d:
        text.append(f"Plot: {d['plot']}")
    return "\n".join(text)


def write_plot(r: Any, path: str) -> Path:
    """Commanded and measured joint angles against time, one panel per joint."""
    from ..extras import need

    need("matplotlib", "plot", "kinematica so101 play --plot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(5, 1, sharex=True, figsize=(8, 9))
    for j, ax in enumerate(axes):
        ax.plot(r.t, np.degrees(r.commanded[:, j]), label="commanded")
        ax.plot(r.t, np.degrees(r.measured[:, j]), ".", markersize=2, label="measured")
        ax.set_ylabel(f"{NAMES[j]} (°)", fontsize=8)
    axes[0].legend(fontsize=8)
    axes[-1].set_xlabel("t (s)")
    fig.tight_layout()
    from ..viz.style import (
        save,  # the whole image or none (kinematica.atomic), its format from the name
    )

    out = save(fig, Path(path))
    plt.close(fig)
    return out
