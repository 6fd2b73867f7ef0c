"""Progress of long work on stderr, so that a long run never looks like a hang.

Quiet for the first `after` seconds (most runs end before), then one line every `every`
seconds: what is being done, how far it is, and that Ctrl+C stops it.

>>> import io
>>> clock = iter([0.0, 0.5, 1.2, 1.5, 3.3]).__next__
>>> err = io.StringIO()
>>> report = Progress(err, "simulating puma560", "s", 1.0, clock=clock)
>>> for t in (0.1, 0.2, 0.3, 0.4):
...     report(t, 1000 * t)
>>> print(err.getvalue(), end="")
kinematica: simulating puma560: t = 0.2 of 1 s, 200 evaluations (Ctrl+C stops)
kinematica: simulating puma560: t = 0.4 of 1 s, 400 evaluations (Ctrl+C stops)
"""

from __future__ import annotations

import time
from typing import Callable, TextIO


class Progress:
    """A `progress(done, evaluations)` callback that writes a line to `stream` now and then."""

    def __init__(self, stream: TextIO, what: str, unit: str, total: float, *,
                 after: float = 1.0, every: float = 2.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream, self.what, self.unit, self.total = stream, what, unit, total
        self.every, self.clock = every, clock
        self.next = clock() + after

    def __call__(self, done: float, evaluations: int) -> None:
        now = self.clock()
        if now < self.next:
            return
        self.next = now + self.every
        self.stream.write(f"kinematica: {self.what}: t = {done:.4g} of {self.total:g} {self.unit}, "
                          f"{evaluations:,.0f} evaluations (Ctrl+C stops)\n")
        self.stream.flush()
