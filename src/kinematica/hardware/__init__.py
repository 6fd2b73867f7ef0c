"""The physical arms: `Arm`, the interface every driver offers; the Tinkerkit Braccio (firmware,
serial bridge, emulator) and the SO-101 and SO-100 (Feetech bus, emulator), its drivers.

  arm          `Arm`: connect, home, move, play, stop, state (measured or commanded), close

  protocol     the line protocol (v2): every command and reply, checksums, the READY banner, the
               byte-level line reader, the moves' acceleration-limited profile
  board        the board's state machine (the firmware's rules, in Python; the emulator runs it)
  emulator     a virtual Braccio on 127.0.0.1 TCP or a pseudo-terminal, optionally misbehaving
  calibration  per-servo offset and direction on top of `km.to_servo`
  limits       the host's checks before sending (model limits, servo ranges, speeds, gripper)
               and the tool error of whole servo degrees
  link         one serial link, opened without a reset pulse: lines with deadlines, nothing sent after
               a fault but S
  stream       flow-controlled streaming of points with acknowledgements, stalls measured
  bridge       `Braccio(url)`: connect, home, move, gripper, play, stop, state, request_stop, recover
  reports      what the bridge returns, and the points of a trajectory it sends
  sketch       the Arduino sketch shipped in the package (firmware/), written out by `write_firmware`
  feetech      the Feetech STS bus protocol: packets, checksums, the STS3215 control table
  feetech_bus  one Feetech bus on pyserial: deadlines and retries per transaction, a fault latch
  sts_servo    one emulated STS3215: registers, motion within speed/acceleration limits, imperfections
  so101_emulator  a virtual SO-101 bus (six servos) on 127.0.0.1 TCP or a pseudo-terminal, with faults
  so101_calibration  homing offsets, ranges and senses; ticks ↔ joint values; the calibration file
               and the arm (so100, so101) it was made on
  so101        `So101(url, robot="so101" | "so100")`: connect, home, move, play, stop, state (measured), torque
  so101_play   streaming at a fixed rate with sync write + sync read, and the tracking error
  so101_teleop  a leader SO-101 moved by hand drives a follower: both calibrations, the follower's
               bounds, a step limit per cycle, a scene's collisions; a fault on either bus stops both

pyserial is imported only when a link opens. The Braccio's hobby servos report no position:
its state is the one the board last commanded; the SO-101's bus servos are read.
"""

from .arm import Arm
from .bridge import Braccio
from .calibration import (
           Calibration,
           CalibrationError,
           load_calibration,
           save_calibration,
)
from .emulator import Emulator, Misbehaviour
from .feetech_bus import BusError, ServoFault
from .limits import CommandRefused
from .link import LinkError, LinkTimeout
from .protocol import ProtocolError
from .reports import STATE_NOTE, ArmState, MoveReport, PlayResult
from .so101 import So101, So101Move, So101State
from .so101_calibration import (
           So101Calibration,
           load_so101_calibration,
           save_so101_calibration,
)
from .so101_emulator import BusFault, So101Emulator
from .so101_play import TrackingReport
from .so101_teleop import TeleopReport, teleop
from .sts_servo import Imperfection

__all__ = ["Arm", "So101", "So101State", "So101Move", "ServoFault", "BusError", "So101Calibration",
           "load_so101_calibration", "save_so101_calibration", "So101Emulator", "BusFault", "Imperfection",
           "TrackingReport", "TeleopReport", "teleop", "Braccio", "ArmState", "MoveReport", "PlayResult", "STATE_NOTE", "Calibration", "CalibrationError",
           "load_calibration", "save_calibration", "Emulator", "Misbehaviour", "CommandRefused", "LinkError",
           "LinkTimeout", "ProtocolError"]
