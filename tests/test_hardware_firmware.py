"""The Arduino sketch: written out by `write_firmware`, its constants equal to the protocol's,
compiled for the Uno's ATmega328P where Debian's AVR toolchain is installed, and — built for
this machine against a small Arduino shim — answering every script of commands exactly as the
emulator's state machine (`Board`) does: one specification, two implementations."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
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


def run_sketch(exe: Path, script: list[tuple[int, str | None]]) -> list[str]:
    text = "".join(f"{ms} {line}\n" if line is not None else f"{ms}\n" for ms, line in script)
    done = subprocess.run([str(exe)], input=text, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def run_board(script: list[tuple[int, str | None]]) -> list[str]:
    """The same script through the emulator's Board (as the sketch's loop: read, then advance)."""
    board = Board(now=0.0)
    out = [pr.format_reply(pr.DEFAULT_BANNER)]
    for ms, line in script:
        if line is not None:
            out += board.feed(line, ms / 1000)
        out += board.advance(ms / 1000)
    return out


def T(seq, ms, *deg):
    return pr.format_command(pr.Stream(seq, ms, tuple(deg)))


SCRIPTS = {
    "move, query, home": [(0, "?"), (10, "P 60,90,150,120,30,73,40"), (700, None), (700, "?"), (2000, None),
                          (2000, "?"), (2100, "H"), (2500, "?"), (4000, None), (4000, "?")],
    "refused moves": [(0, "P 90,170,90,90,90,10,40"), (1, "P 90,90,90,90,90,80,40"), (2, "P 90,90,90,90,90,10,200"),
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
    "watchdog": [(0, T(k, 200, 90 + 10 * (k + 1), 45, 180, 180, 90, 10)) for k in range(8)]
                + [(300, None), (450, None), (2000, None), (2000, "?")],
}


@pytest.mark.parametrize("name", SCRIPTS)
def test_the_sketch_answers_as_the_emulator(firmware, name):
    script = SCRIPTS[name]
    assert run_sketch(firmware, script) == run_board(script)


@st.composite
def scripts(draw):
    """Random scripts: mostly good streamed points near the last target, sometimes a wrong
    sequence number, a bad checksum, a move, a stop, a query or garbage, at random gaps."""
    t, seq, last, script = 0, 0, list(pr.HOME), []
    for _ in range(draw(st.integers(1, 40))):
        t += draw(st.sampled_from([0, 1, 5, 20, 100, 300, 700]))
        kind = draw(st.sampled_from(["T"] * 6 + ["bad seq", "bad cc", "P", "S", "?", "K", "junk", None]))
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
            script.append((t, "P " + ",".join(map(str, deg)) + f",{draw(st.sampled_from([20, 90, 140, 141]))}"))
        elif kind is None:
            script.append((t, None))
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
