"""`kinematica braccio connect` against the emulator on a pseudo-terminal: one link, opened
once, serving the later commands of the same --port (one READY banner in all, no second open of
the port), refusing a second controller and a second link in words, `stop` ending a running
play; and a command on a link of its own saying where Ctrl+C left the arm."""

from __future__ import annotations

import _thread
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import kinematica as km
from kinematica import hardware as hw
from kinematica.cli.braccio_link import request, socket_path
from cli_run import run, run_json

pytest.importorskip("serial")

BRACCIO = km.load("braccio")


def trajectory_file(tmp_path: Path, seconds: float, reach_deg=(30, 20, -30, -20, 40)) -> Path:
    q1 = BRACCIO.q_home + np.radians(reach_deg)
    tr = km.trajectory.quintic(BRACCIO.q_home, q1, seconds, steps=round(seconds * 50), robot=BRACCIO)
    return km.trajectory.save(tr, tmp_path / f"ramp-{seconds:g}.csv", degrees=True)


@pytest.fixture
def pty_link(tmp_path, monkeypatch):
    """An emulator on a pseudo-terminal, powered up (its boot banner out), and `connect` on it in
    a subprocess, its socket in a runtime folder of this test's own."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    emu = hw.Emulator()
    port = emu.start_pty()
    deadline = time.monotonic() + 10
    while not any(line.startswith("READY") for line in emu.log()[1]):
        assert time.monotonic() < deadline, "the emulator sent no power-up banner"
        time.sleep(0.01)
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    env["PYTHONPATH"] = str(Path(km.__file__).parents[1]) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from kinematica.cli import main; "
                             "sys.exit(main(sys.argv[1:]))", "braccio", "connect", "--port", port],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        first = proc.stdout.readline()
        assert first.startswith(f"Linked to the Braccio on {port} (protocol v2)"), proc.stderr.read()
        yield emu, port, proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        emu.stop()


def test_commands_through_connect_share_one_link_and_one_banner(capsys, pty_link, tmp_path):
    emu, port, proc = pty_link
    sock = socket_path(port)
    d = run_json(capsys, "braccio", "home", "--port", port, "--speed", "100")
    assert d["link"] == str(sock) and d["state"]["degrees"] == [90, 45, 180, 180, 90, 10]
    d = run_json(capsys, "braccio", "move", "10", "-30", "80", "90", "0", "--deg", "--port", port, "--speed", "100")
    assert d["state"]["degrees"] == [80, 60, 170, 180, 90, 10] == emu.degrees()
    d = run_json(capsys, "braccio", "play", str(trajectory_file(tmp_path, 0.4, (5, 5, -5, -5, 5))), "--port", port)
    assert d["ok"] and d["link"] == str(sock)
    d = run_json(capsys, "braccio", "state", "--port", port)
    assert d["state"]["degrees"] == emu.degrees()
    received, sent = emu.log()
    # the port was opened once: one V, one banner for the link (and the power-up one nobody read)
    assert received.count("V") == 1 and [line[-6:] for line in sent if line.startswith("READY")] == ["boot=1",
                                                                                                      "boot=0"]
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    held = emu.degrees()
    assert out.startswith("Link closed: 4 command(s) served, 0 refused; the arm holds at " + str(held))
    assert not sock.exists()


def test_a_second_controller_and_a_second_link_are_refused_in_words(capsys, pty_link, tmp_path):
    emu, port, proc = pty_link
    sock = socket_path(port)
    play = {"action": "play", "robot": "braccio", "calibration": None, "speed": 60, "rate": None, "gripper": None,
            "file": str(trajectory_file(tmp_path, 4.0, (40, 10, -30, -20, 40)))}
    answers = []
    player = threading.Thread(target=lambda: answers.append(request(sock, play, None)))
    player.start()
    deadline = time.monotonic() + 10
    while not any(line.startswith("T ") for line in emu.log()[0]):
        assert time.monotonic() < deadline and player.is_alive(), answers
        time.sleep(0.01)
    code, out, err = run(capsys, "braccio", "move", "0", "-45", "90", "90", "0", "--deg", "--port", port)
    assert code == 1 and out == "" and (f"another controller (pid {os.getpid()}, `play`) is driving the arm on "
                                        f"{port}: one controller at a time") in err
    code, out, err = run(capsys, "braccio", "connect", "--port", port)
    assert code == 1 and "a link already serves it" in err and "one controller at a time" in err
    code, out, err = run(capsys, "braccio", "connect", "--port", port, "--socket", str(tmp_path / "other.sock"))
    assert code == 1 and "another program has it open: one controller at a time" in err  # the port is locked
    code, out, err = run(capsys, "braccio", "stop", "--port", port)  # stop is always heard
    assert code == 0 and out.startswith(f"Stopped the `play` of pid {os.getpid()}: S sent, the arm holds where it was")
    player.join(timeout=10)
    result = answers[0]["data"]
    assert not result["ok"] and result["reason"].startswith("stopped on request after point")
    assert result["state"]["degrees"] == emu.degrees() and not emu.board.busy
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=20)
    assert ", 1 refused;" in out


def test_ctrl_c_on_a_play_of_its_own_says_where_the_arm_holds(capsys, tmp_path):
    path = trajectory_file(tmp_path, 3.0, (40, 10, -30, -20, 40))
    with hw.Emulator() as emu:
        def interrupt():
            while sum(line.startswith("A ") for line in emu.log()[1]) < 20:
                time.sleep(0.01)
            _thread.interrupt_main()

        threading.Thread(target=interrupt, daemon=True).start()
        code, out, err = run(capsys, "braccio", "play", str(path), "--port", emu.url)
        held = emu.degrees()
    assert code == 130
    lines = err.splitlines()
    assert lines[0].startswith("kinematica: braccio play: interrupted (Ctrl+C) after point ")
    assert lines[0].endswith(f": S sent; the arm holds at servo degrees {held}") and len(lines) == 2


def test_a_command_on_a_board_that_resets_as_its_port_opens_warns(capsys):
    with hw.Emulator(reset_on_open=True, boot_delay=0.05) as emu:  # an Uno's bootloader: 50 ms before setup()
        code, out, err = run(capsys, "braccio", "state", "--port", emu.url)
    assert code == 0 and err.startswith("kinematica: warning: the board reset when its port opened")
    assert "stty -F PORT -hupcl" in err and "State of the arm" in out


def test_a_runtime_folder_too_deep_for_a_socket_gives_way_to_the_temporary_folder(monkeypatch, tmp_path):
    deep = tmp_path / ("d" * 120)  # an AF_UNIX path holds ~107 bytes: this folder alone is longer
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    path = socket_path("/dev/ttyACM0")
    assert path.parent == Path(tempfile.gettempdir()) and len(os.fsencode(path)) <= 103
    short = Path(tempfile.mkdtemp(prefix="k", dir="/tmp"))  # short enough: used
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(short))
    assert socket_path("/dev/ttyACM0").parent == short
    short.rmdir()
