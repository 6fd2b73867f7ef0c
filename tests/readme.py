"""The README's examples, and printed text compared the way a reader compares it.

A console example is the same as the output when its words are the same and each number is the
same within a tolerance: round-off printed in full (a residual of 1.1e-16 here, 1.7e-16 on
another CPU) and a last printed digit that rounds the other way on another machine must not fail
the suite, while a changed result must.

>>> assert_same_text("error 1.1e-16 mm, q = 18.4350°", "error 1.7e-16 mm, q = 18.4349°")
>>> assert_same_text("12 iterations", "13 iterations")
Traceback (most recent call last):
...
AssertionError: number 1 differs: 12 printed, 13 expected
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# What a reader reads: the README and the documentation pages it links to. Examples moved from
# one to the other stay checked, wherever they now live.
PAGES = (README, *sorted((ROOT / "docs").glob("*.md")))

# A printed number: optional sign (ASCII or the typographic minus), digits, decimals, exponent.
_NUMBER = re.compile(r"[-+−]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _level(line: str) -> int:
    """The Markdown heading level of `line` (0 when it is not a heading)."""
    hashes = len(line) - len(line.lstrip("#"))
    return hashes if 0 < hashes <= 6 and line[hashes:hashes + 1] == " " else 0


def section(heading: str, page: str | None = None) -> str:
    """The text from the line `heading` (e.g. "## The simulator") up to the next heading of the
    same or a higher level, in `page` (a path from the repository's root) or else the first page
    that has it; headings inside code fences do not count."""
    for page in (ROOT / page,) if page else PAGES:
        lines = page.read_text(encoding="utf-8").splitlines(keepends=True)
        starts = [i for i, line in enumerate(lines) if line.rstrip() == heading]
        if not starts:
            continue
        level, out, fence = _level(heading), [], False
        for line in lines[starts[0]:]:
            if line.startswith("```"):
                fence = not fence
            elif out and not fence and 0 < _level(line) <= level:
                break
            out.append(line)
        return "".join(out)
    raise KeyError(f"no heading {heading!r} in {page or 'the README or docs/*.md'}")


def blocks(lang: str, heading: str | None = None, page: str | None = None) -> list[str]:
    """The fenced blocks of one language in the README and the docs pages, optionally only in the
    section `heading` (of `page`)."""
    texts = [p.read_text(encoding="utf-8") for p in PAGES] if heading is None else [section(heading, page)]
    return [b.split("```", 1)[0] for text in texts for b in text.split(f"```{lang}\n")[1:]]


def _last_place(token: str) -> float:
    """One unit in the last printed digit: 1e-4 for '18.4350', 1e-17 for '1.7e-16'; 0 for an
    integer, which is a count (iterations, solutions) and has no rounding to flip."""
    if not any(c in token for c in ".eE"):
        return 0.0
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.split(".", 1)[1]) if "." in mantissa else 0
    return 10.0 ** (int(exponent or 0) - decimals)


def _split(text: str) -> tuple[list[str], list[str]]:
    words = [" ".join(w.split()) for w in _NUMBER.split(text)]
    return words, _NUMBER.findall(text)


def assert_same_text(got: str, expected: str, *, atol: float = 1e-9, rtol: float = 1e-9,
                     what: str = "") -> None:
    """Assert `got` reads as `expected`: the same words (runs of spaces folded, since a number's
    width moves the columns) and numbers equal within atol + rtol·|x| + one unit in the expected
    number's last printed digit.

    atol is in the printed units: the default 1e-9 covers round-off residuals (~1e-16 of values
    of order one) printed as numbers, while any quantity a reader would act on differs by more.
    """
    got_words, got_numbers = _split(got.rstrip())
    exp_words, exp_numbers = _split(expected.rstrip())
    prefix = f"{what}: " if what else ""
    if got_words != exp_words or len(got_numbers) != len(exp_numbers):
        raise AssertionError(f"{prefix}the words differ:\n--- printed\n{got}\n--- expected\n{expected}")
    for i, (g, e) in enumerate(zip(got_numbers, exp_numbers), 1):
        a, b = float(g.replace("−", "-")), float(e.replace("−", "-"))
        if abs(a - b) > atol + rtol * abs(b) + _last_place(e) * (1 + 1e-9):
            raise AssertionError(f"{prefix}number {i} differs: {g} printed, {e} expected")


def same_text(got: str, expected: str, **tolerances: float) -> bool:
    """Whether assert_same_text(got, expected, **tolerances) holds."""
    try:
        assert_same_text(got, expected, **tolerances)
    except AssertionError:
        return False
    return True


def contains_text(text: str, needle: str, **tolerances: float) -> bool:
    """Whether `text` holds a passage that reads as `needle` (see assert_same_text): the page shows
    'M1 18.43°' and the README says 'M1 18.43°', or 'M1 18.44°' where the last digit rounded the
    other way on the machine that wrote it.

    >>> contains_text("the arm at M1 18.43°, M2 −12.37°", "M2 -12.38°")
    True
    >>> contains_text("the arm at M1 18.43°, M2 −12.37°", "M2 -12.5°")
    False
    """
    words, numbers = _split(needle)
    pattern = r"\s*".join(
        part for i, w in enumerate(words)
        for part in ([re.escape(w).replace(r"\ ", r"\s+")] + ([f"({_NUMBER.pattern})"] if i < len(numbers) else []))
        if part)
    for match in re.finditer(pattern, text):
        if same_text(match.group(0), needle, **tolerances):
            return True
    return False
