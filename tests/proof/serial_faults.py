"""Serial-link faults during Zauberwald turns, judged by what the floor physically does.

A real table (SQLite store, the Zauberwald engine), the serial forest floor and the
simulated Pico (the firmware's own logic over a real pty) are wired as in the daemon.
Each turn the master taps "turn" and, at a random moment of it, the link fails: the
Pico loses power (cable pulled, no other supply), the cable is pulled while the motor
supply keeps the Pico running, the Pico resets (brown-out), or the wire goes dead for
a while (every frame lost). The cable goes back in at a random later moment, often
after the turn is over. A master who does what the tablet shows — hands off while the
floor turns, turn by hand and tap done when it asks — plays on meanwhile.

Every step pulse the simulated motor makes is judged as it happens: it must belong to
the turn the master asked for while the game still waits for that turn (phase
"turning", before the master taps done). Also counted: a turn the motor finished
although the master was asked to turn it by hand (a double turn), the game hearing
``floor_turned`` more than once for a turn, a floor that ended a turn somewhere else
than the game counts, and a turn the master could not finish at all.
"""
from __future__ import annotations

import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.config import section
from controller.devices.floor_serial import SerialForestFloor
from controller.devices.hub import DeviceHub
from controller.devices.pico_link import LinkTimings
from controller.devices.sim_pico import Faults, SimPico
from controller.store import Store
from controller.table import Table
from tests.sizes import TIMEOUT_SCALE

STEPS_PER_ANT = 10
ANTS = 16
REV = STEPS_PER_ANT * ANTS
# (what fails, how long until it is mended: None for at once, else a range of seconds)
FAULTS = {
    "power cut": (0.05, 2.5),                      # cable out, the Pico loses power
    "cable pulled, Pico powered": (0.05, 2.5),     # the motor supply keeps the Pico running
    "Pico reset": None,                            # brown-out: it reboots, the cable stays in
    "dead wire": (0.2, 2.5),                       # every frame lost for a while
    "cable out long, power cut": (3.0, 4.0),       # back only once the turn is over
    "cable out long, Pico powered": (3.0, 4.0),
}
PATIENCE_S = 1.5       # a master who sees "turning" but nothing turn for this long taps STOP
# A wait for a state (the link up, the floor at rest) gives it this long: only a run that
# fails reaches it, however busy the machine (a CPU hog on every core holds the simulated
# Pico up for seconds).
STATE_WAIT_S = 60.0 * TIMEOUT_SCALE
# Short link limits keep the run quick; the protocol is the same as with the defaults.
FAST = {"heartbeat_s": 0.05, "lost_after_s": 0.3, "rto_s": 0.02, "rto_max_s": 0.2,
        "hello_timeout_s": 0.3, "backoff_s": 0.02, "backoff_max_s": 0.2}


@dataclass
class Tally:
    turns: int = 0
    faulted: int = 0                  # turns whose link failed while the floor was on the turn
    by_fault: Counter = field(default_factory=Counter)
    steps: int = 0                    # step pulses the motor made
    unasked: int = 0                  # ... not part of the current turn the master asked for
    unasked_turns: int = 0            # turns during or after which such steps came
    stops: int = 0                    # turns the master stopped (turning, but nothing turned)
    by_hand: int = 0                  # turns the master was asked to finish by hand
    double_turn: int = 0              # ... for more ants although the motor had finished it
    turned_twice: int = 0             # turns the game heard floor_turned for more than once
    off_target: int = 0               # turns that ended with the floor elsewhere than the game counts
    stuck: int = 0                    # turns the master could not finish (no way to tap done)
    notices: Counter = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def note(self, what: str) -> None:
        if len(self.examples) < 8:
            self.examples.append(what)

    @property
    def failed(self) -> int:
        return self.unasked_turns + self.double_turn + self.turned_twice + self.off_target + self.stuck


class Rig:
    """The table, the floor behind a simulated Pico, and the judge of every step."""

    def __init__(self, tmp: Path, seed: int):
        self.rng = random.Random(seed)
        self.sim = SimPico(steps_per_rev=REV, start=REV - 7, faults=Faults(seed=seed))
        self.store = Store(tmp / "table.sqlite3")
        self.table = Table(self.store)
        cfg = section("forest_floor", backend="serial", ants_around=ANTS,
                      steps_per_ant=float(STEPS_PER_ANT), top_speed=150.0, acceleration=1500.0,
                      homing_speed=200.0)
        self.floor = SerialForestFloor.from_config(cfg, serial_port=self.sim.port,
                                                   timings=LinkTimings.from_dict(FAST))
        self.hub = DeviceHub(simulated=False, forest_floor=self.floor).wire(self.table)
        self.tally = Tally()
        self.commanded = False        # between the master's "turn" and his "done"
        self.expect = 0               # where the disc should stand, steps from the home mark
        self._turn_unasked = 0
        self.sim.physical.on_pulse = self._judge
        self._replug: threading.Timer | None = None
        self._kinds: list[str] = []

    def close(self) -> None:
        if self._replug is not None:
            self._replug.cancel()
        self.hub.close()
        self.sim.close()
        self.store.close()

    # --- the judge (the simulated Pico's thread, once per step pulse) --------------------
    def _judge(self) -> None:
        self.tally.steps += 1
        state = self.table._state or {}          # read without the lock: a glance, not a change
        if not (self.commanded and state.get("phase") == "turning"):
            self.tally.unasked += 1
            self._turn_unasked += 1

    # --- the game around the turns ------------------------------------------------------
    def phase(self) -> str:
        return self.table.inspect(lambda game, state: state["phase"])

    def play_to_turn(self) -> None:
        """Any legal actions (no undo, no "stop!") until the master may turn; a new game when one ends."""
        for _ in range(500):
            session = self.table.session()
            if session is None or session["outcome"] is not None:
                self.table.start("zauberwald", ["Ann", "Ben"], seed=self.rng.randrange(10_000))
                continue
            phase = session["state"]["phase"]
            if phase == "turn":
                return
            legal = [a for a in session["legal_actions"] if a["type"] not in ("undo", "stop")]
            self.table.act(self.rng.choice(legal) if phase == "check" else legal[0])
        raise AssertionError("the game never came to a turn")

    # --- one turn ---------------------------------------------------------------------
    def turn(self, timeout: float = STATE_WAIT_S) -> None:
        t = self.tally
        t.turns += 1
        self._turn_unasked = 0
        before_log = len(self._floor_turned())
        session = self.table.session()
        assert session is not None
        state = session["state"]
        ants, direction = state["round"]["tile"], self.rng.choice(("clockwise", "counter_clockwise"))
        target = (self.expect + (ants if direction == "clockwise" else -ants) * STEPS_PER_ANT) % REV
        start = self.floor.position              # where the tablet counts the turn from
        notices_before = self.table._notice_seq
        self.commanded = True
        self.table.act({"type": "turn", "seat": state["master"], "direction": direction})
        # the fault, at a random moment of the turn (its homing included)
        time.sleep(self.rng.uniform(0.0, 0.3 + ants * STEPS_PER_ANT / 150.0))
        if not self._kinds:
            self._kinds = self.rng.sample(list(FAULTS), len(FAULTS))
        kind = self._kinds.pop()
        hit = self.floor.state in ("moving", "homing")
        if hit:
            t.faulted += 1
            t.by_fault[kind] += 1
        self._inject(kind)
        # the master, as the tablet leads him
        deadline = time.monotonic() + timeout
        still_since, seen_at, stopped = time.monotonic(), self.sim.physical.steps, False
        while self.phase() == "turning":
            now = time.monotonic()
            if now > deadline:
                t.stuck += 1
                t.note(f"turn {t.turns} ({kind}): the floor stayed {self.floor.state}, "
                       "no way to tap done")
                self.commanded = False
                self.table.act({"type": "floor_turned", "manual": True, "seat": state["master"]})
                break
            if self.floor.state in ("moving", "homing"):
                # hands off; but a floor that says "turning" and does not turn gets the STOP
                if self.sim.physical.steps != seen_at:
                    still_since, seen_at = now, self.sim.physical.steps
                elif now - still_since > PATIENCE_S and not stopped:
                    stopped = True
                    t.stops += 1
                    self.floor.stop()
            elif self._tablet_asks_by_hand():
                time.sleep(0.15)                   # a person reads, then reaches for the floor
                if not self._tablet_asks_by_hand() or self.phase() != "turning":
                    continue
                t.by_hand += 1
                self.commanded = False
                self._turn_by_hand(target, ants, direction, start)
                self.table.act({"type": "floor_turned", "manual": True, "seat": state["master"]})
                break
            time.sleep(0.01)
        self.commanded = False
        for seq, notice in list(self.table._notices):
            if seq > notices_before:
                t.notices[notice["kind"]] += 1
        heard = len(self._floor_turned()) - before_log
        if heard > 1:
            t.turned_twice += 1
            t.note(f"turn {t.turns} ({kind}): the game heard floor_turned {heard} times")
        # the search: players' hands are in the forest while the cable may still come back
        self._settle()
        self.expect = target
        if self.sim.physical.angle_steps() != target:
            t.off_target += 1
            t.note(f"turn {t.turns} ({kind}): the floor stands at {self.sim.physical.angle_steps()} "
                   f"steps from the mark, not at {target}")
        if self._turn_unasked:
            t.unasked_turns += 1
            t.note(f"turn {t.turns} ({kind}): {self._turn_unasked} steps nobody asked for")

    def _tablet_asks_by_hand(self) -> bool:
        """The tablet's turning screen (tablet.js stageTurning) shows "turn it by hand"."""
        s = self.floor.status()
        if s["state"] in ("moving", "homing"):
            return False
        return not (s["last_move"] and s["last_move"].get("result") == "done" and s["state"] == "idle")

    def _turn_by_hand(self, target: int, ants: int, direction: str, start: float) -> None:
        """The master does what the tablet says. Position lost (a jam, a lost link): he sets
        the floor the whole turn from where it stood before. Otherwise "N more ants": he
        turns N ants on from where it stands, N counted from the floor's last position."""
        physical = self.sim.physical
        s = self.floor.status()
        lost = s.get("position_lost") or str(s.get("fault") or "").startswith("jam")
        with self.sim._lock:                     # the disc is turned by hand: no pulses, no Pico
            physical.jammed = False
            if lost:
                physical.steps += target - physical.angle_steps()
                return
            moved = (s["position"] - start) if direction == "clockwise" else (start - s["position"])
            moved %= ANTS
            moved = 0.0 if moved > ANTS - 0.5 else min(moved, float(ants))
            more = round((ants - moved) * STEPS_PER_ANT)
            if more and physical.angle_steps() == target:
                self.tally.double_turn += 1
                self.tally.note(f"turn {self.tally.turns}: asked for {more} more steps by hand, "
                                "but the motor had finished the turn")
            physical.steps += more if direction == "clockwise" else -more

    def _floor_turned(self) -> list[dict[str, Any]]:
        session = self.table.session()
        assert session is not None
        return [e for e in self.store.actions(session["id"]) if e["action"]["type"] == "floor_turned"]

    def _inject(self, kind: str) -> None:
        sim = self.sim
        mend = FAULTS[kind]
        if mend is None:
            sim.reset()
            return
        if kind == "dead wire":
            sim.faults.drop = 1.0
        else:
            sim.unplug(power_loss="powered" not in kind)
        self._replug = threading.Timer(self.rng.uniform(*mend), self._mend, args=(kind,))
        self._replug.start()

    def _mend(self, kind: str) -> None:
        if kind == "dead wire":
            self.sim.faults.drop = 0.0
        else:
            self.sim.replug()

    def _settle(self) -> None:
        """Wait (in the search phase) until the cable is back, the link up and the floor at rest."""
        if self._replug is not None:
            self._replug.join()
            self._replug = None
        deadline = time.monotonic() + STATE_WAIT_S
        while time.monotonic() < deadline:
            if self.floor.link.state == "connected" and self.floor.state not in ("moving", "homing"):
                break
            time.sleep(0.01)
        time.sleep(0.3)                          # anything the reconnect would set going starts by now


def run(tmp: Path, turns: int, seed: int = 15) -> Tally:
    rig = Rig(tmp, seed)
    try:
        deadline = time.monotonic() + STATE_WAIT_S
        while rig.floor.link.state != "connected" and time.monotonic() < deadline:
            time.sleep(0.01)
        for _ in range(turns):
            rig.play_to_turn()
            rig.turn()
        return rig.tally
    finally:
        rig.close()


def summary(t: Tally) -> str:
    return (f"{t.faulted} of {t.turns} turns faulted mid-turn; {t.steps} motor steps, "
            f"{t.unasked} without a command in {t.unasked_turns} turns; {t.stops} stopped, "
            f"{t.by_hand} finished by hand, {t.double_turn} asked for more after the motor finished; "
            f"floor_turned twice {t.turned_twice}; off target {t.off_target}; stuck {t.stuck}")
