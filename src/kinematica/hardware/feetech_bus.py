"""One Feetech bus on pyserial: every transaction with a deadline and retries, and a latch that
stops all sending after a fault.

Any pyserial URL opens (a USB adapter /dev/ttyACM0 or COM5, ``socket://127.0.0.1:PORT`` for the
emulator over TCP, a pseudo-terminal's path), locked for this process alone (`exclusive`: one
controller a bus). A transaction writes one instruction packet and waits for the status
packets it calls for, each within `timeout` s; a missing, late or corrupted answer (bad
checksum, wrong id or length) is retried with the same packet up to `retries` more times —
reads and writes of absolute goals are idempotent, so a repeat is harmless — after the input
is flushed of the failed try's leftovers. When the tries run out the bus latches the fault:
nothing more is sent (`BusError`), and the servos hold their last goals under their own
protection. Every packet written is logged with its time (`written`), so a caller or a test can
check that nothing left after a fault.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import InputError, KinematicaError
from ..extras import need
from . import feetech as ft
from .link import LinkError


class BusError(LinkError):
    """The bus failed: a servo did not answer in time after every retry, garbage, or the port."""


class ServoSilent(BusError):
    """A servo sent no valid status packet within the deadline on any try."""

    def __init__(self, servo: int, reason: str) -> None:
        super().__init__(f"servo {servo} {reason}")
        self.servo = servo


class ServoFault(BusError):
    """A servo stopped the arm (raised by the arm's driver): it did not answer, or it flagged a
    fault; `servo` its id, `joint` the joint it drives."""

    def __init__(self, message: str, servo: int, joint: str) -> None:
        super().__init__(message)
        self.servo, self.joint = servo, joint


class Bus:
    """A Feetech bus on a serial port (pyserial is imported when a bus opens)."""

    def __init__(self, url: str, baud: int = ft.BAUD, timeout: float = 0.02, retries: int = 2) -> None:
        if not (isinstance(timeout, (int, float)) and 0 < timeout <= 5):
            raise InputError(f"timeout {timeout!r} s: expected a number in (0, 5]")
        if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= 10:
            raise InputError(f"retries {retries!r}: expected a whole number 0 … 10")
        serial = need("serial", "hardware", "the Feetech bus")
        self._serial_errors = (serial.SerialException, OSError)
        try:
            self.port: Any = serial.serial_for_url(url, baudrate=baud, timeout=0.002, write_timeout=1.0,
                                                   do_not_open=True)
            if isinstance(self.port, getattr(serial, "Serial", ())) and hasattr(self.port, "exclusive"):
                self.port.exclusive = True  # POSIX flock: a second controller cannot open the bus
            self.port.open()
            self.port.reset_input_buffer()
            sock = getattr(self.port, "_socket", None)  # socket://: a sync write (no answer) followed by
            if sock is not None:                         # a read would wait out Nagle + delayed ACK (40 ms)
                import socket

                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except (serial.SerialException, OSError, ValueError) as e:
            raise BusError(f"cannot open {url}: {e}" + (" (another program has it open: one controller "
                                                         "a bus)" if "exclusively lock" in str(e) else "")) from None
        self.url, self.timeout, self.retries = url, float(timeout), retries
        self.written: list[tuple[float, bytes]] = []  # (time.monotonic(), packet) of every packet sent
        self.fault: str | None = None
        self.retried = 0  # tries repeated over the bus's life (a noisy line shows here)
        self._buf = b""

    # --- the instructions -------------------------------------------------------------------
    def ping(self, servo: int) -> int:
        """The servo's error byte (0 when healthy); ServoSilent when it does not answer."""
        return self._transact(ft.ping(servo), [servo], 0)[servo].error

    def read(self, servo: int, address: int, n: int) -> ft.Status:
        return self._transact(ft.read(servo, address, n), [servo], n)[servo]

    def read_register(self, servo: int, name: str) -> int:
        reg = ft.TABLE[name]
        return ft.decode(name, self.read(servo, reg.address, reg.size).data)

    def write(self, servo: int, address: int, data: bytes) -> ft.Status:
        return self._transact(ft.write(servo, address, data), [servo], 0)[servo]

    def write_register(self, servo: int, name: str, value: int) -> ft.Status:
        return self.write(servo, ft.TABLE[name].address, ft.encode(name, value))

    def sync_read(self, servos: Sequence[int], address: int, n: int) -> dict[int, ft.Status]:
        """Each servo's n bytes at `address`, in one packet out and one status packet per servo."""
        return self._transact(ft.sync_read(servos, address, n), list(servos), n)

    def sync_write(self, address: int, data: Mapping[int, bytes]) -> None:
        """One packet writing each servo's bytes at `address` (no servo answers a broadcast)."""
        self._send(ft.sync_write(address, data))

    # --- the transaction ----------------------------------------------------------------------
    def _transact(self, packet: bytes, servos: list[int], n: int) -> dict[int, ft.Status]:
        why, got = "", {}
        for attempt in range(self.retries + 1):
            if attempt:
                self.retried += 1
                self._flush()
            self._send(packet)
            got: dict[int, ft.Status] = {}
            try:
                for servo in servos:
                    got[servo] = self._receive(servo, n)
                return got
            except _Miss as e:
                why = str(e)
        tries = f"{self.retries + 1} tr{'ies' if self.retries else 'y'} of {self.timeout * 1000:g} ms"
        missing = next(s for s in servos if s not in got)
        err = ServoSilent(missing, f"{why} ({tries})")
        self.fault = self.fault or str(err)
        raise err

    def _receive(self, servo: int, n: int) -> ft.Status:
        deadline = time.monotonic() + self.timeout
        while True:
            raw, self._buf = ft.split_packet(self._buf)
            if raw is not None:
                try:
                    st = ft.parse_status(raw)
                except ft.FeetechError as e:
                    raise _Miss(f"sent a corrupted packet ({e})") from None
                if st.id != servo:  # on a sync read, the next servo answers in a silent one's turn
                    raise _Miss(f"did not answer in time (servo {st.id} answered in its turn)")
                if len(st.data) != n:
                    raise _Miss(f"sent {len(st.data)} bytes where {n} were asked for")
                return st
            if time.monotonic() > deadline:
                raise _Miss("did not answer in time")
            self._buf += self._read(max(1, 6 + n - len(self._buf)))  # the packet's rest in one read

    def _read(self, n: int) -> bytes:
        try:
            return self.port.read(n)
        except self._serial_errors as e:
            raise self._latch(f"the port {self.url} failed while reading: {e}") from None

    def _flush(self) -> None:
        time.sleep(self.timeout / 2)  # a late answer of the failed try arrives and is dropped
        try:
            self.port.reset_input_buffer()
        except self._serial_errors as e:
            raise self._latch(f"the port {self.url} failed: {e}") from None
        self._buf = b""

    def _send(self, packet: bytes) -> None:
        if self.fault is not None:
            raise BusError(f"not sent: the bus stopped earlier ({self.fault}); reconnect")
        try:
            self.port.write(packet)
            self.port.flush()
        except self._serial_errors as e:
            raise self._latch(f"the port {self.url} failed while writing: {e}") from None
        self.written.append((time.monotonic(), packet))

    def _latch(self, reason: str) -> BusError:
        self.fault = self.fault or reason
        return BusError(reason)

    def stop(self, reason: str) -> None:
        """Latch a fault found above the bus (an overload flag, a limit): nothing more is sent."""
        self.fault = self.fault or reason

    def close(self) -> None:
        try:
            self.port.close()
        except self._serial_errors:
            pass


class _Miss(KinematicaError):
    """One try failed (no answer, a corrupted or foreign packet): retried by `_transact`, never
    seen outside it."""
