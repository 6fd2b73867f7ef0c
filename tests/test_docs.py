"""The documentation site: built by `bash scripts/docs.sh` (MkDocs, strict) from this checkout,
offline — every page of the nav there, no page loading anything from outside, the API reference
covering every public name, the CLI reference every command — and the examples on its pages
run: every ```python block, and the `kinematica` commands of the Home and Getting started pages.
`kinematica docs` serves the built site on 127.0.0.1."""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

import kinematica as km
from kinematica.cli import build_parser, main

pytest.importorskip("mkdocs", reason="the docs extra (in the test extra) builds the site")

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CLI_PAGES = ("index.md", "getting-started.md")  # their `kinematica …` lines are run


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run(["bash", str(ROOT / "scripts" / "docs.sh"), str(out)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    return out


def nav_pages(nav) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [p for v in nav.values() for p in nav_pages(v)]
    return [p for item in nav for p in nav_pages(item)]


class Resources(HTMLParser):
    """What a page loads: scripts, stylesheets, icons, images, frames (links to read are not loads)."""

    def __init__(self) -> None:
        super().__init__()
        self.loads: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "img", "iframe", "source", "audio", "video") and a.get("src") is not None:
            self.loads.append(a["src"])
        if tag == "link" and a.get("href") and set((a.get("rel") or "").split()) & {
                "stylesheet", "icon", "preload", "modulepreload", "manifest"}:
            self.loads.append(a["href"])


def test_every_page_of_the_nav_is_built(site):
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    pages = nav_pages(config["nav"])
    assert len(pages) >= 20
    for page in pages:
        html = site / re.sub(r"\.(md|ipynb)$", ".html", page)
        assert html.is_file(), page
    assert sorted(p for p in pages if p.endswith(".ipynb")) == sorted(
        f"notebooks/{p.name}" for p in (DOCS / "notebooks").glob("*.ipynb"))


def test_no_page_loads_anything_from_outside(site):
    outside = []
    for html in site.rglob("*.html"):
        parser = Resources()
        parser.feed(html.read_text(encoding="utf-8"))
        assert parser.loads, html  # every page loads its theme: the parser saw them
        outside += [(html.name, u) for u in parser.loads if re.match(r"(https?:)?//", u) or u == ""]
        assert "cdnjs" not in html.read_text(encoding="utf-8"), html
    for css in site.rglob("*.css"):
        assert not re.search(r"@import\s+url\(['\"]?(https?:)?//", css.read_text(encoding="utf-8")), css
    assert outside == []


def test_the_references_cover_every_public_name_and_command(site):
    api = (site / "api.html").read_text(encoding="utf-8")
    ids = set(re.findall(r'id="(kinematica\.[A-Za-z_.]+)"', api))
    assert [n for n in km.__all__ if not any(i.endswith("." + n) for i in ids)] == []
    cli = (site / "cli.html").read_text(encoding="utf-8")
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name in sub.choices:
        assert f"<code>kinematica {name}</code>" in cli, name
    assert "kinematica braccio play" in cli and "--stream" in cli
    bench = (site / "benchmarks.html").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_row = re.search(r"<!-- benchmarks:start.*?\n\| ([^|]+) \|", readme, re.DOTALL).group(1).strip()
    assert first_row in bench


def python_blocks(page: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", (DOCS / page).read_text(encoding="utf-8"), re.DOTALL | re.MULTILINE)


EXAMPLE_PAGES = sorted(p.name for p in DOCS.glob("*.md") if python_blocks(p.name))


def test_the_pages_have_examples():
    assert {"getting-started.md", "concepts.md", "ik-methods.md", "trajectories.md", "index.md"} <= set(EXAMPLE_PAGES)


@pytest.mark.parametrize("page", EXAMPLE_PAGES)
def test_the_python_examples_on_the_page_run(page, tmp_path, monkeypatch):
    blocks = python_blocks(page)
    monkeypatch.chdir(tmp_path)  # any file an example writes lands here
    namespace: dict = {"__name__": "__docs__"}
    for i, block in enumerate(blocks):
        exec(compile(block, f"{page} block {i + 1}", "exec"), namespace)  # noqa: S102 — the page's own examples


@pytest.mark.parametrize("page", CLI_PAGES)
def test_the_commands_on_the_page_run(page, capsys):
    text = (DOCS / page).read_text(encoding="utf-8")
    lines = [line.split("#")[0].strip() for block in re.findall(r"^```bash\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
             for line in block.splitlines()]
    commands = [shlex.split(line)[1:] for line in lines if line.startswith("kinematica ")
                and line.split()[1] not in ("serve", "docs")]  # those serve until stopped
    assert commands
    for argv in commands:
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 0, f"kinematica {' '.join(argv)}: {err}"
        assert out


def test_kinematica_docs_serves_the_built_site(site):
    from serving import free_port

    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from kinematica.cli import main; sys.exit(main())",
                             "docs", "--site", str(site), "--port", str(port), "--no-browser", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        first = json.loads(proc.stdout.readline() or "{}")
        assert first.get("url") == f"http://127.0.0.1:{port}/", proc.stderr.read() if proc.poll() is not None else first
        for path in ("", "api.html", "notebooks/paper-000-planar-braccio.html", "search/search_index.json"):
            with urllib.request.urlopen(first["url"] + path, timeout=30) as r:
                assert r.status == 200 and len(r.read()) > 1000, path
        css = re.search(r'href="(assets/stylesheets/main[^"]+\.css)"', (site / "index.html").read_text()).group(1)
        with urllib.request.urlopen(first["url"] + css, timeout=30) as r:
            assert r.status == 200
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=30)
    assert code == 130  # Ctrl+C: the CLI's exit code for an interrupted command


def test_docs_refuses_a_folder_without_a_site(capsys, tmp_path):
    code = main(["docs", "--site", str(tmp_path), "--no-browser"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.startswith("kinematica: error: --site") and err.count("\n") == 1
