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
    """The parsed `--json` output, after checking the exit code (and that stderr holds nothing
    but warnings on success: a joint outside its limits is accepted with one)."""
    got, out, err = run(capsys, *argv, "--json")
    assert got == code, err
    if code == 0:
        assert all(line.startswith("kinematica: warning: ") for line in err.splitlines()), err
    return json.loads(out)
