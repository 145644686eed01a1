"""Issue 15's proof suite at full scale: prints the table of attacks and faults.

    python bench/bench_proof.py            # 200 kill -9 cycles, 100 races, 5,000 fuzz cases,
                                           # 120 Zauberwald turns with a serial-link fault each,
                                           # 20 random games a hidden-information game for the
                                           # PIN route, 3,000 raw requests
    python bench/bench_proof.py --quick    # the CI sizes (tests/proof)

Each row is an attack or fault, how often it was tried and how often the table failed
(an acknowledged action lost, a 5xx, a tap not served, ...). Every "failed" must be 0.
Then figures: restart time after 1,500 Zaubercocktail phone entries. No thresholds.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FULL = {"PROOF_KILL9_CYCLES": "200", "PROOF_RACE_ROUNDS": "100", "PROOF_FUZZ_CASES": "5000",
        "PROOF_SERIAL_TURNS": "120", "PROOF_PIN_GAMES": "20", "PROOF_RAW_CASES": "3000"}
LINE = re.compile(r"^PROOF (?P<name>.+?): (?P<tried>\d+) tried, (?P<failed>\d+) failed(?:; (?P<note>.*))?$")


def proof_table(quick: bool) -> int:
    env = dict(os.environ, **({} if quick else FULL))
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-p", "no:xdist",
                             "--timeout=3600", "-s", "tests/proof"], cwd=ROOT, env=env, capture_output=True, text=True)
    rows = [m.groupdict() for m in map(LINE.match, result.stdout.splitlines()) if m]
    width = max(len(r["name"]) for r in rows) if rows else 10
    print(f"{'attack or fault':<{width}}  {'tried':>7}  {'failed':>6}  notes")
    for r in rows:
        print(f"{r['name']:<{width}}  {r['tried']:>7}  {r['failed']:>6}  {r['note'] or ''}")
    print(f"pytest: {result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stderr[-500:]}")
    if result.returncode:                        # say what failed, not only that something did
        for line in result.stdout.splitlines():
            if line.startswith(("E ", "FAILED")):
                print("  " + line)
    return result.returncode


def restart_after_phone_entries(entries: int = 1500) -> None:
    from controller.store import Store
    from controller.table import Table

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "t.sqlite3")
        table = Table(store)
        table.start("zaubercocktail", ["Arne", "Babs", "Chris", "Doro", "Erni"], seed=3)
        table.act({"type": "reveal"})
        for seat in (3, 0, 1):
            table.act({"type": "drop_out", "seat": seat})
        hands = ({"faran_leaf": 3}, {"greenwurz": 2}, {"troll_hair": 2, "lead_earth": 2})
        for i in range(entries):
            table.act({"type": "lay_down", "seat": 1, "cards": hands[i % 3], "black": {}}, source="phone")
        store.close()
        t0 = time.perf_counter()
        again = Table(Store(Path(tmp) / "t.sqlite3"))
        again.resume()
        took = time.perf_counter() - t0
        print(f"restart after {entries} phone entries: {took:.2f} s to resume version {again.version}, "
              f"undo list {len(again._state['undo'])} deep (was 123 s and unbounded in issue 15)")


if __name__ == "__main__":
    code = proof_table("--quick" in sys.argv)
    restart_after_phone_entries()
    sys.exit(code)
