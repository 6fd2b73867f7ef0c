"""A tab whose content takes long to compute (figures, SymPy): the work runs in a worker thread
with a spinner in its place, results are remembered per state, and a result that arrives after
the state changed again is dropped in favour of the newer one.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from nicegui import background_tasks, run, ui

from .tab import LazyTab

CACHE_SIZE = 16  # states remembered per tab: enough to flip between topics and back


class BackgroundTab(LazyTab):
    """A LazyTab that fills `self.box` from work done off the event loop.

    Subclasses implement `job()` → (key, pin, work) and `show(result)`. key identifies the state
    the result depends on (ids are fine: `pin`, the objects behind them, stays referenced while
    the result is cached, so an id cannot be reused for another object meanwhile); work() is a
    plain function run in a thread; show() builds the elements inside `self.box`. A render
    whose key is the one already shown rebuilds nothing: it calls `kept()` (a tab whose
    elements follow something outside the key, such as the Plots tab's time line, updates them
    there).
    """

    def __init__(self, page) -> None:
        super().__init__(page)
        self.box = ui.column().classes("w-full gap-2")
        self._cache: OrderedDict[Hashable, tuple[Any, Any]] = OrderedDict()
        self._generation = 0
        self._shown: Hashable | None = None  # the key of the result in the box, if one is

    def job(self) -> tuple[Hashable, Any, Callable[[], Any]]:  # pragma: no cover — abstract
        raise NotImplementedError

    def show(self, result: Any) -> None:  # pragma: no cover — abstract
        raise NotImplementedError

    def kept(self) -> None:
        """The state changed in nothing the content depends on (its key): it stays as drawn."""

    def render(self) -> None:
        self._generation += 1
        key, pin, work = self.job()
        if key in self._cache:  # seen before: no spinner, no thread
            self._cache.move_to_end(key)
            if key == self._shown:
                self.kept()
            else:
                self._fill(key, self._cache[key][1])
            return
        self._shown = None
        self.box.clear()
        with self.box, ui.row().classes("items-center gap-2 text-grey-8"):
            ui.spinner(size="md")
            ui.label("computing…")
        background_tasks.create(self._compute(self._generation, key, pin, work), name=f"{self.name} tab")

    async def _compute(self, generation: int, key: Hashable, pin: Any, work: Callable[[], Any]) -> None:
        try:
            result = await run.io_bound(work)
        except Exception as e:  # noqa: BLE001 — shown in words: one bad state must not leave a spinner forever
            result = e
        if result is None or generation != self._generation or self.box.is_deleted:
            return  # shutting down, or the state moved on and a newer render is under way
        if not isinstance(result, Exception):
            self._cache[key] = (pin, result)
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        self._fill(key, result)

    def _fill(self, key: Hashable, result: Any) -> None:
        self._shown = None if isinstance(result, Exception) else key
        self.box.clear()
        with self.box:
            if isinstance(result, Exception):
                ui.label(f"This could not be computed: {result}").classes("text-red-10")
            else:
                self.show(result)
