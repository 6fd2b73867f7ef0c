"""The live joint-state stream (kinematica.export.jointstate): the schema of a line, refusals,
and real receivers — the example client in examples/ as a subprocess, a UDP socket — getting
every sample of a trajectory played on the Braccio emulator and in the simulator, in order."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from cli_run import run

import kinematica as km
from kinematica import hardware as hw
from kinematica.export.jointstate import JointStateSender, StreamError, message, parse_url

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "examples" / "joint_state_client.py"
SCHEMA = json.loads((resources.files("kinematica.export") / "joint_state.schema.json").read_text())
BRACCIO = km.load("braccio")


class Receiver:
    """A UDP socket on a free 127.0.0.1 port that collects JSON lines."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(5.0)  # a generous bound against hanging, not a speed check
        self.url = f"udp://127.0.0.1:{self.sock.getsockname()[1]}"

    def lines(self, quiet: float = 0.3) -> list[dict]:
        """Every line received until the socket has been silent for `quiet` s."""
        self.sock.settimeout(quiet)
        out = []
        while True:
            try:
                out.append(json.loads(self.sock.recv(65536)))
            except TimeoutError:
                return out

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def rx():
    r = Receiver()
    yield r
    r.close()


def test_a_line_follows_the_schema_with_units_per_joint(rx):
    robot = km.from_dh([{"type": "prismatic", "alpha": -np.pi / 2, "limits": [0, 1]},  # prismatic and revolute
                        {"a": 0.3, "limits": [-2, 2]}])
    q = np.linspace(0.1, 0.6, robot.n)
    with JointStateSender(rx.url, robot, source="test") as tx:
        assert [tx.send(q, t=0.5), tx.send(q)] == [0, 1]
    a, b = rx.lines()
    for m in (a, b):
        jsonschema.validate(m, SCHEMA)
    assert a["q"] == q.tolist() and a["t"] == 0.5 and b["t"] is None and (a["seq"], b["seq"]) == (0, 1)
    assert a["units"] == ["rad" if r else robot.length_unit for r in robot.revolute]
    assert "m" in a["units"] and a["joint_names"] == list(robot.joint_names) and a["source"] == "test"


@pytest.mark.parametrize("url, words", [
    ("tcp://127.0.0.1:9870", "only udp://HOST:PORT"), ("udp://127.0.0.1", "with a port 1–65535"),
    ("udp://127.0.0.1:99999", "with a port 1–65535"), ("udp://:9870", "with a port"), (9870, "must be a string")])
def test_bad_addresses_are_refused_in_words(url, words):
    with pytest.raises(StreamError, match=words):
        parse_url(url)


def test_bad_samples_are_refused_and_nothing_is_sent(rx):
    with JointStateSender(rx.url, BRACCIO) as tx:
        for q, words in (([0.0, 1.0], "expected 5 finite joint values, got shape"),
                         ([0, 0, np.nan, 0, 0], "NaN or inf")):
            with pytest.raises(StreamError, match=words):
                tx.send(q)
        with pytest.raises(StreamError, match="time must be finite"):
            tx.send(BRACCIO.q_home, t=float("inf"))
        assert tx.seq == 0
    assert message(BRACCIO, BRACCIO.q_home, 3)["seq"] == 3
    assert rx.lines(0.1) == []


def test_a_sender_without_a_listener_goes_on():
    """Nobody listens: the datagrams are dropped, the sender neither blocks nor fails."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.bind(("127.0.0.1", 0))
    url = f"udp://127.0.0.1:{probe.getsockname()[1]}"
    probe.close()  # the port is now (almost surely) closed
    with JointStateSender(url, BRACCIO) as tx:
        for _ in range(3):
            tx.send(BRACCIO.q_home)
        assert tx.seq == 3


# --- the Braccio: every acknowledged point, to the example client ------------------------------------
@pytest.fixture
def played(tmp_path):
    """A 100-point quintic from home (peak 76 °/s, under the board's 100), saved as the CLI reads
    it; returns (file, trajectory as read)."""
    q1 = BRACCIO.q_home + np.radians([30, 20, -30, -20, 40])
    tr = km.trajectory.quintic(BRACCIO.q_home, q1, 0.99, steps=99, robot=BRACCIO)
    path = km.trajectory.save(tr, tmp_path / "ramp.json")
    return path, km.trajectory.load(path)


def start_client(*argv: str) -> tuple[subprocess.Popen, str]:
    """The example client on a free port; returns it and its stream URL (from its first line)."""
    proc = subprocess.Popen([sys.executable, str(CLIENT), "--port", "0", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    assert first.startswith("listening on udp://127.0.0.1:"), first + proc.stderr.read()
    return proc, first.split()[-1]


def test_braccio_play_streams_every_point_in_order_to_the_example_client(capsys, played):
    path, tr = played
    proc, url = start_client("--json", "--count", str(len(tr)))
    try:
        with hw.Emulator() as emu:
            code, out, err = run(capsys, "braccio", "play", str(path), "--port", emu.url, "--stream", url, "--json")
        assert code == 0, err
        lines, errors = proc.communicate(timeout=30)
    finally:
        proc.kill()
    got = [json.loads(line) for line in lines.splitlines()]
    assert errors == "" and len(got) == len(tr) == json.loads(out)["acknowledged"]
    assert [m["seq"] for m in got] == list(range(len(tr)))
    # the exact samples: JSON keeps a float's 17 digits, so equality holds to round-off
    np.testing.assert_allclose([m["t"] for m in got], tr.t, rtol=0, atol=1e-12)
    np.testing.assert_allclose([m["q"] for m in got], tr.q, rtol=0, atol=1e-12)
    assert {m["source"] for m in got} == {"braccio"} and got[0]["robot"] == "braccio"
    for m in got:  # commanded, not measured: the hobby servos report nothing
        jsonschema.validate(m, SCHEMA)
        assert m["measured"] is False and m["commanded"] == m["q"]


def test_braccio_move_streams_the_commanded_state(capsys, rx):
    with hw.Emulator() as emu:
        code, out, err = run(capsys, "braccio", "move", "10", "-30", "80", "90", "0", "--deg", "--speed", "100",
                             "--port", emu.url, "--stream", rx.url, "--json")
    assert code == 0, err
    (m,) = rx.lines()
    np.testing.assert_allclose(m["q"], json.loads(out)["state"]["q"], rtol=0, atol=1e-12)
    assert m["t"] is None and m["seq"] == 0
    assert m["measured"] is False and m["commanded"] == m["q"]
    jsonschema.validate(m, SCHEMA)


def test_a_bad_stream_address_is_refused_before_the_port_opens(capsys):
    with hw.Emulator() as emu:
        code, out, err = run(capsys, "braccio", "home", "--port", emu.url, "--stream", "tcp://127.0.0.1:1")
        assert emu.connections == 0
    assert code == 2 and out == "" and err.startswith("kinematica: error: --stream:") and err.count("\n") == 1
    for bad in ("udp://nohost", "udp://no-such-host.invalid:9870"):  # .invalid never resolves (RFC 2606)
        code, _, err = run(capsys, "serve", "--no-browser", "--stream", bad)
        assert code == 2 and err.startswith("kinematica: error: --stream:") and err.count("\n") == 1


# --- the simulator: every frame of a playback ------------------------------------------------------
@pytest.mark.asyncio
async def test_the_simulator_streams_every_frame_it_plays(user, rx):
    from app_user import one

    from kinematica.app import playlist as pl
    from kinematica.app import stream
    from kinematica.app.playlist import q_at
    from kinematica.app.state import Session

    stream.start(rx.url)
    try:
        one(user, "joint-2-slider").value = -30
        moved = rx.lines(0.2)  # a slider: the new joint state, outside any playback
        assert moved and moved[-1]["t"] is None and moved[-1]["source"] == "simulator"
        assert moved[-1]["q"][1] == pytest.approx(np.radians(-30), abs=1e-12) and moved[-1]["robot"] == "braccio"
        user.find(marker="pose-add").click()
        one(user, "joint-1-slider").value = 40
        user.find(marker="pose-add").click()
        one(user, "plan-seconds").value = 0.3
        await user.should_see("2 poses, 0.3 s, joint space.")
        user.find(marker="pose-1-goto").click()
        rx.lines(0.2)  # what the sliders sent so far
        user.find(marker="player-play").click()
        for _ in range(200):  # until the player stops at the end (its button shows "play" again)
            await asyncio.sleep(0.05)
            if one(user, "player-play").props.get("icon") == "play_arrow":
                break
        assert one(user, "player-time").text.startswith(" 0.30 / 0.30")
        got = rx.lines()  # blocks the event loop: only after the playback has ended
    finally:
        stream.start(None)
    played = [m for m in got if m["t"] is not None]
    assert len(played) >= 3  # ~30 frames a second for 0.3 s, fewer on a busy machine
    seqs = [m["seq"] for m in got]
    assert seqs == list(range(seqs[0], seqs[0] + len(got)))  # none lost, in order
    t = np.array([m["t"] for m in played])
    assert np.all(np.diff(t) > 0) and t[-1] == pytest.approx(0.3)
    # the same plan rebuilt from the same two poses: each frame's q lies on it at its t
    s = Session()
    q = s.q.copy()
    q[1] = np.radians(-30)
    pl.add_pose(s, q)
    q[0] = np.radians(40)
    pl.add_pose(s, q)
    s.plan.seconds = 0.3
    tr, _ = pl.plan(s)
    for m in played:
        np.testing.assert_allclose(m["q"], q_at(tr, m["t"]), rtol=0, atol=1e-9)
