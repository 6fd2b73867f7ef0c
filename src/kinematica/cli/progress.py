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
from collections.abc import Callable
from typing import TextIO


class Progress:
    """A `progress(done, evaluations)` callback that writes a line to `stream` now and then;
    `detail(done, value)` words the middle of the line (default: a simulation's time and
    evaluations; training says "epoch 3 of 20, RMSE …")."""

    def __init__(self, stream: TextIO, what: str, unit: str, total: float, *,
                 after: float = 1.0, every: float = 2.0,
                 clock: Callable[[], float] = time.monotonic,
                 detail: Callable[[float, float], str] | None = None) -> None:
        self.stream, self.what, self.unit, self.total = stream, what, unit, total
        self.every, self.clock = every, clock
        self.next = clock() + after
        self.detail = detail or (lambda done, n: f"t = {done:.4g} of {self.total:g} {self.unit}, "
                                                 f"{n:,.0f} evaluations")

    def __call__(self, done: float, evaluations: float) -> None:
        now = self.clock()
        if now < self.next:
            return
        self.next = now + self.every
        self.stream.write(f"kinematica: {self.what}: {self.detail(done, evaluations)} (Ctrl+C stops)\n")
        self.stream.flush()
