"""MkDocs hooks of the documentation site (mkdocs.yml `hooks:`): pages whose content comes from
the code, so they cannot drift from it.

- `<!-- cli-reference -->` (cli.md): every `kinematica` command's --help, from the real argparse
  parser, sub-commands included;
- `<!-- benchmark-tables -->` (benchmarks.md): the README's tables between its benchmarks markers
  (written by `python benchmarks/run.py --readme`);
- `<!-- changelog -->` (changelog.md): CHANGELOG.md.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _this_checkout() -> None:
    """Make `import kinematica` find this checkout's copy (MkDocs restores sys.path after it loads
    the hooks, so this runs when a page needs it, not at import)."""
    src = str(ROOT / "src")
    if (ROOT / "src" / "kinematica").is_dir() and sys.path[0] != src:
        sys.path.insert(0, src)
    loaded = sys.modules.get("kinematica")
    if loaded is not None and not Path(loaded.__file__).resolve().is_relative_to(ROOT / "src"):
        raise RuntimeError(f"kinematica was imported from {loaded.__file__}, not from {src}")


def _subparsers(p: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction):
            return dict(a.choices)
    return {}


def cli_reference() -> str:
    """Markdown: one section per command (and per action of commands that have them)."""
    os.environ["COLUMNS"] = "100"  # argparse wraps at the terminal's width: fix it for the page
    _this_checkout()
    from kinematica.cli import build_parser

    top = build_parser()
    top.prog = "kinematica"
    out = ["```text", top.format_help().rstrip(), "```"]
    for name, p in _subparsers(top).items():
        out += [f"\n## `kinematica {name}`\n", "```text", p.format_help().rstrip(), "```"]
        for action, sp in _subparsers(p).items():
            out += [f"\n### `kinematica {name} {action}`\n", "```text", sp.format_help().rstrip(), "```"]
    return "\n".join(out)


def benchmark_tables() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- benchmarks:start[^>]*-->(.*?)<!-- benchmarks:end -->", text, re.DOTALL)
    if m is None:
        raise ValueError("README.md has no <!-- benchmarks:start … benchmarks:end --> section")
    return m.group(1).strip()


def changelog() -> str:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return text.split("\n", 1)[1] if text.startswith("# ") else text  # the page has its own title


MARKERS = {"<!-- cli-reference -->": cli_reference, "<!-- benchmark-tables -->": benchmark_tables,
           "<!-- changelog -->": changelog}


def on_page_markdown(markdown: str, page, config, files) -> str:
    for marker, make in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown


# nbconvert's page template (used by mkdocs-jupyter) loads Mermaid from cdnjs when a notebook
# has a diagram (ours have none) and MathJax from an empty `src` (a request for the page itself):
# both are cut, so a notebook page asks nothing of the network.
_MERMAID = re.compile(r'<script type="module">\s*document\.addEventListener\("DOMContentLoaded", async \(\) => \{\s*'
                      r'const diagrams = document\.querySelectorAll\("\.jp-Mermaid.*?</script>', re.DOTALL)
_EMPTY_SCRIPT = re.compile(r'<script src="">\s*</script>')


def on_post_page(output: str, page, config) -> str:
    if page.file.src_uri.endswith(".ipynb"):
        output, n = _MERMAID.subn("", output)
        if n != 1 and "jp-Mermaid" in output:
            raise ValueError(f"{page.file.src_uri}: nbconvert's Mermaid loader changed; update docs_hooks.py")
        output = _EMPTY_SCRIPT.sub("", output)
    return output
