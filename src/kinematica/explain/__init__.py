"""Step-by-step explanations and closed-form mathematics: the engine of the simulator's Math tab.

  chain / fk_symbolic / jacobian_symbolic   closed forms of any robot from its own table (SymPy)
  fk_source / jacobian_source               the closed forms as Python source
  explain(robot, "fk" | "jacobian" | "ik" | "dynamics", …) → Document
  render(doc, "text" | "md" | "html" | "tex")

>>> import kinematica as km
>>> doc = explain(km.load("planar-3r"), "fk", q=[0.5, 0.5, 0.3])
>>> [s.title for s in doc.sections][:2]
['The robot and its parameters', 'Link transforms Aᵢ']
"""

from __future__ import annotations

from ..extras import require

require("explain", "kinematica.explain")  # one line naming the extra, not a traceback from SymPy's absence

from typing import Any

from ..errors import InputError
from ..model.coerce import takes_robot
from ..model.robot import Robot
from .codegen import compile_source, fk_source, jacobian_source
from .document import Document, Math, Quantity, Section, Step, Table
from .notation import Formula, latex, mathml
from .render_html import (
    sections_html,  # the simulator's Math tab: a document's body, no page around it
)
from .symbolic import Chain, chain, fk_symbolic, jacobian_symbolic, joint_symbols

FORMATS = ("text", "md", "html", "tex")


@takes_robot
def explain(robot: Robot, what: str, **kw: Any) -> Document:
    """The step-by-step explanation of `what` for `robot`:

    "fk" (q, params, deg), "jacobian" (q, params, deg), "ik" (target, q0, method, limits, deg and
    `km.ik` options; method="analytic" gives the closed-form steps), "analytic" (target, q0, deg),
    "dynamics" (q, qd, qdd, gravity, deg), "anfis" (model, target, top, deg: a learned IK model's
    answer layer by layer).
    """
    if what == "fk":
        from .fk import explain_fk

        return explain_fk(robot, kw.pop("q", robot.q_home), **kw)
    if what == "jacobian":
        from .jacobian import explain_jacobian

        return explain_jacobian(robot, kw.pop("q", robot.q_home), **kw)
    if what == "ik":
        from .ik import explain_ik

        return explain_ik(robot, kw.pop("target"), kw.pop("q0", None), **kw)
    if what == "analytic":
        from .analytic import explain_analytic_ik

        return explain_analytic_ik(robot, kw.pop("target"), kw.pop("q0", None), **kw)
    if what == "dynamics":
        from .dynamics import explain_dynamics

        return explain_dynamics(robot, kw.pop("q", robot.q_home), **kw)
    if what == "anfis":
        from .anfis import explain_anfis

        return explain_anfis(robot, kw.pop("model"), kw.pop("target"), **kw)
    raise InputError(f"what must be one of fk, jacobian, ik, analytic, dynamics, anfis; got {what!r}")


def render(doc: Document, fmt: str = "text", **kw: Any) -> str:
    """The document as "text", "md" (Markdown), "html" (standalone page; `math=` "auto",
    "mathjax" or "mathml") or "tex" (a LaTeX article)."""
    if fmt == "text":
        from .render_text import render_text

        return render_text(doc)
    if fmt == "md":
        from .render_markdown import render_markdown

        return render_markdown(doc)
    if fmt == "html":
        from .render_html import render_html

        return render_html(doc, **kw)
    if fmt == "tex":
        from .render_latex import render_latex

        return render_latex(doc)
    raise InputError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")


__all__ = ["explain", "render", "Document", "Section", "Step", "Math", "Quantity", "Table", "Chain", "chain",
           "fk_symbolic", "jacobian_symbolic", "joint_symbols", "fk_source", "jacobian_source", "compile_source",
           "Formula", "latex", "mathml", "FORMATS", "sections_html"]
