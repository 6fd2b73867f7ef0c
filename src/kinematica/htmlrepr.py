"""How a Robot and an IKResult show themselves in Jupyter (`_repr_html_`): small HTML tables,
escaped, with revolute values in degrees as the CLI prints them."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

import numpy as np


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]], caption: str = "") -> str:
    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    cap = f"<caption style='text-align:left'>{escape(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _value(x: float, revolute: bool, unit: str) -> str:
    if not np.isfinite(x):
        return "∞" if x > 0 else "−∞"
    return f"{np.degrees(x):.2f}°" if revolute else f"{x:.4g} {unit}"


def robot_html(robot) -> str:
    """The joints (type, limits, home) of `robot` as an HTML table."""
    rows = [(name, kind, _value(lo, rev, robot.length_unit),
             _value(hi, rev, robot.length_unit), _value(home, rev, robot.length_unit))
            for name, kind, rev, (lo, hi), home in zip(robot.joint_names, robot.kinds, robot.revolute, robot.limits,
                                                       robot.q_home, strict=True)]
    kinds = robot.letters
    caption = f"{robot.name}: {robot.n} joints {kinds}, lengths in {robot.length_unit}"
    return _table(("joint", "type", "lower", "upper", "home"), rows, caption)


def ik_html(result, joint_names: Sequence[str] | None = None) -> str:
    """The verdict of one target (a table of q) or a batch (counts and the reasons)."""
    if result.batched:
        ok = np.asarray(result.success)
        reasons, counts = np.unique(np.asarray(result.reason, dtype=str), return_counts=True)
        return _table(("reason", "targets"), list(zip(reasons, counts, strict=True)),
                      f"IK ({result.method}): {int(ok.sum())} of {ok.size} solved")
    q = np.asarray(result.q)
    names = joint_names or [f"q{i + 1}" for i in range(q.size)]
    verdict = "solved" if result.success else "not solved"
    caption = (f"IK ({result.method}): {verdict} — {result.reason}; position error {float(result.position_error):.3g}, "
               f"orientation error {float(result.orientation_error):.3g} rad, {int(result.iterations)} iterations")
    rows = [(n, f"{v:.6f}", f"{np.degrees(v):.4f}") for n, v in zip(names, q, strict=True)]
    return _table(("joint", "q (rad)", "q (deg)"), rows, caption)


__all__ = ["robot_html", "ik_html"]
