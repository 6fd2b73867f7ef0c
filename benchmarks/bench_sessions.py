"""The simulator server's own cost per slider event, and the slider latency users see, with 1 and
with 10 sessions at once (issue 32, item 13).

`kinematica serve` runs in its own process; headless Chromium (Debian's, driven by Playwright, as
the browser tests do) opens one page per session, each in its own browser context (its own
session). The pages' painting is slowed as the soak test does it (each animation frame delayed
2 s): on 2 cores the browsers' software WebGL would otherwise take the CPU the server is being
measured on. Each session then moves its base joint by clicking its slider (one click = one
slider event, at 40 %, 45 %, … 60 % of its length and back) EVENTS times, a user-like GAP apart,
and waits each time until the page shows the new tool position (the server's answer): that wait
is the latency.

The server's CPU time (user + system, from /proc) over the events, less what it spends in the
same time with the pages open and idle, divided by the events, is the CPU per event.

    python benchmarks/bench_sessions.py            # 1 and 10 sessions, 40 events each
    python benchmarks/bench_sessions.py --sessions 1 4 --events 20
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE.parent / "tests" / "browser")]

from harness import ARM_LATENCY, CHROMIUM, FLAGS, SLOW_PAINT, Server, why_not_available  # noqa: E402

VIEWPORT = {"width": 1280, "height": 800}
GOALS = {"cpu": 5.0, "median": 100.0, "p95": 250.0}  # ms: per event; 10-session latency


def cpu_seconds(pid: int) -> float:
    """User + system CPU time (s) of process `pid` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def open_page(browser, url: str):
    context = await browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(120_000)
    await context.add_init_script(SLOW_PAINT)
    page = await context.new_page()
    await page.goto(url, timeout=120_000)
    await page.wait_for_selector('.nicegui-scene:not([data-initializing]) canvas', timeout=120_000)
    return context, page


async def slide(page, events: int, gap: float, start: float) -> list[float]:
    """`events` slider steps on joint 1, `gap` s apart after `start` s; each one's latency (ms)
    until the readout shows a new tool position."""
    await asyncio.sleep(start)
    slider = page.get_by_test_id("joint-1-slider")
    x = page.get_by_test_id("pose-x")
    box = await slider.bounding_box()
    out: list[float] = []
    handles = [await slider.element_handle(), await x.element_handle()]
    for k in range(events):
        step = k % 8
        at = 0.4 + 0.05 * (step if step <= 4 else 8 - step)  # 40 … 60 % and back: each click a new value
        await page.evaluate(ARM_LATENCY, handles)
        await page.mouse.click(box["x"] + at * box["width"], box["y"] + box["height"] / 2)
        out.append(await page.evaluate("window.__latency"))
        await asyncio.sleep(gap)
    return out


async def measure(url: str, pid: int, sessions: int, events: int, gap: float) -> dict:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            pages = [await open_page(browser, url) for _ in range(sessions)]
            await asyncio.sleep(3.0)  # the pages' first requests done
            span = events * (gap + 0.05)
            c0 = cpu_seconds(pid)
            await asyncio.sleep(span)
            idle = (cpu_seconds(pid) - c0) / span  # s of CPU a second with the pages open, idle
            c0, t0 = cpu_seconds(pid), time.perf_counter()
            lat = await asyncio.gather(*(slide(p, events, gap, gap * k / sessions)
                                         for k, (_, p) in enumerate(pages)))
            busy, wall = cpu_seconds(pid) - c0, time.perf_counter() - t0
            for context, _ in pages:
                await context.close()
        finally:
            await browser.close()
    flat = sorted(x for run in lat for x in run)
    return {"sessions": sessions, "events": len(flat),
            "cpu": max(busy - idle * wall, 0.0) / len(flat) * 1e3, "idle": idle * 1e3,
            "median": statistics.median(flat), "p95": flat[min(len(flat) - 1, int(0.95 * len(flat)))]}


def table(rows: list[dict]) -> str:
    out = ["| sessions | slider events | server CPU per event (ms) | server CPU idle (ms/s) | "
           "latency median (ms) | latency p95 (ms) | goal |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        goal = f"CPU ≤ {GOALS['cpu']:g} ms " + ("met" if r["cpu"] <= GOALS["cpu"] else "**not met**")
        if r["sessions"] >= 10:
            ok = r["median"] <= GOALS["median"] and r["p95"] <= GOALS["p95"]
            goal += f"; median ≤ {GOALS['median']:g}, p95 ≤ {GOALS['p95']:g} ms " + ("met" if ok else "**not met**")
        out.append(f"| {r['sessions']} | {r['events']} | {r['cpu']:.2f} | {r['idle']:.1f} | {r['median']:.0f} | "
                   f"{r['p95']:.0f} | {goal} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, nargs="+", default=[1, 10])
    ap.add_argument("--events", type=int, default=40, help="slider events per session")
    ap.add_argument("--gap", type=float, default=0.3, help="s between a session's events")
    args = ap.parse_args(argv)
    reason = why_not_available()
    if reason:
        raise SystemExit(reason)
    rows = []
    for n in args.sessions:
        with Server(wait=True, timeout=60.0) as server:
            rows.append(asyncio.run(measure(server.url, server.process.pid, n, args.events, args.gap)))
        print(table(rows[-1:]).splitlines()[-1], flush=True)
    print(table(rows))


if __name__ == "__main__":
    main()
