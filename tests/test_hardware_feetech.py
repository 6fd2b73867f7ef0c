"""The Feetech protocol (`hardware.feetech`) packet for packet against Feetech's own SDK
(`scservo_sdk`, package feetech-servo-sdk): the SDK writes its packets into pyserial's real
``loop://`` transport and reads our status packets back from it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from kinematica.hardware import feetech as ft

sdk = pytest.importorskip("scservo_sdk")
serial = pytest.importorskip("serial")


class Wire:
    """The SDK's port handler on a pyserial loop: what it writes can be read back."""

    def __init__(self) -> None:
        self.port = sdk.PortHandler("loop://")
        self.port.ser = serial.serial_for_url("loop://", timeout=0)
        self.port.is_open, self.port.baudrate, self.port.tx_time_per_byte = True, ft.BAUD, 0.01
        self.ph = sdk.PacketHandler(0)  # 0: little-endian words, the STS series

    def sent(self) -> bytes:
        self.port.is_using = False  # the SDK's Tx-only calls leave the port "busy" for their Rx half
        return self.port.ser.read(self.port.ser.in_waiting)


ids = st.integers(0, 253)
addresses = st.integers(0, 85)


@settings(max_examples=60, deadline=None)
@given(servo=ids, address=addresses, n=st.integers(1, 16))
def test_read_and_ping_packets_match_the_sdk(servo, address, n):
    w = Wire()
    assert w.ph.readTx(w.port, servo, address, n) == sdk.COMM_SUCCESS
    assert w.sent() == ft.read(servo, address, n)
    w.ph.txPacket(w.port, [0, 0, servo, 2, sdk.INST_PING, 0])  # the SDK's ping packet, sent alone
    assert w.sent() == ft.ping(servo)


@settings(max_examples=60, deadline=None)
@given(servo=ids, address=addresses, data=st.binary(min_size=1, max_size=8))
def test_write_packets_match_the_sdk(servo, address, data):
    w = Wire()
    assert w.ph.writeTxOnly(w.port, servo, address, len(data), list(data)) == sdk.COMM_SUCCESS
    assert w.sent() == ft.write(servo, address, data)


@settings(max_examples=60, deadline=None)
@given(servos=st.lists(st.integers(0, 253), min_size=1, max_size=6, unique=True), address=addresses,
       n=st.integers(1, 8), seed=st.integers(0, 255))
def test_sync_packets_match_the_sdk(servos, address, n, seed):
    w = Wire()
    reader = sdk.GroupSyncRead(w.port, w.ph, address, n)
    for s in servos:
        reader.addParam(s)
    assert reader.txPacket() == sdk.COMM_SUCCESS
    assert w.sent() == ft.sync_read(servos, address, n)
    writer = sdk.GroupSyncWrite(w.port, w.ph, address, n)
    data = {s: bytes((seed + 7 * s + k) & 0xFF for k in range(n)) for s in servos}
    for s in servos:
        writer.addParam(s, list(data[s]))
    writer.txPacket()
    assert w.sent() == ft.sync_write(address, data)


@settings(max_examples=60, deadline=None)
@given(servo=st.integers(0, 253), error=st.sampled_from([0, 1, 4, 32, 36]), data=st.binary(max_size=12))
def test_the_sdk_reads_our_status_packets(servo, error, data):
    w = Wire()
    w.port.ser.write(ft.status(servo, error, data))
    got, result, err = w.ph.readRx(w.port, servo, len(data))
    assert (result, err, bytes(got)) == (sdk.COMM_SUCCESS, error, data)
    assert ft.parse_status(ft.status(servo, error, data)) == ft.Status(servo, error, data)


@settings(max_examples=200, deadline=None)
@given(value=st.integers(-32767, 32767))
def test_signed_registers_encode_as_the_sdk(value):
    # the SDK's SCS_TOSCS/SCS_TOHOST: sign-and-magnitude with the sign in bit 15 (positions)
    raw = sdk.SCS_TOSCS(value, 15)
    assert ft.encode("goal_position", value) == bytes([sdk.SCS_LOBYTE(raw), sdk.SCS_HIBYTE(raw)])
    assert ft.decode("goal_position", ft.encode("goal_position", value)) == value
    assert sdk.SCS_TOHOST(int.from_bytes(ft.encode("goal_position", value), "little"), 15) == value


def test_a_corrupted_status_packet_is_refused_in_words():
    good = bytearray(ft.status(3, 0, b"\x00\x08"))
    good[5] ^= 0x10
    with pytest.raises(ft.FeetechError, match="bad checksum"):
        ft.parse_status(bytes(good))
    with pytest.raises(ft.FeetechError, match="does not fit"):
        ft.encode("present_load", 1 << 10)
    with pytest.raises(ft.FeetechError, match="one length"):
        ft.sync_write(42, {1: b"\x00\x01", 2: b"\x00"})


def test_split_packet_resynchronises_on_the_header():
    a, b = ft.status(1, 0, b"\x01"), ft.status(2, 0, b"\x02")
    raw, rest = ft.split_packet(b"\x00\x13\xff" + a + b[:4])
    assert raw == a and rest == b[:4]
    assert ft.split_packet(rest + b[4:])[0] == b
    assert ft.errors_in(0b100100) == ["over-temperature", "overload"]
