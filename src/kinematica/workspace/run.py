"""Chunked, reproducible, resumable execution of a map's blocks with Dask.

A map is cut into fixed blocks (so many samples or voxels each); a block's random numbers come
from `block_seed(job seed, stream, block)` (NumPy's SeedSequence), never from its neighbours,
so the map depends on the job seed alone — not on how blocks are grouped into tasks (`chunk`),
how many workers run them, or which scheduler. Tasks run on Dask's threaded scheduler in this
process by default, or on an existing cluster (`scheduler="tcp://host:8786"`; a worker lost
mid-job has its tasks rerun by Dask). With `parts` (a directory) every finished task's result is
saved there at once (written to a temporary name, then renamed: never half a file), and a
rerun of the same job loads them and computes only the blocks still missing.

>>> block_seed(0, 1, 5) == block_seed(0, 1, 5), block_seed(0, 1, 5) == block_seed(0, 1, 6)
(True, False)
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .. import atomic
from ..errors import WriteError
from ..extras import need
from .grid import WorkspaceError

CONNECT_TIMEOUT = 3.0  # s: a scheduler that has not answered by then is reported, not waited for


def block_seed(seed: int, stream: int, block: int) -> int:
    """A 63-bit integer seed for `block` of `stream` (0 envelope, 1 reachability) of job `seed`."""
    return int(np.random.SeedSequence([int(seed), stream, block]).generate_state(1, np.uint64)[0] >> 1)


def check_seed(seed: object) -> int:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise WorkspaceError(f"seed: expected a whole number >= 0, got {seed!r}")
    return int(seed)


def tasks(blocks: Sequence[int], per_task: int) -> list[tuple[int, int]]:
    """Contiguous runs of at most `per_task` of the (sorted) `blocks`, as (start, stop) ranges."""
    out: list[tuple[int, int]] = []
    for b in blocks:
        if out and out[-1][1] == b and b - out[-1][0] < per_task:
            out[-1] = (out[-1][0], b + 1)
        else:
            out.append((b, b + 1))
    return out



def write_whole(path: Path, data: bytes) -> None:
    """Write `data` to `path` complete or not at all (`kinematica.atomic`: a temporary file of
    a random name beside it, so parallel writers never share one, synced, then renamed over it)."""
    try:
        atomic.write_bytes(path, data)
    except WriteError as e:
        raise WorkspaceError(str(e)) from None

class OtherJobError(WorkspaceError):
    """A `resume` directory holds the partial results of another job (`kinematica workspace`
    replaces those of its own FILE.parts; the API leaves the user's directory alone)."""


class Parts:
    """Saved task results of one job in a directory: `job.json` (what the job is) and one
    `blocks-START-STOP.npz` per finished task."""

    def __init__(self, directory: str | os.PathLike, job: dict[str, Any]) -> None:
        self.dir = Path(directory)
        self.stamp, self.job = self.dir / "job.json", json.dumps(job, sort_keys=True)
        try:
            other = self.stamp.exists() and self.stamp.read_text() != self.job
        except (OSError, UnicodeDecodeError):
            other = True  # unreadable: not this job's
        if other:
            raise OtherJobError(f"{self.dir} holds the partial results of another job: remove it or resume "
                                "with the same robot and parameters")

    def _start(self) -> None:
        """Make the folder and its job stamp at the first save (a job that fails before any
        task finishes leaves nothing behind)."""
        if self.stamp.exists():
            return
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise WorkspaceError(f"cannot keep partial results in {self.dir}: {e.strerror or e}") from None
        self._write(self.stamp, self.job.encode())

    def _write(self, path: Path, data: bytes) -> None:
        write_whole(path, data)

    def spans(self) -> list[tuple[int, int]]:
        """The block ranges (start, stop) of the saved task results."""
        return sorted((int(a), int(b)) for _, a, b in (f.stem.split("-") for f in self.dir.glob("blocks-*-*.npz")))

    def read(self, span: tuple[int, int]) -> dict[str, np.ndarray]:
        with np.load(self.dir / f"blocks-{span[0]:09d}-{span[1]:09d}.npz") as z:
            return {k: z[k] for k in z.files}

    def save(self, span: tuple[int, int], result: dict[str, np.ndarray]) -> None:
        import io

        self._start()
        buf = io.BytesIO()
        # (pyright: **result could fill savez's allow_pickle, a keyword since NumPy 2.2; its keys are array names)
        np.savez(buf, **result)  # pyright: ignore[reportArgumentType]
        self._write(self.dir / f"blocks-{span[0]:09d}-{span[1]:09d}.npz", buf.getvalue())


def _dask():
    need("dask", "workspace", "the workspace maps")
    need("distributed", "workspace", "the workspace maps")


def execute(work: Callable[..., dict], args: Callable[[int, int], tuple], n_blocks: int, per_task: int,
            combine: Callable[[tuple[int, int], dict], None], *, scheduler: str | None = None,
            parts: Parts | None = None, progress: Callable[[int, int], None] | None = None) -> int:
    """Run `work(*args(start, stop))` for every task of `n_blocks` blocks, `per_task` blocks each,
    handing each result to `combine(span, result)` (under a lock, in any order; results are not
    kept, so a map of millions of voxels holds only its own arrays). Saved parts are combined
    first. Returns how many blocks came from saved parts."""
    _dask()
    lock, count = threading.Lock(), [0]
    covered: set[int] = set()
    if parts:
        for span in parts.spans():
            combine(span, parts.read(span))
            covered.update(range(*span))
    count[0] = len(covered)
    todo = tasks([b for b in range(n_blocks) if b not in covered], per_task)

    def finished(span: tuple[int, int], result: dict) -> None:
        if parts:
            parts.save(span, result)
        with lock:
            combine(span, result)
            count[0] += span[1] - span[0]
            if progress:
                progress(count[0], n_blocks)

    if scheduler is None:
        from dask.base import (
            compute,  # where they are defined: `dask` re-exports them without __all__
        )
        from dask.delayed import delayed

        def one(span):
            finished(span, work(*args(*span)))
        if todo:
            compute(*[delayed(one)(s) for s in todo], scheduler="threads")
    else:
        _on_cluster(scheduler, work, args, todo, finished)
    return len(covered)


ADDRESS = re.compile(r"^(?:(?:tcp|tls|ws|wss)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")


def check_address(address: object) -> str:
    """A scheduler address [tcp|tls|ws|wss://]HOST:PORT, else a WorkspaceError (checked before
    Dask sees it: a Client made from a malformed address hangs for seconds as it is collected)."""
    m = ADDRESS.match(address) if isinstance(address, str) else None
    if not isinstance(address, str) or m is None or not 0 < int(m.group(1)) < 65536:
        raise WorkspaceError(f"scheduler: expected a Dask scheduler address such as tcp://10.0.0.5:8786, "
                             f"got {address!r}")
    return address


def _on_cluster(address: str, work, args, todo, finished) -> None:
    from distributed import Client, as_completed

    check_address(address)
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise WorkspaceError(f"the Dask scheduler at {address!r} did not answer within {CONNECT_TIMEOUT:g} s "
                             f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else 'no reply'}); start "
                             "it with `dask scheduler` or leave out the scheduler to run here") from None
    try:
        futures = {client.submit(work, *args(*s), pure=False): s for s in todo}
        for fut in as_completed(list(futures), loop=client.loop):
            finished(futures[fut], fut.result())
            fut.release()  # the cluster may forget it: the result is combined (and saved)
    finally:
        client.close()
