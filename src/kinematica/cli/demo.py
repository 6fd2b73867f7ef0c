"""`kinematica demo`: the papers' worked examples (kinematica/demo.py), recomputed and printed."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from .. import demo as worked
from . import text
from .common import emit


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    results = [(ex, worked.run(ex)) for ex in worked.EXAMPLES]
    data = [{"paper": ex.paper, "title": ex.title, "robot": ex.robot,
             "checks": [vars(c) for c in checks]} for ex, checks in results]
    return emit(args, data, lambda _: text.demo_text(results), out)


def add_parser(sub: Any) -> None:
    """The subparser of demo."""
    p = sub.add_parser("demo", help="reproduce the papers' worked examples")
    p.set_defaults(func=cmd_demo)
