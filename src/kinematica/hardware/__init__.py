"""The physical Tinkerkit Braccio: firmware, serial bridge and emulator.

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

pyserial is imported only when a link opens. Hobby servos report no
position: every state shown is the one the board last commanded.
"""

from .bridge import Braccio
from .reports import STATE_NOTE, ArmState, MoveReport, PlayResult
from .calibration import Calibration, CalibrationError, load_calibration, save_calibration
from .emulator import Emulator, Misbehaviour
from .limits import CommandRefused
from .link import LinkError, LinkTimeout
from .protocol import ProtocolError

__all__ = ["Braccio", "ArmState", "MoveReport", "PlayResult", "STATE_NOTE", "Calibration", "CalibrationError",
           "load_calibration", "save_calibration", "Emulator", "Misbehaviour", "CommandRefused", "LinkError",
           "LinkTimeout", "ProtocolError"]
