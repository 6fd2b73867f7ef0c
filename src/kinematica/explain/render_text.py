"""Plain text for the terminal: headings underlined, prose wrapped, formulas indented, matrices
aligned in ⎡ ⎤ brackets, tables in columns."""

from __future__ import annotations

import textwrap

from .document import Document, Table, cell_text, quantity_text

WIDTH = 92


def table_lines(t: Table, indent: str = "    ") -> list[str]:
    cells = [[cell_text(x, t.decimals) for x in row] for row in t.rows]
    n = len(t.headers)
    width = [max([len(t.headers[j])] + [len(r[j]) for r in cells]) for j in range(n)]
    numeric = [all(not isinstance(row[j], str) for row in t.rows) and bool(t.rows) for j in range(n)]

    def line(row):
        parts = zip(row, width, numeric, strict=True)
        return indent + "  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in parts).rstrip()

    return [line(t.headers), indent + "  ".join("-" * w for w in width)] + [line(r) for r in cells]


def render_text(doc: Document) -> str:
    """The document as terminal text."""
    out = [doc.title, "=" * len(doc.title), ""]
    if doc.summary:
        out += textwrap.wrap(doc.summary, WIDTH) + [""]
    for k, sec in enumerate(doc.sections, 1):
        head = f"{k}. {sec.title}"
        out += [head, "-" * len(head), ""]
        for st in sec.steps:
            if st.heading:
                out += [st.heading, "·" * len(st.heading)]
            if st.text:
                for para in st.text.split("\n"):
                    out += textwrap.wrap(para, WIDTH) or [""]
            for f in st.formulas:
                out += ["    " + line for line in f.text.split("\n")]
            for q in st.values:
                out += ["    " + line for line in quantity_text(q)]
            if st.table is not None:
                out += table_lines(st.table)
            if st.code:
                out += ["    " + line if line else "" for line in st.code.rstrip().split("\n")]
            out.append("")
    if doc.notation:
        out += ["Notation", "--------"] + ["    " + m.text for m in doc.notation] + [""]
    return "\n".join(out).rstrip() + "\n"
