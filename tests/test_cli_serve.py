"""`kinematica serve`: its errors before the server starts, and the real server in a subprocess
(the page and every asset it names come from this machine)."""

from __future__ import annotations

import json
import re
import socket
from urllib.parse import urljoin, urlparse

import pytest

from kinematica.cli.serve import choose_port, port_free
from serving import Server, fetch
from cli_run import run




def test_help_lists_serve(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "serve" in out
    code, out, _ = run(capsys, "serve", "--help")
    assert code == 0
    for flag in ("--robot", "--port", "--host", "--no-browser"):
        assert flag in out


@pytest.mark.parametrize("argv, words", [
    (["--robot", "nosuch"], "unknown robot 'nosuch'"),
    (["--robot", "missing.yaml"], "robot file not found: missing.yaml"),
    (["--port", "0"], "--port must be between 1 and 65535"),
    (["--port", "http"], "invalid int value"),
    (["--host", "no.such.host.invalid"], "--host no.such.host.invalid"),
])
def test_bad_input_is_one_line_and_exit_2_before_serving(capsys, argv, words):
    code, out, err = run(capsys, "serve", "--no-browser", *argv)
    assert code == 2 and out == ""
    assert err.startswith("kinematica: error: ") and words in err and err.count("\n") == 1


def test_a_port_in_use_is_refused_in_words(capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert not port_free("127.0.0.1", port)
        code, _, err = run(capsys, "serve", "--no-browser", "--port", str(port))
    assert code == 2 and f"port {port} on 127.0.0.1 is in use" in err


def test_without_a_port_the_first_free_one_from_8080_is_taken():
    port = choose_port("127.0.0.1", None)
    assert 8080 <= port < 8100 and port_free("127.0.0.1", port)


def test_the_server_serves_the_simulator_and_every_asset_locally():
    with Server(None, "--json") as server:
        with fetch(server.url) as r:
            html = r.read().decode()
        assert "<title>Kinematica — robot simulator</title>" in html
        refs = re.findall(r'(?:src|href)="([^"]+)"', html) + re.findall(r'"(/_nicegui/[^"]+)"', html)
        assert refs
        for ref in refs:
            url = urljoin(server.url, ref)
            if url.startswith("data:"):
                continue
            assert urlparse(url).hostname == "127.0.0.1", f"{ref} is not served locally"
        for ref in [r for r in refs if r.endswith((".js", ".css"))][:6]:
            with fetch(urljoin(server.url, ref)) as asset:
                assert asset.status == 200 and asset.read()
        first = server.output().splitlines()[0]
    assert json.loads(first) == {"url": server.url, "robot": "braccio", "browser": False}
