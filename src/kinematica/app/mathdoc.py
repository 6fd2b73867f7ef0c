"""The Math tab's content without NiceGUI: which explanation each topic is, and an explanation
(`kinematica.explain`) as an HTML fragment whose formulas and matrices are MathML.

MathML rather than MathJax: Chromium (since 109), Firefox and Safari render it natively, so the
matrices are real `<math>`/`<mtable>` elements the moment the HTML arrives — no script to load,
no typeset call to repeat after every update, nothing that can lag behind a change. The
conversion is `latex2mathml`, as in the explain engine's own HTML page.

>>> import kinematica as km
>>> html = topic_html(km.load("planar-3r"), "jacobian", q=km.load("planar-3r").q_home)
>>> "<mtable" in html and html.startswith("<section")
True
"""

from __future__ import annotations

import html
import threading

import numpy as np

import kinematica as km
from kinematica.explain import explain, sections_html

from ..errors import InputError

TOPICS = {"fk": "Forward kinematics", "jacobian": "Jacobian", "ik": "Last IK solve",
          "dynamics": "Dynamics", "anfis": "ANFIS model"}

# SymPy's caches are shared module state: one explanation is built at a time.
_LOCK = threading.Lock()

CSS = """
.km-math section { margin: 0.2em 0 1.4em; }
.km-math h2 { font-size: 1.15em; font-weight: 600; border-bottom: 1px solid #d9dee7; margin: 0.6em 0 0.3em; }
.km-math h3 { font-size: 1em; font-weight: 600; color: #2b5fab; margin: 0.8em 0 0.2em; }
.km-math .step { margin: 0.6em 0; padding-left: 12px; border-left: 3px solid #d9dee7; }
.km-math .step p { margin: 0.25em 0; }
.km-math .math { overflow-x: auto; overflow-y: hidden; padding: 2px; }
.km-math .value { background: #f6f8fb; border-radius: 6px; padding: 4px 10px; margin: 0.3em 0; }
.km-math .note { color: #5b6475; font-size: 0.9em; margin-left: 0.6em; }
.km-math math[display="block"] { margin: 0.3em 0; }
.km-math math mtable mtd { padding: 0.15em 0.6em; }
.km-math table { border-collapse: collapse; margin: 0.4em 0; font-variant-numeric: tabular-nums; }
.km-math th, .km-math td { padding: 3px 10px; border-bottom: 1px solid #d9dee7; }
.km-math th { text-align: left; background: #f6f8fb; }
.km-math td.num { text-align: right; font-family: "DejaVu Sans Mono", Menlo, monospace; font-size: 0.9em; }
.km-math pre { background: #f4f5f7; border-radius: 6px; padding: 8px 12px; overflow-x: auto; font-size: 0.85em; }
"""


def topic_html(robot: km.Robot, topic: str, *, q: np.ndarray, target: km.Target | None = None,
               q0: np.ndarray | None = None, method: str = "lm", limits: str = "auto", model=None) -> str:
    """The explanation of `topic` (a key of TOPICS) at q as an HTML fragment; "ik" explains
    the solve of `target` from `q0` with `method` and `limits`; "anfis" the answer of the
    learned IK `model` to `target`, layer by layer."""
    if topic not in TOPICS:
        raise InputError(f"topic must be one of {', '.join(TOPICS)}, got {topic!r}")
    with _LOCK:
        if topic == "anfis":
            doc = explain(robot, "anfis", model=model, target=target)
        elif topic == "ik":
            doc = explain(robot, "ik", target=target, q0=q0, method=method, limits=limits)
        else:
            doc = explain(robot, topic, q=np.asarray(q, dtype=float))
        body = sections_html(doc)
    summary = f'<p class="text-grey-8">{html.escape(doc.summary)}</p>' if doc.summary else ""
    return f"<section>{summary}</section>{body}"
