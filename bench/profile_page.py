"""Where the tablet page's first render goes, at 6x CPU throttle (issue 16).

Loads the page once like ``bench_page.py`` (``potionpi run --sim``, a game on the table,
headless Chromium, CPU throttled 6x) with Chromium's CPU profiler and trace on, and
prints: the time to the board, the JavaScript functions with the most time (self and
with what they call) and the main thread's longest steps (parse, style, layout, paint,
script). The profile is saved for Chromium's DevTools (Performance panel: load it).
No thresholds.

    python bench/profile_page.py [--game zauberwald] [--out /tmp/page.cpuprofile]
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_page import PLAYERS, board_ms, board_on_table  # noqa: E402
from tests.e2e.conftest import find_chromium  # noqa: E402

CATEGORIES = "devtools.timeline,disabled-by-default-devtools.timeline,blink,loading,v8.execute"


def frame_name(node: dict) -> str:
    """`function file:line` for a profile node."""
    frame = node["callFrame"]
    where = frame["url"].rsplit("/", 1)[-1].split("?")[0]
    return f'{frame["functionName"] or "(anonymous)"} {where}:{frame["lineNumber"] + 1}' if where \
        else frame["functionName"]


def js_times(profile: dict) -> tuple[collections.Counter, collections.Counter]:
    """ms per function: on top of the stack (self), anywhere on it (total, recursion once)."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    parent = {child: n["id"] for n in profile["nodes"] for child in n.get("children", [])}
    own: collections.Counter = collections.Counter()
    total: collections.Counter = collections.Counter()
    # a sample's time is the gap to the next one
    for sample, dt in zip(profile["samples"], profile["timeDeltas"][1:] + [0]):
        own[frame_name(nodes[sample])] += dt / 1000
        seen, node = set(), sample
        while node is not None:
            name = frame_name(nodes[node])
            if name not in seen:
                total[name] += dt / 1000
                seen.add(name)
            node = parent.get(node)
    return own, total


def main_thread_steps(events: list[dict], at_least_ms: float) -> list[tuple[int, float, str]]:
    """(start ms, duration ms, name) of the renderer main thread's trace steps, in order."""
    main = next(((e["pid"], e["tid"]) for e in events
                 if e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"), None)
    mine = sorted((e for e in events if (e.get("pid"), e.get("tid")) == main and e.get("ph") in ("X", "B", "E")),
                  key=lambda e: e["ts"])
    if not mine:
        return []
    start = mine[0]["ts"]
    open_: dict[str, list[dict]] = collections.defaultdict(list)
    steps = []
    for e in mine:
        if e["ph"] == "X":
            steps.append((e["ts"], e.get("dur", 0), e["name"]))
        elif e["ph"] == "B":
            open_[e["name"]].append(e)
        elif e["ph"] == "E" and open_[e["name"]]:
            b = open_[e["name"]].pop()
            steps.append((b["ts"], e["ts"] - b["ts"], e["name"]))
    wanted = {"DocumentLoader::CommitNavigation", "ResourceFetcher::requestResource", "ParseHTML",
              "v8.evaluateModule", "RunMicrotasks", "FunctionCall", "UpdateLayoutTree", "Layout",
              "LocalFrameView::NotifyResizeObservers", "Paint", "MinorGC"}
    # a step nested in one of the same name (Paint in Paint) is listed once
    return sorted({(round((ts - start) / 1000), round(dur / 1000, 1), name) for ts, dur, name in steps
                   if dur / 1000 >= at_least_ms and name in wanted})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="mirakel-mix", choices=sorted(PLAYERS))
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "potionpi-page.cpuprofile",
                        help="where to save the CPU profile (for DevTools)")
    parser.add_argument("--top", type=int, default=15, help="how many functions to list")
    parser.add_argument("--one-core", action="store_true", help="the browser on one core (as bench_page.py)")
    args = parser.parse_args()
    chromium = find_chromium()
    if chromium is None:
        print("no Chromium: not profiled")
        return
    with board_on_table(args.game, chromium, pinned=args.one_core) as (d, new_page):
        _context, page, cdp = new_page()
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 6})
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 200})      # µs
        cdp.send("Tracing.start", {"categories": CATEGORIES, "transferMode": "ReturnAsStream"})
        cdp.send("Profiler.start")
        page.goto(d.url + "/", wait_until="commit")
        took = board_ms(cdp)
        profile = cdp.send("Profiler.stop")["profile"]
        done: list[dict] = []
        cdp.on("Tracing.tracingComplete", lambda event: done.append(event))
        cdp.send("Tracing.end")
        deadline = time.monotonic() + 60
        while not done and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        if not done:
            raise SystemExit("the trace did not finish within 60 s")
        chunks = []
        while True:
            read = cdp.send("IO.read", {"handle": done[0]["stream"]})
            chunks.append(read["data"])
            if read.get("eof"):
                break
    args.out.write_text(json.dumps(profile))
    trace = json.loads("".join(chunks))
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    own, total = js_times(profile)
    print(f"{args.game}: board drawn {took:.0f} ms after navigation start (6x throttle, profiler on)")
    print("JavaScript, self ms (native steps the engine does not attribute are '(program)'):")
    for name, ms in own.most_common(args.top):
        print(f"  {ms:7.1f}  {name}")
    print("JavaScript, total ms with what it calls:")
    for name, ms in total.most_common(args.top):
        print(f"  {ms:7.1f}  {name}")
    print("main thread, steps of 8 ms or more (start ms from the trace's start, duration ms):")
    for start, dur, name in main_thread_steps(events, 8):
        print(f"  {start:7.0f}  +{dur:6.1f}  {name}")
    print(f"profile saved: {args.out}")


if __name__ == "__main__":
    main()
