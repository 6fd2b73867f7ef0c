"""A compilable LaTeX article (pdflatex; amsmath, amssymb): sections, prose with its Unicode
turned into LaTeX, display math, tables and verbatim code."""

from __future__ import annotations

from .document import Document, Table, cell_text, values_latex

_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
            "^": r"\^{}", "_": r"\_", "%": r"\%", "~": r"\textasciitilde{}"}
_MATH = {"θ": r"\theta", "φ": r"\varphi", "λ": r"\lambda", "α": r"\alpha", "ω": r"\omega", "τ": r"\tau",
         "Δ": r"\Delta", "σ": r"\sigma", "κ": r"\kappa", "π": r"\pi", "ε": r"\varepsilon", "μ": r"\mu",
         "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "ψ": r"\psi", "Σ": r"\Sigma", "ρ": r"\rho",
         "≤": r"\le", "≥": r"\ge", "≈": r"\approx", "≠": r"\ne", "±": r"\pm", "×": r"\times", "·": r"\cdot",
         "‖": r"\|", "√": r"\surd", "∞": r"\infty", "→": r"\to", "⁺": "^{+}", "ᵀ": "^{T}", "⁻¹": "^{-1}",
         "°": r"^{\circ}", "²": "^{2}", "³": "^{3}", "∂": r"\partial", "⋯": r"\cdots", "…": r"\dots",
         "−": "-", "∈": r"\in", "⊥": r"\perp", "≡": r"\equiv", "⌈": r"\lceil", "⌉": r"\rceil",
         "ω̇": r"\dot\omega", "q̇": r"\dot q", "q̈": r"\ddot q"}
_SUB = dict(zip("₀₁₂₃₄₅₆₇₈₉ᵢⱼₖ₊₋,", "0123456789ijk+-,", strict=True))
_TEXT = {"–": "--", "—": "---", "“": "``", "”": "''", "\u2019": "'", "\u2018": "`", "\u2044": "/", "\u00a0": "~"}


def escape(text: str) -> str:
    """Prose with Unicode as LaTeX: θ → $\\theta$, T₀ᵢ → T$_{0i}$, specials escaped."""
    out, i = [], 0
    while i < len(text):
        two = text[i:i + 2]
        if two in _MATH:
            out.append(f"${_MATH[two]}$")
            i += 2
            continue
        ch = text[i]
        if ch in _SUB:
            j = i
            while j < len(text) and text[j] in _SUB:
                j += 1
            out.append("$_{" + "".join(_SUB[c] for c in text[i:j]) + "}$")
            i = j
            continue
        if ch in _MATH:
            out.append(f"${_MATH[ch]}$")
        elif ch in _SPECIAL:
            out.append(_SPECIAL[ch])
        elif ch in _TEXT:
            out.append(_TEXT[ch])
        elif ord(ch) < 128:
            out.append(ch)
        elif ch in "\u0307\u0308":  # combining dots not caught as q̇, q̈ above: dropped
            pass
        else:
            out.append("?")
        i += 1
    return "".join(out).replace("$$", "")


def _table(t: Table) -> list[str]:
    num = [bool(t.rows) and all(not isinstance(r[j], str) for r in t.rows) for j in range(len(t.headers))]
    spec = "".join("r" if n else "l" for n in num)
    lines = [r"\begin{center}", r"\small", rf"\begin{{tabular}}{{{spec}}}", r"\hline",
             " & ".join(escape(h) for h in t.headers) + r" \\", r"\hline"]
    lines += [" & ".join(escape(cell_text(x, t.decimals)) for x in row) + r" \\" for row in t.rows]
    return lines + [r"\hline", r"\end{tabular}", r"\end{center}"]


def render_latex(doc: Document) -> str:
    """The document as a standalone LaTeX article."""
    out = [r"\documentclass[11pt]{article}", r"\usepackage[T1]{fontenc}", r"\usepackage[utf8]{inputenc}",
           r"\usepackage{amsmath,amssymb}", r"\usepackage[margin=2cm]{geometry}",
           r"\setlength{\parindent}{0pt}", r"\setlength{\parskip}{0.5em}", r"\allowdisplaybreaks",
           rf"\title{{{escape(doc.title)}}}", r"\date{}", r"\begin{document}", r"\maketitle"]
    if doc.summary:
        out.append(escape(doc.summary))
    for sec in doc.sections:
        out.append(rf"\section{{{escape(sec.title)}}}")
        for st in sec.steps:
            if st.heading:
                out.append(rf"\subsection*{{{escape(st.heading)}}}")
            if st.text:
                out += [escape(p) + "\n" for p in st.text.split("\n")]
            for f in st.formulas:
                out += [r"\[", f.latex, r"\]"]
            if st.values:
                out += [r"\[", values_latex(st.values, escape), r"\]"]
            if st.table is not None:
                out += _table(st.table)
            if st.code:
                out += [r"{\footnotesize", r"\begin{verbatim}", st.code.rstrip(), r"\end{verbatim}", "}"]
    if doc.notation:
        out += [r"\section*{Notation}", r"\begin{itemize}"] + [rf"\item ${m.latex}$" for m in doc.notation] + \
               [r"\end{itemize}"]
    out.append(r"\end{document}")
    return "\n".join(out) + "\n"
