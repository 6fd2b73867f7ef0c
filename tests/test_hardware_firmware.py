"""The Arduino sketch: written out by `write_firmware`, its constants equal to the protocol's,
compiled for the Uno's ATmega328P where Debian's AVR toolchain is installed, and — built for
this machine against a small Arduino shim — answering every script of commands exactly as the
emulator's state machine (`Board`) does: one specification, two implementations."""

from __future__ import annotations

import re
from dataclasses import replace
import shutil
import subprocess
from pathlib import Path

import pytest
import numpy as np
from hypothesis import given, settings, strategies as st

from kinematica.hardware import protocol as pr
from kinematica.hardware.board import Board
from kinematica.hardware.sketch import SKETCH, sketch_text, write_firmware

HOST = Path(__file__).parent / "firmware_host"
AVR = Path("/usr/share/arduino/hardware/arduino/avr")


def test_write_firmware_makes_the_folder_the_ide_wants(tmp_path):
    path = write_firmware(tmp_path / "out")
    assert path == tmp_path / "out" / SKETCH / f"{SKETCH}.ino"
    assert path.read_text() == sketch_text() and "#include <Servo.h>" in path.read_text()
    assert write_firmware(tmp_path / "out") == path  # the same content again: fine
    path.write_text(path.read_text() + "// my change\n")
    with pytest.raises(FileExistsError, match="exists and differs"):
        write_firmware(tmp_path / "out")
    assert path.read_text().endswith("// my change\n")  # nothing lost
    write_firmware(tmp_path / "out", overwrite=True)
    assert path.read_text() == sketch_text()
    with pytest.raises(FileNotFoundError, match="does not exist"):
        write_firmware(tmp_path / "no" / "such")


def test_the_sketch_constants_are_the_protocol_constants():
    src = sketch_text()
    define = lambda name: int(re.search(rf"#define {name} (\d+)", src)[1])
    array = lambda name: [int(v) for v in re.search(rf"{name}\[6\] = \{{([^}}]*)\}}", src)[1].split(",")]
    assert define("PROTOCOL_VERSION") == pr.VERSION and define("QUEUE_DEPTH") == pr.DEPTH
    assert define("WATCHDOG_MS") == pr.WATCHDOG_MS and define("HOME_SPEED") == pr.HOME_SPEED
    assert (define("SPEED_MIN"), define("SPEED_MAX")) == pr.SPEED_RANGE
    assert (define("MS_MIN"), define("MS_MAX")) == pr.MS_RANGE and define("MAX_LINE") == pr.MAX_LINE
    assert list(zip(array("LO"), array("HI"))) == [tuple(r) for r in pr.RANGES]
    assert tuple(array("HOME_POS")) == pr.HOME
    assert array("PINS") == [11, 10, 9, 6, 5, 3] and define("SOFT_START_PIN") == 12  # the Braccio shield
    assert f"queue full ({pr.DEPTH} points)" in src


def test_the_sketch_compiles_for_the_uno(tmp_path):
    """A compile of the sketch for the ATmega328P with Debian's avr-g++ and Arduino core headers
    (the Servo library is not packaged: its public API is declared by the shim's Servo.h). This
    checks syntax, types and code generation of the sketch; it does not link the core."""
    if shutil.which("avr-g++") is None or not (AVR / "cores" / "arduino" / "Arduino.h").is_file():
        pytest.skip("no AVR toolchain: apt-get install gcc-avr avr-libc arduino-core-avr to compile the sketch")
    ino = write_firmware(tmp_path)
    servo = tmp_path / "servo"
    servo.mkdir()
    shutil.copy(HOST / "Servo.h", servo)
    obj = tmp_path / "sketch.o"
    cmd = ["avr-g++", "-c", "-Os", "-Wall", "-Wextra", "-Werror", "-mmcu=atmega328p", "-DF_CPU=16000000L",
           "-DARDUINO=10807", "-DARDUINO_AVR_UNO", "-DARDUINO_ARCH_AVR", "-std=gnu++11",
           f"-I{AVR / 'cores' / 'arduino'}", f"-I{AVR / 'variants' / 'standard'}", f"-I{servo}",
           "-x", "c++", "-include", "Arduino.h", str(ino), "-o", str(obj)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    size = subprocess.run(["avr-size", str(obj)], capture_output=True, text=True).stdout.split("\n")[1].split()
    flash, ram = int(size[0]) + int(size[1]), int(size[1]) + int(size[2])
    assert flash < 20_000 and ram < 1_000  # an Uno has 32 kB of flash (the core takes ~3 kB) and 2 kB of RAM


def test_the_sketch_compiles_with_arduino_cli(tmp_path):
    cli = shutil.which("arduino-cli")
    if cli is None:
        pytest.skip("no arduino-cli on this machine (it downloads its toolchains, which this project never does "
                    "at test time); the avr-g++ compile above checks the sketch instead")
    cores = subprocess.run([cli, "core", "list"], capture_output=True, text=True, timeout=60).stdout
    if "arduino:avr" not in cores:
        pytest.skip("arduino-cli has no arduino:avr core installed (installing one downloads a toolchain)")
    ino = write_firmware(tmp_path)
    done = subprocess.run([cli, "compile", "-b", "arduino:avr:uno", str(ino.parent)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr


# --- the sketch on the host, against the Board ---------------------------------------------------
@pytest.fixture(scope="module")
def firmware(tmp_path_factory):
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("no g++: the sketch cannot be built on this machine to compare it with the emulator")
    out = tmp_path_factory.mktemp("fw")
    ino = write_firmware(out)
    exe = out / "braccio_host"
    done = subprocess.run([gxx, "-std=gnu++11", "-Wall", "-Wextra", "-Werror", f"-I{HOST}", "-x", "c++", "-include",
                           "Arduino.h", str(ino), "-x", "c++", str(HOST / "driver.cpp"), "-o", str(exe)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return exe


Step = tuple[int, "str | bytes | None"]  # (ms, a line (its newline added) or raw bytes or nothing)


def _bytes(data: str | bytes) -> bytes:
    return data if isinstance(data, bytes) else data.encode("ascii") + b"\n"


def sketch_run(exe: Path, script: list[Step]) -> subprocess.CompletedProcess:
    text = "".join(f"{ms} {_bytes(data).hex()}\n" if data is not None else f"{ms}\n" for ms, data in script)
    done = subprocess.run([str(exe)], input=text, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done


def run_sketch(exe: Path, script: list[Step]) -> list[str]:
    return sketch_run(exe, script).stdout.splitlines()


def run_board(script: list[Step]) -> list[str]:
    """The same script through the emulator's Board (as the sketch's loop: read, then advance)."""
    board = Board(now=0.0)
    out = [pr.format_reply(replace(pr.DEFAULT_BANNER, boot=True))]  # the sketch's setup() sends it
    for ms, data in script:
        if data is not None:
            out += board.receive(_bytes(data), ms / 1000)
        out += board.advance(ms / 1000)
    return out


def T(seq, ms, *deg):
    return pr.format_command(pr.Stream(seq, ms, tuple(deg)))


SCRIPTS = {
    "move, query, home": [(0, "?"), (10, "P 60,90,150,120,30,73,40"), (700, None), (700, "?"), (2000, None),
                          (2000, "?"), (2100, "H"), (2500, "?"), (4000, None), (4000, "?")],
    "refused moves": [(0, "P 90,170,90,90,90,10,40"), (1, "P 90,90,90,90,90,80,40"), (2, "P 90,90,90,90,90,10,200"),
                      (2, "P 0,45,180,180,90,10,140"), (2, "P 0,45,180,180,90,10,101"),
                      (3, "P 1,2,3"), (4, "X"), (5, "P " + "9" * 70), (6, "H 10"), (7, "?")],
    "busy and stop": [(0, "P 90,90,90,90,90,10,100"), (100, "P 90,90,90,90,90,10,100"), (450, "S"), (450, "?"),
                      (2000, "?"), (2100, "V"), (2200, "K")],
    "stream": [(0, T(0, 100, 92, 45, 180, 180, 90, 10)), (1, T(1, 100, 94, 45, 180, 180, 90, 10)),
               (2, T(2, 100, 96, 50, 175, 180, 90, 10)), (150, "?"), (150, T(3, 50, 97, 50, 175, 180, 90, 10)),
               (260, "?"), (400, None), (400, "?"), (500, T(0, 10, 98, 50, 175, 180, 90, 10)), (600, "?")],
    "stream errors": [(0, T(1, 100, 92, 45, 180, 180, 90, 10)), (1, "T 0,100,92,45,180,180,90,10*00"),
                      (2, T(0, 100, 92, 45, 180, 180, 200, 10)), (3, T(0, 100, 110, 45, 180, 180, 90, 10)),
                      (4, T(0, 0, 90, 45, 180, 180, 90, 10)), (5, "T 0,100*" + pr.crc8_hex("T 0,100")),
                      (6, T(0, 100, 100, 45, 180, 180, 90, 10)), (7, T(1, 100, 110, 45, 180, 180, 90, 10)),
                      (150, T(5, 100, 120, 45, 180, 180, 90, 10)), (150, "?"), (1000, "?")],
    "queue full, move mid-stream": [(0, T(k, 100, 90, 45, 180, 180, 90, 10)) for k in range(9)]
                                   + [(10, T(0, 100, 91, 45, 180, 180, 90, 10)), (20, "P 90,90,90,90,90,10,40"),
                                      (30, "?")],
    "profiles": [(0, "P 0,45,180,180,90,10,100"), *((ms, "?") for ms in range(0, 1200, 37)), (1200, "?"),
                 (1300, "P 0,50,180,180,90,10,20"), *((ms, "?") for ms in range(1300, 1800, 23)),
                 (2000, "H 100"), (2100, "S"), (2100, "?")],
    "no slack": [(0, T(0, 1, 91, 45, 180, 180, 90, 10)), (5, T(0, 10, 91, 45, 180, 180, 90, 10)),
                 (6, T(1, 9, 92, 45, 180, 180, 90, 10)), (7, T(0, 20, 92, 45, 180, 180, 90, 10)), (40, "?")],
    "bytes": [(0, b"?\t\n"), (1, b"\x00?\n"), (2, b"?\x00\n"), (3, b"?\x80\n"), (4, b"?\xff\n"), (5, b"\r?\r\n"),
              (6, b"P 9\r0,45,180,180,90,10,40\n"), (7, b"S\x1c\n"), (8, b"P 9\x1f0,45,180,180,90,10,40\n"),
              (3000, b"  ?  \n"), (3001, b"\n\n \n"), (3002, b"?" * 64 + b"\n"), (3003, b"?" * 65 + b"\n"),
              (3004, b" " * 70 + b"\n"), (3005, b"H\n?"), (3005, b"\n"), (6000, b"\x1b[A\n?\n")],
    "checksums": [(0, T(0, 50, 91, 45, 180, 180, 90, 10)[:-2] + " " + T(0, 50, 91, 45, 180, 180, 90, 10)[-1]),
                  (1, "T 0,50,91,45,180,180,90,10*+" + T(0, 50, 91, 45, 180, 180, 90, 10)[-1]),
                  (2, T(0, 50, 91, 45, 180, 180, 90, 10).lower().replace("t", "T", 1)),
                  (3, "T 0,50,91,45,180,180,90,10*"), (4, "T 0,50,91,45,180,180,90,10*0"), (5, "*"), (6, "T*00"),
                  (7, T(0, 50, 91, 45, 180, 180, 90, 10)), (100, "?")],
    "watchdog": [(0, T(k, 200, 90 + 10 * (k + 1), 45, 180, 180, 90, 10)) for k in range(8)]
                + [(300, None), (450, None), (2000, None), (2000, "?")],
}


@pytest.mark.parametrize("name", SCRIPTS)
def test_the_sketch_answers_as_the_emulator(firmware, name):
    script = SCRIPTS[name]
    assert run_sketch(firmware, script) == run_board(script)


def test_the_scripts_test_what_they_name():
    """The scripts above hold the cases issue 25 found: a move at 140 °/s and a 1 ms step of 1°
    refused, a byte of every kind answered E0, checksums written "* F", "*+F" or in lower case
    refused, a move that starts from rest, speeds up and slows down to its target."""
    out = run_board(SCRIPTS["refused moves"])
    assert "E1 speed=140 outside 20..100" in out and "E1 speed=101 outside 20..100" in out
    assert run_board(SCRIPTS["no slack"])[1:] == ["E1 M1 step 1 in 1 ms over 100 deg/s",
                                                  "E1 M1 step 1 in 9 ms over 100 deg/s", "A 0*D3",
                                                  "Q 92,45,180,180,90,10"]
    E0, home = "E0 malformed line", "Q 90,45,180,180,90,10"
    assert run_board(SCRIPTS["bytes"])[1:] == [E0] * 5 + [home, "OK", E0, E0, home, E0, E0, E0, "OK", home, E0, home]
    assert run_board(SCRIPTS["checksums"])[1:] == ["E2 bad checksum"] * 5 + [E0, "E2 bad checksum", "A 0*D3",
                                                                             "Q 91,45,180,180,90,10"]
    base = [int(line[2:].split(",")[0]) for line in run_board(SCRIPTS["profiles"]) if line.startswith("Q ")]
    steps = -np.diff(base[:32])  # every 37 ms of a 90° turn of the base at up to 100 °/s
    assert steps[0] <= 1 and steps[-1] <= 1 and max(steps) == 4  # 100 °/s × 37 ms = 3.7°: from rest, back to rest


def test_the_soft_start_takes_as_long_as_the_braccio_librarys(firmware):
    """setup() pulses pin 12 for SOFT_START_MS before the banner, as Braccio.begin() does (6 s);
    the host build's clock runs on delayMicroseconds, so this is the sketch's own timing."""
    done = sketch_run(firmware, [(0, "?")])
    took = int(re.search(r"setup (\d+)", done.stderr)[1])
    assert pr.SOFT_START_MS[1] <= took <= pr.SOFT_START_MS[1] + 1  # the loop ends on its first pulse past 6 s
    assert done.stdout.splitlines() == [pr.format_reply(replace(pr.DEFAULT_BANNER, boot=True)),
                                        "Q 90,45,180,180,90,10"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, 1, 3, 40, 600]),
                          st.one_of(st.binary(max_size=90),
                                    st.lists(st.sampled_from([b"T 0,20,91,45,180,180,90,10*", b"P 9", b"0,", b"?",
                                                              b"S", b"\n", b"\r", b"*", b"H", b"V", b" ", b"K"]),
                                             max_size=12).map(b"".join))),
                min_size=1, max_size=25))
def test_any_bytes_get_the_same_answers_from_the_sketch_and_the_emulator(firmware, chunks):
    """Fuzzed byte strings (every value 0x00–0xFF, newlines anywhere, lines split across reads)."""
    t, script = 0, []
    for gap, data in chunks:
        t += gap
        script.append((t, data))
    script += [(t + 1, b"\n?\n"), (t + 70_000, None), (t + 70_000, "?")]
    assert run_sketch(firmware, script) == run_board(script)


@pytest.mark.parametrize("where", ["command", "number"])
def test_every_byte_value_gets_a_defined_answer_and_the_board_answers_after_it(firmware, where):
    """Each of the 256 byte values inside a line: the sketch and the Board agree, and `?` is still
    answered with the state afterwards."""
    script: list[Step] = []
    for value in range(256):
        line = bytes([value]) + b"?\n" if where == "command" else b"P 9" + bytes([value]) + b"0,45,180,180,90,10,40\n"
        script += [(value * 3000, line), (value * 3000 + 1, "S"), (value * 3000 + 2, "?")]
    sketch, board = run_sketch(firmware, script), run_board(script)
    assert sketch == board
    # every round ends at home: no byte moves the arm for good or stops the board from answering
    assert board[-1] == "Q 90,45,180,180,90,10" and board.count("OK") >= 256
    if where == "command":  # "?" alone after a space, a CR or a LF (an empty line first); "T?" a T line
        #                     without its checksum (E2); E0 for the rest
        assert board.count("E0 malformed line") == 252 and board.count("E2 bad checksum") == 1 and board.count("Q 90,45,180,180,90,10") == 256 + 3
    else:  # a digit makes 9d0 (E1, out of range), a CR makes 90 (home: OK), a LF two bad lines (E0, E0)
        assert board.count("E0 malformed line") == 246 and sum(line.startswith("E1 M1=9") for line in board) == 10


@st.composite
def scripts(draw):
    """Random scripts: mostly good streamed points near the last target, sometimes a wrong
    sequence number, a bad checksum, a move, a stop, a query or garbage, at random gaps."""
    t, seq, last, script = 0, 0, list(pr.HOME), []
    for _ in range(draw(st.integers(1, 40))):
        t += draw(st.sampled_from([0, 1, 5, 20, 100, 300, 700]))
        kind = draw(st.sampled_from(["T"] * 6 + ["bad seq", "bad cc", "P", "S", "?", "K", "junk", "noise", None]))
        if kind == "T":
            ms = draw(st.sampled_from([1, 7, 20, 100, 250]))
            step = draw(st.lists(st.integers(-4, 4), min_size=6, max_size=6))
            deg = [min(hi, max(lo, d + s)) for d, s, (lo, hi) in zip(last, step, pr.RANGES)]
            script.append((t, T(seq, ms, *deg)))
            seq, last = seq + 1, deg
        elif kind == "bad seq":
            script.append((t, T(seq + 2, 100, *last)))
        elif kind == "bad cc":
            script.append((t, T(seq, 100, *last)[:-2] + "00"))
        elif kind == "P":
            deg = [draw(st.integers(lo, hi)) for lo, hi in pr.RANGES]
            script.append((t, "P " + ",".join(map(str, deg)) + f",{draw(st.sampled_from([20, 90, 100, 101]))}"))
        elif kind is None:
            script.append((t, None))
        elif kind == "noise":
            script.append((t, draw(st.binary(max_size=20))))
        else:
            script.append((t, {"S": "S", "?": "?", "K": "K", "junk": "#!"}[kind]))
        if kind in ("S", "P", "bad seq", "bad cc"):
            seq = draw(st.sampled_from([0, seq]))
    script += [(t + 100, "?"), (t + 70_000, None), (t + 70_000, "?")]
    return script


@settings(max_examples=40, deadline=None)
@given(scripts())
def test_random_scripts_get_the_same_answers_from_the_sketch_and_the_emulator(firmware, script):
    assert run_sketch(firmware, script) == run_board(script)
