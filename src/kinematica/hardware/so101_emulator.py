"""A virtual SO-101 bus: six emulated STS3215 servos (`sts_servo.Servo`, ids 1–6) behind a TCP
port on 127.0.0.1 or a pseudo-terminal, in a background thread, misbehaving on request.

It answers the Feetech protocol (`feetech`) as the servos do: ping, read, write, sync read (each
listed servo answers in turn), sync write and broadcasts (no answer); a packet with a bad
checksum, or for an id not on the bus, gets no answer. The servos move in real time. Feetech's
own SDK reads it on a pseudo-terminal like a real bus (tests/test_so101_emulator.py).

`BusFault` makes a servo fail the way real ones do; n counts the packets that servo has
received (its own and the sync reads and writes naming it), from 1 — for `corrupt`, the answers
it has sent:

    silent=(id, n)          from its n-th packet on the servo answers nothing (a loose cable)
    corrupt=(id, n, k)      its answers n … n + k − 1 have one bit flipped (k = 0: every answer
                            from the n-th on: a failing transceiver)
    overload=(id, n)        at its n-th packet it flags overload (bit 5) and releases its torque
    overheat=(id, n)        at its n-th packet it flags over-temperature (bit 2)

>>> with So101Emulator() as emu:
...     emu.url.startswith("socket://127.0.0.1:")
True
"""

from __future__ import annotations

import select
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from . import feetech as ft
from .served import Served
from .sts_servo import Imperfection, Servo

IDS = (1, 2, 3, 4, 5, 6)
PERFECT = Imperfection()


@dataclass(frozen=True)
class BusFault:
    silent: tuple[int, int] | None = None
    corrupt: tuple[int, int, int] | None = None
    overload: tuple[int, int] | None = None
    overheat: tuple[int, int] | None = None


NO_FAULT = BusFault()


class So101Emulator(Served):
    """Six STS3215 servos on one emulated bus; `start_tcp()` or `start_pty()`, then `stop()` (or
    use it as a context manager, which starts TCP on a free port)."""

    def __init__(self, imperfection: Imperfection | Sequence[Imperfection] = PERFECT, fault: BusFault = NO_FAULT,
                 positions: Sequence[int] = (2048,) * 6, seed: int = 0) -> None:
        per = [imperfection] * 6 if isinstance(imperfection, Imperfection) else list(imperfection)
        if len(per) != 6 or len(positions) != 6:
            raise InputError(f"expected 6 imperfections and 6 positions (servos {IDS}), got {len(per)} and {len(positions)}")
        for name, f in vars(fault).items():
            if f is not None and f[0] not in IDS:
                raise InputError(f"fault {name}: servo id {f[0]} is not on the bus (ids {IDS})")
        self.servos = {i: Servo(i, int(p), im, seed + i) for i, p, im in zip(IDS, positions, per, strict=True)}
        self.fault = fault
        self.lock = threading.Lock()
        self.received: list[bytes] = []  # every packet received and every packet sent
        self.sent: list[bytes] = []
        super().__init__()
        self._counts: dict[int, int] = dict.fromkeys(IDS, 0)  # packets each servo received, answers it sent
        self._answers: dict[int, int] = dict.fromkeys(IDS, 0)
        self._clock = time.monotonic()

    NAME = "so101-emulator"
    NODELAY = True  # a bus answers at once: Nagle would hold a reply behind the next sync write (~40 ms)

    # --- what the servos did --------------------------------------------------------------------
    def positions(self) -> dict[int, float]:
        """Each servo's true shaft position now (ticks, in its homing-offset frame)."""
        with self.lock:
            self._advance()
            return {i: s.shaft - s.get("homing_offset") for i, s in self.servos.items()}

    def turn(self, servo: int, ticks: float) -> None:
        """Turn a servo's shaft by hand (as during calibration or recording, torque off)."""
        with self.lock:
            self._advance()
            self.servos[servo].turn(ticks)

    def log(self) -> tuple[list[bytes], list[bytes]]:
        with self.lock:
            return list(self.received), list(self.sent)

    # --- serving -------------------------------------------------------------------------------
    def _serve(self, chan: Any) -> None:
        buf = b""
        while not self._stopping.is_set():
            try:
                ready, _, _ = select.select([chan], [], [], 0.005)
            except (OSError, ValueError):
                return
            with self.lock:
                self._advance()
            self._refuse_others()
            if not ready:
                continue
            data = chan.recv(4096)
            if not data:
                if self._pty is None:
                    return  # the TCP peer left; a pseudo-terminal waits for the next host
                time.sleep(0.01)
                continue
            buf += data
            while True:
                raw, buf = ft.split_packet(buf)
                if raw is None:
                    break
                with self.lock:
                    replies = self._answer(raw)
                if replies:
                    try:
                        chan.sendall(b"".join(replies))  # one write: a sync read's answers leave together
                    except OSError:
                        return

    def _advance(self) -> None:
        now = time.monotonic()
        for s in self.servos.values():
            s.step(now - self._clock)
        self._clock = now

    def _answer(self, raw: bytes) -> list[bytes]:
        """The status packets a received packet calls for (lock held)."""
        self.received.append(raw)
        if len(raw) < 6 or ft.checksum(raw[2:-1]) != raw[-1]:
            return []  # a servo drops a packet whose checksum fails
        servo, instr, params = raw[2], raw[4], raw[5:-1]
        out: list[tuple[int, bytes]] = []
        if instr == ft.SYNC_WRITE and len(params) >= 2:
            n = params[1]
            for k in range(2, len(params) - n, n + 1):
                if params[k] in self.servos and self._count(params[k]):
                    self.servos[params[k]].write(params[0], params[k + 1:k + 1 + n])
        elif instr == ft.SYNC_READ and len(params) >= 2:
            for i in params[2:]:
                if i in self.servos and self._count(i):
                    out.append((i, self.servos[i].read(params[0], params[1])))
        elif servo == ft.BROADCAST and instr == ft.WRITE:
            for i, s in self.servos.items():
                if self._count(i):
                    s.write(params[0], params[1:])
        elif servo in self.servos and self._count(servo):
            s = self.servos[servo]
            if instr == ft.READ and len(params) == 2:
                out.append((servo, s.read(params[0], params[1])))
            elif instr == ft.WRITE and params:
                s.write(params[0], params[1:])
                out.append((servo, b""))
            elif instr == ft.PING:
                out.append((servo, b""))
        replies = [self._damage(i, ft.status(i, self.servos[i].error, data)) for i, data in out]
        self.sent += replies
        return replies

    def _count(self, servo: int) -> bool:
        """Count a packet reaching `servo`, raise its scheduled faults; False when it is silent."""
        self._counts[servo] += 1
        n, f = self._counts[servo], self.fault
        if f.overload is not None and f.overload == (servo, n):
            self.servos[servo].fail(1 << 5)
        if f.overheat is not None and f.overheat == (servo, n):
            self.servos[servo].fail(1 << 2)
        return not (f.silent is not None and f.silent[0] == servo and n >= f.silent[1])

    def _damage(self, servo: int, packet: bytes) -> bytes:
        self._answers[servo] += 1
        c, n = self.fault.corrupt, self._answers[servo]
        if c is not None and c[0] == servo and n >= c[1] and (c[2] == 0 or n < c[1] + c[2]):
            k = len(packet) - 2
            return packet[:k] + bytes([packet[k] ^ 0x10]) + packet[k + 1:]
        return packet
