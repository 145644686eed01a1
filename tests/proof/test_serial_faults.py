"""Serial-link faults mid-turn (issue 15 item 11): the floor never moves without a command.

Zauberwald on the serial floor over a real pty to the simulated Pico; at a random moment
of every turn the link fails (power cut, cable out with the Pico still powered, a reset,
a dead wire, a cable out until the turn is over). Every step the motor makes is judged
(see tests/proof/serial_faults.py). CI runs one turn per kind of fault; bench/bench_proof.py
runs 120 (``PROOF_SERIAL_TURNS``).
"""
from __future__ import annotations

import os

from tests.proof import serial_faults

TURNS = int(os.environ.get("PROOF_SERIAL_TURNS", str(len(serial_faults.FAULTS))))   # bench: 120


def test_serial_faults_never_move_the_floor_unasked(tmp_path, proof_line):
    t = serial_faults.run(tmp_path, TURNS)
    note = serial_faults.summary(t)
    proof_line("serial faults mid-turn (Zauberwald)", t.faulted, t.failed, note)
    assert t.faulted >= TURNS // 2, f"the faults missed the turns: {note}"
    assert t.steps > 0 and t.by_hand > 0, note            # the motor turned; some turns needed the master
    assert t.unasked == 0, "\n".join([note] + t.examples)
    assert t.failed == 0, "\n".join([note] + t.examples)
