"""Markdown with LaTeX math: $…$ inline, $$…$$ display (GitHub, Jupyter, Obsidian, pandoc)."""

from __future__ import annotations

from .document import Document, Table, cell_text, values_latex


def _prose(text: str) -> str:
    return text.replace("*", r"\*")


def table_markdown(t: Table) -> list[str]:
    head = "| " + " | ".join(t.headers) + " |"
    rule = "|" + "|".join("---:" if t.rows and all(not isinstance(r[j], str) for r in t.rows) else "---"
                          for j in range(len(t.headers))) + "|"
    body = ["| " + " | ".join(cell_text(x, t.decimals).replace("|", r"\|") for x in row) + " |" for row in t.rows]
    return [head, rule] + body


def render_markdown(doc: Document) -> str:
    """The document as Markdown."""
    out = [f"# {doc.title}", ""]
    if doc.summary:
        out += [_prose(doc.summary), ""]
    for k, sec in enumerate(doc.sections, 1):
        out += [f"## {k}. {sec.title}", ""]
        for st in sec.steps:
            if st.heading:
                out += [f"### {_prose(st.heading)}", ""]
            if st.text:
                out += [_prose(st.text), ""]
            for f in st.formulas:
                out += ["$$", f.latex, "$$", ""]
            if st.values:
                out += ["$$", values_latex(st.values), "$$", ""]
            if st.table is not None:
                out += table_markdown(st.table) + [""]
            if st.code:
                out += ["```python", st.code.rstrip(), "```", ""]
    if doc.notation:
        out += ["## Notation", ""] + [f"- ${m.latex}$" for m in doc.notation] + [""]
    return "\n".join(out).rstrip() + "\n"
