"""A Griffe extension for the API reference (mkdocs.yml): the docstrings are prose, and their
doctests (`>>>` lines and the output after them) become fenced `pycon` code blocks, so Markdown
does not read `[a][:2]` as a link or `*` as emphasis, and the examples render as code."""

from __future__ import annotations

import griffe


def fence_doctests(text: str) -> str:
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(">>>") and not inside:
            out += ["", "```pycon"]
            inside = True
        elif inside and (not stripped):  # a blank line ends a doctest's output
            out.append("```")
            inside = False
        out.append(line.strip() if inside else line)
    if inside:
        out.append("```")
    return "\n".join(out)


def _fence(obj: griffe.Object) -> None:
    d = obj.docstring
    if d is not None and ">>>" in d.value and "```pycon" not in d.value:  # once per docstring
        d.value = fence_doctests(d.value)


class DoctestFences(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        _fence(obj)

    def on_object(self, *, obj: griffe.Object, **kwargs) -> None:
        _fence(obj)
