"""The rows of `make bench`'s final table: each bench reports its targets here.

A row is one measure: potionpi's figure, the fair baseline measured in the same run (the
bare Flask app on potionpi's own waitress settings, the daemon before a download, the
message at action 10, ...), their ratio, the target and whether it was met. A bench run
by hand prints its rows; under bench/run_all.py (``make bench``) they also go to the
file named by ``$POTIONPI_BENCH_ROWS``, one JSON object a line, for the final table.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Iterable

ROWS_FILE = "POTIONPI_BENCH_ROWS"


def row(measure: str, ours: str, baseline: str = "", ratio: float | None = None, target: str = "",
        met: bool | None = None, note: str = "") -> None:
    """Print one row and hand it to the final table (``met`` None: a figure, no target)."""
    record = {"measure": measure, "ours": ours, "baseline": baseline, "ratio": ratio, "target": target,
              "met": met, "note": note}
    flag = {True: "met", False: "NOT met", None: ""}[met]
    shown = f"{ratio:.2f}x" if ratio is not None else ""
    print(f"  ROW {measure}: {ours}" + (f" vs {baseline}" if baseline else "")
          + (f" = {shown}" if shown else "") + (f"; target {target} {flag}" if target else "")
          + (f" ({note})" if note else ""), flush=True)
    path = os.environ.get(ROWS_FILE)
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")


def spread(values: Iterable[float], fmt: str = "{:.2f}") -> str:
    """``median (min-max)`` of a few runs."""
    values = sorted(values)
    if not values:
        return "n/a"
    mid = fmt.format(statistics.median(values))
    return mid if len(values) == 1 else f"{mid} ({fmt.format(values[0])}-{fmt.format(values[-1])})"


def load_average() -> str:
    """The machine's load while the bench ran (the shared VM's other jobs show here)."""
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "?"
    return f"{one:.1f}/{five:.1f} on {os.cpu_count()} cores"


def compiled(*roots: Path) -> None:
    """Bytecode for the checkouts a bench runs, as a Pi has it: ``make`` compiles the
    installed code (``compileall``, into its ``__pycache__``, a cache git ignores), while
    this machine's environment may say PYTHONDONTWRITEBYTECODE, and then every start
    would compile potionpi from source while the bare app's libraries are compiled."""
    for root in roots:
        subprocess.run([sys.executable, "-m", "compileall", "-q", "controller", "web_ui"], cwd=root,
                       check=False, stdout=subprocess.DEVNULL)
