"""`kinematica docs`: serve the documentation site on 127.0.0.1, offline.

The site is built by MkDocs from a source checkout (`bash scripts/docs.sh`, the `docs` extra)
into its `site/` folder; `kinematica docs` serves that folder (or `--site DIR`), building it
first when a checkout holds mkdocs.yml but no built site yet. Every page and asset comes from
this machine: the site uses system fonts and no CDN.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from .common import Failure, UsageError
from .serve import choose_port

DEFAULT_PORT = 8000


def checkout() -> Path | None:
    """The source checkout this kinematica runs from (the folder holding mkdocs.yml), if any."""
    root = Path(__file__).resolve().parents[3]  # src/kinematica/cli/docs.py → the checkout
    return root if (root / "mkdocs.yml").is_file() else None


def build(root: Path, out: TextIO) -> Path:
    """`mkdocs build --strict` of the checkout into root/site; Failure with MkDocs' complaint."""
    import subprocess

    from ..extras import require

    require("docs", "building the documentation site")  # names the extra before anything runs
    out.write(f"Building the site from {root / 'mkdocs.yml'} (mkdocs build --strict)…\n")
    out.flush()
    try:
        run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", "--site-dir",
                              str(root / "site")], cwd=root, capture_output=True, text=True, check=False)
    except OSError as e:
        raise Failure(f"cannot run mkdocs: {e}") from None
    if run.returncode != 0:
        last = [line for line in run.stderr.splitlines() if "WARNING" in line or "ERROR" in line or "Error" in line]
        raise Failure("mkdocs build --strict failed: " + (last[-1].strip() if last else run.stderr.strip()[-300:]))
    return root / "site"


def find_site(args: argparse.Namespace, out: TextIO) -> Path:
    if args.site is not None:
        site = Path(args.site)
        if not (site / "index.html").is_file():
            raise UsageError(f"--site {site}: no index.html there (build the site with `bash scripts/docs.sh`)")
        return site
    root = checkout()
    if root is None:
        raise UsageError("no documentation site here: build it in a source checkout with `bash scripts/docs.sh` "
                         "and serve it with `kinematica docs --site DIR`")
    if args.build or not (root / "site" / "index.html").is_file():
        return build(root, out)
    return root / "site"


def cmd_docs(args: argparse.Namespace, out: TextIO) -> int:
    import http.server  # here, not at import: the other commands start faster without it
    import webbrowser

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass  # one line per request would bury the address in the terminal

    site = find_site(args, out).resolve()
    port = choose_port(args.host, args.port, DEFAULT_PORT)

    def handler(*a: Any, **kw: Any) -> Quiet:
        return Quiet(*a, directory=str(site), **kw)

    server = http.server.ThreadingHTTPServer((args.host, port), handler)
    url = f"http://{args.host}:{server.server_address[1]}/"
    if args.json:
        out.write(json.dumps({"url": url, "site": str(site)}) + "\n")
    else:
        out.write(f"Kinematica documentation ({site}) at {url}; Ctrl+C stops it\n")
    out.flush()
    if not args.no_browser:
        webbrowser.open(url)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


def add_parser(sub: Any) -> None:
    """The subparser of docs."""
    p = sub.add_parser("docs", help="serve the documentation site on localhost (offline)",
                       description="Serve the documentation site — tutorials, how-to pages, concepts, the API "
                                   "and command-line reference — on this machine. In a source checkout the "
                                   "site is built first if it is not yet (MkDocs, the docs extra).")
    p.add_argument("--site", metavar="DIR", help="a built site to serve (default: the checkout's site/)")
    p.add_argument("--build", action="store_true", help="rebuild the site first (mkdocs build --strict)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=None, help=f"port (default the first free one from {DEFAULT_PORT})")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.set_defaults(func=cmd_docs)
