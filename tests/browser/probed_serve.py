"""`kinematica serve` (same arguments) with one more route for the tests: GET /_live answers what
the server process holds — after a full garbage collection — as JSON:

- "objects": the number of objects the collector tracks;
- "ours": per class of the kinematica package, the number of live instances (Session, Page,
  ArmView, Player, Robot ...);
- "clients": NiceGUI's clients not yet deleted;
- "traced": the bytes Python's allocator holds (tracemalloc, started before anything is imported;
  None unless $KINEMATICA_PROBE_TRACEMALLOC is set: tracing slows the server down);
- "cpu": the process's CPU time so far (user + system, s).

Only the tests run this (tests/browser/test_sessions_memory.py); `kinematica serve` has no such route.
"""

import collections
import gc
import os
import resource
import sys
import tracemalloc

if os.environ.get("KINEMATICA_PROBE_TRACEMALLOC"):
    tracemalloc.start()

from fastapi.responses import JSONResponse  # noqa: E402
from nicegui import Client, app  # noqa: E402


@app.get("/_live")
def live() -> JSONResponse:
    gc.collect()
    ours: collections.Counter = collections.Counter()
    objects = gc.get_objects()
    for o in objects:
        module = getattr(type(o), "__module__", None)
        if isinstance(module, str) and module.startswith("kinematica"):
            ours[type(o).__qualname__] += 1
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return JSONResponse({"objects": len(objects), "ours": dict(ours), "clients": len(Client.instances),
                         "traced": tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else None,
                         "cpu": usage.ru_utime + usage.ru_stime})


if __name__ == "__main__":
    from kinematica.cli import main

    sys.exit(main())
