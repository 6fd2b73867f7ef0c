"""`km.hardware.Arm`: what every physical arm driver offers, whatever its bus.

    connect()   open the link and check the arm answers
    home()      go to the arm's home
    move(q)     go to joint values q (rad)
    play(traj)  stream a trajectory
    stop()      hold where the arm is now; returns its state
    state()     where the arm is — `state().measured` says whether the joint values were read
                from the servos' encoders (True: the SO-101's bus servos) or are what the host
                last commanded (False: the Braccio's hobby servos report nothing)
    close()     close the link (the servos keep holding)

Drivers: `Braccio` (line protocol to an Arduino, commanded state) and `So101` (Feetech STS bus,
measured state). Both are context managers that connect on entry and close on exit.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar


class Arm(ABC):
    """The interface of a physical arm's driver (see the module's text)."""

    measures: ClassVar[bool] = False  # whether state() reads the joints from the servos

    @abstractmethod
    def connect(self) -> Any: ...

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def home(self) -> Any: ...

    @abstractmethod
    def move(self, q: Any) -> Any: ...

    @abstractmethod
    def play(self, trajectory: Any) -> Any: ...

    @abstractmethod
    def stop(self) -> Any: ...

    @abstractmethod
    def state(self) -> Any: ...

    def __enter__(self) -> Arm:
        self.connect()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
