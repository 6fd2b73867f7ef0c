"""Running the `kinematica` command in-process for the CLI tests."""

from __future__ import annotations

import json

from kinematica.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `kinematica ARGV...`."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv: str, code: int = 0):
    """The parsed `--json` output, after checking the exit code (and a silent stderr on success)."""
    got, out, err = run(capsys, *argv, "--json")
    assert got == code, err
    if code == 0:
        assert err == ""
    return json.loads(out)
