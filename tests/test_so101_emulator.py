"""The SO-101 bus emulator speaks Feetech's protocol: Feetech's own SDK (`scservo_sdk`) pings,
reads, writes and sync-reads its six servos on a pseudo-terminal, and the servos move within
their speed and acceleration limits."""

from __future__ import annotations

import sys
import time

import pytest

from kinematica.hardware import feetech as ft
from kinematica.hardware.so101_emulator import IDS, BusFault, So101Emulator
from kinematica.hardware.sts_servo import Imperfection, Servo

sdk = pytest.importorskip("scservo_sdk")
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")


@pytest.fixture
def pty_bus():
    emu = So101Emulator()
    path = emu.start_pty()
    port = sdk.PortHandler(path)
    assert port.openPort()
    yield emu, port, sdk.PacketHandler(0)
    port.closePort()
    emu.stop()


def tried(call, *args):
    """The SDK's call, tried up to 5 times: its deadline (2 × 16 ms latency timer + 2 ms) is shorter
    than a loaded test machine's scheduling delays (our bus retries likewise)."""
    for _ in range(5):
        got = call(*args)
        if got[1] == sdk.COMM_SUCCESS:
            return got
    return got


def test_the_sdk_pings_and_reads_all_six_servos(pty_bus):
    _, port, ph = pty_bus
    for i in IDS:
        model, result, error = tried(ph.ping, port, i)
        assert (model, result, error) == (ft.STS3215_MODEL, sdk.COMM_SUCCESS, 0), i
        position, result, error = tried(ph.read2ByteTxRx, port, i, ft.TABLE["present_position"].address)
        assert (position, result, error) == (2048, sdk.COMM_SUCCESS, 0)
        volts, result, _ = tried(ph.read1ByteTxRx, port, i, ft.TABLE["present_voltage"].address)
        assert (volts, result) == (120, sdk.COMM_SUCCESS)
    _, result, _ = ph.ping(port, 7)  # no servo 7 on the bus: no answer
    assert result == sdk.COMM_RX_TIMEOUT


def test_the_sdk_moves_a_servo_and_sync_reads_the_bus(pty_bus):
    emu, port, ph = pty_bus
    # a write's status may miss the SDK's deadline under load: the positions read below tell
    assert ph.write1ByteTxRx(port, 3, ft.TABLE["torque_enable"].address, 1)[0] in (sdk.COMM_SUCCESS, sdk.COMM_RX_TIMEOUT)
    assert ph.write2ByteTxRx(port, 3, ft.TABLE["goal_position"].address, 2148)[0] in (sdk.COMM_SUCCESS, sdk.COMM_RX_TIMEOUT)
    time.sleep(0.3)  # 100 ticks at up to 3400 ticks/s: well within 0.3 s
    reader = sdk.GroupSyncRead(port, ph, ft.TABLE["present_position"].address, 2)
    for i in IDS:
        reader.addParam(i)
    assert tried(lambda: (None, reader.txRxPacket()))[1] == sdk.COMM_SUCCESS
    got = {i: reader.getData(i, ft.TABLE["present_position"].address, 2) for i in IDS}
    assert got == {**dict.fromkeys(IDS, 2048), 3: 2148}
    assert abs(emu.positions()[3] - 2148) < 1e-9


def test_a_servo_respects_its_speed_and_acceleration():
    s = Servo(1)
    s.write(ft.TABLE["torque_enable"].address, b"\x01")
    s.write(ft.TABLE["acceleration"].address, ft.encode("acceleration", 10))  # 1000 ticks/s²
    s.write(ft.TABLE["goal_speed"].address, ft.encode("goal_speed", 500))
    s.write(ft.TABLE["goal_position"].address, ft.encode("goal_position", 3048))
    speeds = []
    for _ in range(400):  # 4 s in 10 ms steps: 1000 ticks at 500 ticks/s take 2.5 s with the ramps
        before = s.speed
        s.step(0.01)
        speeds.append(s.speed)
        if s.shaft != 3048:  # the step that lands on the goal stops there (one step's rounding)
            assert abs(s.speed - before) <= 1000 * 0.01 + 1e-9
    assert max(speeds) == pytest.approx(500)
    assert s.shaft == 3048


def test_imperfections_show_in_the_reading():
    s = Servo(2, imperfection=Imperfection(noise=0.0, backlash=6, sag=10))
    s.write(ft.TABLE["torque_enable"].address, b"\x01")
    s.write(ft.TABLE["goal_position"].address, ft.encode("goal_position", 2100))
    for _ in range(100):
        s.step(0.01)
    # reading = shaft − sag − direction · backlash / 2, moving up: 2100 − 10 − 3
    assert ft.decode("present_position", s.read(56, 2)) == 2087
    assert ft.decode("present_load", s.read(60, 2)) < 0  # holding against the sag


def test_faults_happen_when_scheduled():
    emu = So101Emulator(fault=BusFault(silent=(2, 2), overload=(4, 1)))
    assert emu._answer(ft.ping(2)) != []
    assert emu._answer(ft.ping(2)) == []  # its second packet: silent from now on
    reply = emu._answer(ft.read(4, 56, 2))
    assert ft.parse_status(reply[0]).error == 1 << 5
    assert emu._answer(ft.ping(5)[:-1] + b"\x00") == []  # a bad checksum gets no answer
