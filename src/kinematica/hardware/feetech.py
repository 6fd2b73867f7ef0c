"""The Feetech STS/SMS bus protocol (the SO-101's STS3215 servos): packets built and parsed,
checksums, and the STS3215 control table. Pure functions over bytes; the link is `feetech_bus`.

Half-duplex TTL at 1 000 000 baud by default. An instruction packet and a servo's status packet:

    FF FF  id  length  instruction  p0 … pk  checksum          (host → servo)
    FF FF  id  length  error        d0 … dk  checksum          (servo → host)

`length` counts the bytes after it (instruction/error, parameters, checksum): k + 3, and the
checksum is the low byte of the complement of the sum of every byte from `id` to the last
parameter: ``~(id + length + instruction + Σp) & 0xFF``. Id 0xFE broadcasts (no servo answers).

  PING 0x01          → an empty status packet
  READ 0x02          [address, n]                     → the n bytes at address
  WRITE 0x03         [address, d0 … dk]               → an empty status packet
  SYNC READ 0x82     to 0xFE: [address, n, id1 … idm] → each servo answers its n bytes, in the
                     order the ids are listed
  SYNC WRITE 0x83    to 0xFE: [address, n, id1, d…, id2, d…, …]  (no answer)

Multi-byte values are little-endian (the STS series; the older SCS is big-endian). Signed
registers use sign-and-magnitude with the sign in a stated bit (position 15, load 10, homing
offset 11), not two's complement. The status packet's `error` byte flags faults: bit 0 input
voltage, 1 angle sensor, 2 over-temperature, 3 over-current, 5 overload.

>>> ping(1).hex(" ")
'ff ff 01 02 01 fb'
>>> parse_status(bytes.fromhex("ff ff 01 04 00 00 08 f2"))
Status(id=1, error=0, data=b'\\x00\\x08')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import KinematicaError

BAUD = 1_000_000
BROADCAST = 0xFE
HEADER = b"\xff\xff"
PING, READ, WRITE, SYNC_READ, SYNC_WRITE = 0x01, 0x02, 0x03, 0x82, 0x83
MAX_PACKET = 250  # bytes: the servos' receive buffer (and the SDK's limit)
STS3215_MODEL = 777  # the Model_Number register of an STS3215
TICKS = 4096  # per turn: 12-bit magnetic encoder, 0.0879° a tick

ERROR_BITS = {0: "input voltage out of range", 1: "angle sensor error", 2: "over-temperature",
              3: "over-current", 5: "overload"}


class FeetechError(KinematicaError, ValueError):
    """Bytes that are not a valid Feetech packet, or a value that does not fit a register."""


@dataclass(frozen=True)
class Register:
    """One entry of the control table: address, size in bytes (1 or 2), the bit holding the sign
    (sign-and-magnitude) or None, and whether it sits in EEPROM (written only when unlocked)."""

    address: int
    size: int
    sign_bit: int | None = None
    eeprom: bool = False


# The STS3215 control table (Feetech's memory table for the STS series; units as the servo counts)
TABLE: dict[str, Register] = {
    "firmware_major": Register(0, 1, eeprom=True),
    "firmware_minor": Register(1, 1, eeprom=True),
    "model_number": Register(3, 2, eeprom=True),
    "id": Register(5, 1, eeprom=True),
    "baud_rate": Register(6, 1, eeprom=True),            # 0: 1 Mbaud, 1: 500 k, … 7: 9600
    "return_delay": Register(7, 1, eeprom=True),         # 2 µs units
    "min_position": Register(9, 2, eeprom=True),         # ticks
    "max_position": Register(11, 2, eeprom=True),        # ticks
    "max_temperature": Register(13, 1, eeprom=True),     # °C
    "max_voltage": Register(14, 1, eeprom=True),         # 0.1 V
    "min_voltage": Register(15, 1, eeprom=True),         # 0.1 V
    "max_torque": Register(16, 2, eeprom=True),          # 0.1 % of stall torque
    "p_gain": Register(21, 1, eeprom=True),
    "d_gain": Register(22, 1, eeprom=True),
    "i_gain": Register(23, 1, eeprom=True),
    "homing_offset": Register(31, 2, sign_bit=11, eeprom=True),  # ticks: present = raw − offset
    "operating_mode": Register(33, 1, eeprom=True),      # 0 position servo
    "overload_torque": Register(36, 1, eeprom=True),     # % of max torque before protection
    "torque_enable": Register(40, 1),                    # 0 free, 1 holding
    "acceleration": Register(41, 1),                     # 100 ticks/s² units (0: none)
    "goal_position": Register(42, 2, sign_bit=15),       # ticks
    "goal_time": Register(44, 2),                        # ms
    "goal_speed": Register(46, 2, sign_bit=15),          # ticks/s (0: the servo's top speed)
    "torque_limit": Register(48, 2),                     # 0.1 %
    "lock": Register(55, 1),                             # 1: EEPROM write-protected
    "present_position": Register(56, 2, sign_bit=15),    # ticks
    "present_speed": Register(58, 2, sign_bit=15),       # ticks/s
    "present_load": Register(60, 2, sign_bit=10),        # 0.1 % of max torque, sign: direction
    "present_voltage": Register(62, 1),                  # 0.1 V
    "present_temperature": Register(63, 1),              # °C
    "status": Register(65, 1),                           # the error bits, as in status packets
    "moving": Register(66, 1),                           # 1 while moving to the goal
    "present_current": Register(69, 2),                  # 6.5 mA units
}
TABLE_SIZE = 86  # bytes of registers a servo holds (0 … 85)
STATE_SPAN = ("present_position", "present_temperature")  # one sync read: 56 … 63, 8 bytes


def checksum(body: bytes | Sequence[int]) -> int:
    """~(Σ bytes from the id to the last parameter) & 0xFF.

    >>> checksum(bytes([1, 2, 1]))
    251
    """
    return ~sum(body) & 0xFF


def packet(servo: int, instruction: int, params: bytes | Sequence[int] = b"") -> bytes:
    """The instruction packet FF FF id len instr params checksum."""
    if not 0 <= servo <= BROADCAST:
        raise FeetechError(f"servo id {servo}: expected 0 … 253, or 254 to broadcast")
    params = bytes(params)
    if len(params) + 6 > MAX_PACKET:
        raise FeetechError(f"a packet of {len(params) + 6} bytes exceeds the servos' {MAX_PACKET}")
    body = bytes([servo, len(params) + 2, instruction]) + params
    return HEADER + body + bytes([checksum(body)])


def ping(servo: int) -> bytes:
    return packet(servo, PING)


def read(servo: int, address: int, n: int) -> bytes:
    return packet(servo, READ, [_byte(address, "address"), _byte(n, "length")])


def write(servo: int, address: int, data: bytes | Sequence[int]) -> bytes:
    return packet(servo, WRITE, bytes([_byte(address, "address")]) + bytes(data))


def sync_read(servos: Sequence[int], address: int, n: int) -> bytes:
    return packet(BROADCAST, SYNC_READ, [_byte(address, "address"), _byte(n, "length"), *servos])


def sync_write(address: int, data: Mapping[int, bytes]) -> bytes:
    """One packet writing data[id] (all the same length) at `address` of each servo."""
    sizes = {len(d) for d in data.values()}
    if len(sizes) != 1:
        raise FeetechError(f"sync write: every servo's data must have one length, got {sorted(sizes)}")
    params = bytearray([_byte(address, "address"), sizes.pop()])
    for servo, d in data.items():
        params += bytes([servo]) + bytes(d)
    return packet(BROADCAST, SYNC_WRITE, params)


def status(servo: int, error: int = 0, data: bytes = b"") -> bytes:
    """A servo's status packet (what the emulator sends)."""
    body = bytes([servo, len(data) + 2, error]) + bytes(data)
    return HEADER + body + bytes([checksum(body)])


@dataclass(frozen=True)
class Status:
    id: int
    error: int
    data: bytes


def parse_status(raw: bytes) -> Status:
    """A whole status packet; FeetechError naming what is wrong otherwise."""
    if len(raw) < 6 or raw[:2] != HEADER:
        raise FeetechError(f"not a status packet: {raw.hex(' ')}")
    if raw[3] + 4 != len(raw):
        raise FeetechError(f"length byte {raw[3]} does not match a {len(raw)}-byte packet")
    if checksum(raw[2:-1]) != raw[-1]:
        raise FeetechError(f"bad checksum {raw[-1]:#04x} (expected {checksum(raw[2:-1]):#04x}) in {raw.hex(' ')}")
    return Status(raw[2], raw[4], bytes(raw[5:-1]))


def split_packet(buffer: bytes) -> tuple[bytes | None, bytes]:
    """(the first whole packet in `buffer`, the bytes after it) or (None, what to keep): bytes
    before a header are dropped, as a servo's receiver resynchronises on FF FF."""
    while True:
        start = buffer.find(HEADER)
        if start < 0:
            return None, buffer[-1:] if buffer.endswith(b"\xff") else b""
        buffer = buffer[start:]
        if len(buffer) >= 3 and buffer[2] == 0xFF:  # FF FF FF: the first FF was noise
            buffer = buffer[1:]
            continue
        if len(buffer) < 4:
            return None, buffer
        end = buffer[3] + 4
        if len(buffer) < end:
            return None, buffer
        return buffer[:end], buffer[end:]


def errors_in(error: int) -> list[str]:
    """The words for the fault bits set in a status packet's error byte (or the status register)."""
    return [words for bit, words in ERROR_BITS.items() if error >> bit & 1]


# --- register values ---------------------------------------------------------------------------
def encode(name: str, value: int) -> bytes:
    """The register's bytes (little-endian, sign-and-magnitude where it has a sign bit)."""
    reg = TABLE[name]
    value = int(value)
    limit = 1 << (reg.sign_bit if reg.sign_bit is not None else 8 * reg.size)
    if not -limit < value < limit or (value < 0 and reg.sign_bit is None):
        raise FeetechError(f"{name} = {value} does not fit the register ({reg.size} byte(s)"
                           + (f", sign in bit {reg.sign_bit})" if reg.sign_bit is not None else ", unsigned)"))
    raw = (-value | 1 << reg.sign_bit) if value < 0 and reg.sign_bit is not None else value
    return raw.to_bytes(reg.size, "little")


def decode(name: str, data: bytes) -> int:
    """The register's value from its bytes."""
    reg = TABLE[name]
    raw = int.from_bytes(data[:reg.size], "little")
    if reg.sign_bit is not None and raw >> reg.sign_bit & 1:
        return -(raw & ~(1 << reg.sign_bit))
    return raw


def decode_span(first: str, data: bytes, names: Iterable[str]) -> dict[str, int]:
    """The named registers' values from the bytes of a read that started at register `first`."""
    base = TABLE[first].address
    return {n: decode(n, data[TABLE[n].address - base:]) for n in names}


def span(first: str, last: str) -> tuple[int, int]:
    """(address, byte count) of a read covering registers `first` … `last`."""
    a, b = TABLE[first], TABLE[last]
    return a.address, b.address + b.size - a.address


def _byte(x: int, what: str) -> int:
    if not 0 <= int(x) <= 0xFF:
        raise FeetechError(f"{what} {x}: expected 0 … 255")
    return int(x)
