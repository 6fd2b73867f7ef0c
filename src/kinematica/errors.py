"""The one base of every error Kinematica raises on purpose.

`except km.KinematicaError` catches them all — bad robots, targets, trajectories, files, scenes,
learned models, the Braccio link — while each keeps the standard base it had (ValueError for
bad input, TypeError for an argument of the wrong kind, RuntimeError for a missing part,
OSError for a serial port or a file that cannot be written), so code written against those
goes on working.

>>> import kinematica as km
>>> try:
...     km.load("no-such-robot")
... except km.KinematicaError as e:
...     type(e).__name__, isinstance(e, ValueError)
('InputError', True)
"""

from __future__ import annotations


class KinematicaError(Exception):
    """Base class of Kinematica's own exceptions."""


class InputError(KinematicaError, ValueError):
    """A value given to Kinematica is wrong: a shape, a NaN, a name, a count over its bound."""


class InputTypeError(KinematicaError, TypeError):
    """An argument of a kind Kinematica cannot use (a string where joint values belong, …)."""


class SetupError(KinematicaError, RuntimeError):
    """Something Kinematica needs is not installed or not available here."""


class WriteError(KinematicaError, OSError):
    """An output file or folder cannot be written (a folder in the way, a missing folder, no
    permission, a full disk): the message names the path and why; nothing was left behind."""


__all__ = ["KinematicaError", "InputError", "InputTypeError", "SetupError", "WriteError"]
