"""The proof suite (issue 15): the issue's attacks and faults replayed at a small scale.

Each test prints one line ``PROOF <attack>: <tried> tried, <failed> failed`` (run with
``-s`` to see them); bench/bench_proof.py runs the same at full scale and prints the table.
"""
from __future__ import annotations

import pytest

from tests.web.conftest import app, client, hub, live, store, table  # noqa: F401  (shared fixtures)


@pytest.fixture
def proof_line(capsys):
    lines = []

    def report(attack: str, tried: int, failed: int, note: str = "") -> None:
        lines.append(f"PROOF {attack}: {tried} tried, {failed} failed{'; ' + note if note else ''}")
    yield report
    with capsys.disabled():
        for line in lines:
            print("\n" + line)
