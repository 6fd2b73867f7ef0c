"""A standalone HTML page that renders its mathematics offline.

The math renderer is MathJax 3 (SVG output), from the `django-static-mathjax` package on PyPI
(a copy of MathJax's release files; no Django needed to read them). Its single-file build
`tex-svg-full.js` carries the TeX input and the fonts as SVG paths, so it is written into the
page itself: the file opens from a disk, a mail or a USB stick with no network and no CDN.
Auto-loading of extensions is switched off, so nothing is ever fetched. Where that package is
missing, the page falls back to MathML from `latex2mathml`, which browsers render natively,
with CSS that gives matrices room to breathe.
"""

from __future__ import annotations

import html
import os
import re
from functools import lru_cache

from ..errors import InputError, SetupError
from .document import Document, Table, cell_text, values_latex
from .notation import mathml

MATHJAX_FILE = os.path.join("static", "mathjax", "es5", "tex-svg-full.js")

MATHJAX_CONFIG = """window.MathJax = {
  tex: {inlineMath: [['\\\\(', '\\\\)']], displayMath: [['\\\\[', '\\\\]']],
        packages: {'[-]': ['autoload', 'require']}},
  svg: {fontCache: 'global', scale: 1.0},
  options: {enableMenu: false},
  startup: {typeset: true}
};"""

CSS = """
:root { --ink: #1d2330; --muted: #5b6475; --rule: #d9dee7; --accent: #2b5fab; --panel: #f6f8fb; }
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: var(--ink);
       font: 16px/1.55 -apple-system, "Segoe UI", "Noto Sans", "DejaVu Sans", Arial, sans-serif; }
main { max-width: 1040px; margin: 0 auto; padding: 28px 32px 64px; }
h1 { font-size: 1.9em; margin: 0.2em 0 0.3em; }
.summary { color: var(--muted); font-size: 1.05em; margin-bottom: 1.6em; }
nav.toc { background: var(--panel); border: 1px solid var(--rule); border-radius: 8px;
          padding: 10px 18px; margin-bottom: 1.8em; }
nav.toc ol { margin: 0.3em 0; padding-left: 1.4em; columns: 2; }
nav.toc a { color: var(--accent); text-decoration: none; }
section { margin-top: 2.2em; }
h2 { font-size: 1.35em; border-bottom: 2px solid var(--rule); padding-bottom: 0.2em; }
.step { margin: 1.1em 0; padding-left: 14px; border-left: 3px solid var(--rule); }
.step p { margin: 0.35em 0; }
h3 { font-size: 1.08em; margin: 1.6em 0 0.4em; color: var(--accent); }
td.ok { color: #1c7c3c; font-weight: 600; } td.bad { color: #b3261e; font-weight: 600; }
.math { overflow-x: auto; overflow-y: hidden; padding: 4px 2px; margin: 0.35em 0; }
.math.value { background: var(--panel); border-radius: 6px; padding: 6px 10px; }
.note { color: var(--muted); font-size: 0.9em; margin-left: 0.6em; }
table { border-collapse: collapse; margin: 0.6em 0; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 12px; border-bottom: 1px solid var(--rule); }
th { text-align: left; background: var(--panel); font-weight: 600; }
td.num { text-align: right; font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.92em; }
pre { background: #f4f5f7; border: 1px solid var(--rule); border-radius: 6px; padding: 12px 14px;
      overflow-x: auto; font-size: 0.85em; line-height: 1.4; }
.notation { columns: 3; font-size: 0.95em; }
mjx-container[display="true"] { margin: 0.4em 0 !important; }
math[display="block"] { margin: 0.4em 0; }
math mtable mtd { padding: 0.2em 0.7em; }
math mo[fence="true"], math mo.fence { font-size: 1.35em; }
footer { margin-top: 3em; color: var(--muted); font-size: 0.85em; border-top: 1px solid var(--rule); padding-top: 0.8em; }
"""


@lru_cache(maxsize=1)
def mathjax_source() -> str | None:
    """The text of MathJax's tex-svg-full.js from the installed package, or None."""
    try:
        import mathjax  # django-static-mathjax
    except ImportError:
        return None
    path = os.path.join(os.path.dirname(mathjax.__file__), MATHJAX_FILE)
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        return f.read().replace("</script", "<\\/script")


_MARK = {"accepted": "ok", "rejected": "bad", "yes": "ok", "no": "bad"}


def _numeric(t: Table, j: int) -> bool:
    return bool(t.rows) and all(not isinstance(r[j], str) for r in t.rows)


def _table(t: Table) -> str:
    num = [_numeric(t, j) for j in range(len(t.headers))]
    head = "".join(f"<th>{html.escape(h)}</th>" for h in t.headers)
    def cls(x, n):
        return "num" if n else _MARK.get(x, "txt") if isinstance(x, str) else "txt"
    rows = "".join("<tr>" + "".join(f'<td class="{cls(x, n)}">{html.escape(cell_text(x, t.decimals))}</td>'
                                    for x, n in zip(r, num, strict=True)) + "</tr>" for r in t.rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _aligned_rows(tex: str) -> list[str]:
    """The rows of an aligned block (split at its own \\\\, not at those of a matrix inside)."""
    body = tex[len(r"\begin{aligned}"):-len(r"\end{aligned}")]
    rows, depth, start = [], 0, 0
    for m in re.finditer(r"\\begin\{|\\end\{| \\\\(?:\[2pt\])? ", body):
        if m[0].startswith(r"\begin"):
            depth += 1
        elif m[0].startswith(r"\end"):
            depth -= 1
        elif depth == 0:
            rows.append(body[start:m.start()])
            start = m.end()
    rows.append(body[start:])
    return [r.replace("&=", "=") for r in rows]


class _Math:
    def __init__(self, mode: str) -> None:
        self.mode = mode

    def display(self, tex: str, cls: str = "math") -> str:
        if self.mode == "mathml":  # latex2mathml has no aligned: one row after the other
            rows = _aligned_rows(tex) if tex.startswith(r"\begin{aligned}") else [tex]
            return f'<div class="{cls}">' + "".join(mathml(r) for r in rows) + "</div>"
        return f'<div class="{cls}">\\[{html.escape(tex, quote=False)}\\]</div>'

    def inline(self, tex: str) -> str:
        if self.mode == "mathml":
            return mathml(tex, display=False)
        return f"\\({html.escape(tex, quote=False)}\\)"


def _sections(doc: Document, m: _Math) -> str:
    out = []
    for k, sec in enumerate(doc.sections, 1):
        parts = [f'<section id="s{k}"><h2>{k}. {html.escape(sec.title)}</h2>']
        for st in sec.steps:
            inner = [f"<h3>{html.escape(st.heading)}</h3>"] if st.heading else []
            if st.text:
                inner += [f"<p>{html.escape(p)}</p>" for p in st.text.split("\n") if p.strip()]
            inner += [m.display(f.latex) for f in st.formulas]
            if st.values:
                inner.append(m.display(values_latex(st.values), "math value"))
            if st.table is not None:
                inner.append(_table(st.table))
            if st.code:
                inner.append(f"<pre><code>{html.escape(st.code.rstrip())}</code></pre>")
            parts.append('<div class="step">' + "".join(inner) + "</div>")
        out.append("".join(parts) + "</section>")
    return "\n".join(out)


def sections_html(doc: Document) -> str:
    """The document's sections as an HTML fragment with MathML math — no page, no scripts — for
    a page that shows it inside its own layout (the simulator's Math tab). Classes as in
    `render_html`: section, step, math, value."""
    return _sections(doc, _Math("mathml"))


def render_html(doc: Document, math: str = "auto", mathjax_url: str | None = None) -> str:
    """The document as one HTML file.

    math: "mathjax" (MathJax written into the page, or loaded from `mathjax_url` — a local path
    or the app's own server, never a CDN), "mathml" (browser-native MathML), or "auto":
    MathJax when its package is installed, else MathML.
    """
    if math not in ("auto", "mathjax", "mathml"):
        raise InputError(f"math must be 'auto', 'mathjax' or 'mathml', got {math!r}")
    src = None
    if math in ("auto", "mathjax") and mathjax_url is None:
        src = mathjax_source()
        if src is None and math == "mathjax":
            raise SetupError('MathJax is not installed (pip install "kinematica[explain]"); use math=\'mathml\'')
    mode = "mathjax" if (src is not None or mathjax_url) and math != "mathml" else "mathml"
    m = _Math(mode)
    body = [f"<h1>{html.escape(doc.title)}</h1>"]
    if doc.summary:
        body.append(f'<p class="summary">{html.escape(doc.summary)}</p>')
    toc = "".join(f'<li><a href="#s{k}">{html.escape(s.title)}</a></li>' for k, s in enumerate(doc.sections, 1))
    body.append(f'<nav class="toc"><strong>Contents</strong><ol>{toc}</ol></nav>')
    body.append(_sections(doc, m))
    if doc.notation:
        items = "".join(f"<li>{m.inline(n.latex)}</li>" for n in doc.notation)
        body.append(f'<section id="notation"><h2>Notation</h2><ul class="notation">{items}</ul></section>')
    body.append("<footer>Generated by kinematica explain. The mathematics is rendered in this file "
                f"({'MathJax, embedded' if mode == 'mathjax' else 'MathML'}); it needs no network.</footer>")
    if mode == "mathjax":
        loader = f'<script src="{html.escape(mathjax_url)}"></script>' if mathjax_url else f"<script>{src}</script>"
        head_math = f"<script>{MATHJAX_CONFIG}</script>{loader}"
    else:
        head_math = ""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(doc.title)}</title><style>{CSS}</style>{head_math}</head>\n"
            f"<body><main>\n" + "\n".join(body) + "\n</main></body></html>\n")
