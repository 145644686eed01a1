"""The forest floor behind the Pi Pico firmware, over USB serial.

The host speaks ants; the Pico speaks steps from its home mark. The host keeps the
*goal* — where the game says the floor should stand, in steps from home — and only
ever sends absolute targets (MOVE_TO goal), so a command sent twice, or again after
a reconnect, can never turn the floor twice. Whenever the link comes (back) up the
floor is configured, homed and sent to the goal, so after an unplug mid-turn the
floor ends where the game expects it.

Status follows the other back-ends: ``fault`` is a sentence for the tablet,
``last_move`` = {ants, direction | steps | home, result: moving/done/stopped/fault};
``link`` adds the link state (connected, reconnecting, wrong_firmware, ...).
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any

from ..firmware import floorproto as P
from .forest_floor import FAULT, HOMING, IDLE, MOVING, ForestFloor
from .pico_link import CONNECTED, WRONG_FIRMWARE, LinkDown, LinkTimings, PicoLink

log = logging.getLogger(__name__)

DEFAULTS: dict[str, Any] = {
    "ants_around": 16,
    "steps_per_ant": 200,        # may be fractional after `potionpi calibrate floor`
    "top_speed": 800.0,          # steps per second
    "acceleration": 1600.0,      # steps per second squared
    "home_speed": None,          # steps per second; None: half the top speed
    "invert_direction": False,
    "serial_port": "",           # empty: find the Pico by USB vendor id
    "home_on_connect": True,
    "link": {},                  # LinkTimings overrides, e.g. {"lost_after_s": 2.0}
}

# What the tablet says for each fault the firmware (or the link) reports.
FAULTS = {
    "home_not_found": "home not found within 1.2 turns of the floor: turn it by hand",
    "stall": "the floor is stuck (stall): turn it by hand",
    "move_timeout": "the floor did not finish its turn in time: turn it by hand",
    "wrong_firmware": "the Pico needs the firmware of this potionpi (`potionpi firmware flash`): "
                      "turn the floor by hand",
}


class SerialForestFloor(ForestFloor):
    simulated = False

    def __init__(self, config: dict[str, Any] | None = None):
        cfg = {**DEFAULTS, **(config or {})}
        super().__init__(int(cfg["ants_around"]))
        self.steps_per_ant = float(cfg["steps_per_ant"])
        self.steps_per_rev = round(self.steps_per_ant * self.ants_around)
        self.top_speed = max(1, int(cfg["top_speed"]))
        self.acceleration = max(1, int(cfg["acceleration"]))
        self.home_speed = max(1, int(cfg["home_speed"] or self.top_speed / 2))
        self.invert = bool(cfg["invert_direction"])
        self.home_on_connect = bool(cfg["home_on_connect"])
        self.fault_code: str | None = None
        self.last_move: dict[str, Any] | None = None
        self._goal = 0.0                   # steps from home where the game wants the floor
        self._pico: dict[str, Any] | None = None
        self._pending_move = False         # a move asked for that the Pico has not confirmed
        self._awaiting_home = False        # home() asked for, the Pico has not started
        self._resyncing = False            # between (re)connecting and reaching the goal again
        self._epoch = 0                    # counts connections; a resync belongs to one
        self._stop_generation = 0
        self._seen: tuple | None = None
        self._status_cond = threading.Condition()
        self._jobs: queue.Queue[tuple[str, int] | None] = queue.Queue()   # (job, token)
        self.link = PicoLink(cfg["serial_port"] or None,
                             timings=LinkTimings.from_dict(cfg["link"]),
                             on_status=self._on_status, on_state=self._on_link)
        self._worker = threading.Thread(target=self._work, name="floor-serial", daemon=True)
        self._worker.start()
        self.link.start()

    # --- the ForestFloor interface -------------------------------------------
    def rotate(self, ants: int, direction: str) -> None:
        sign = 1 if self.signed_ants(ants, direction) >= 0 else -1
        self._ask_move(sign * ants * self.steps_per_ant, {"ants": ants, "direction": direction})

    def move_steps(self, steps: int) -> None:
        """Nudge by motor steps (calibration); clockwise for positive steps."""
        self._ask_move(steps, {"steps": steps})

    def home(self) -> None:
        with self._lock:
            self._goal = 0.0
            self._awaiting_home = True
            self._begin(HOMING, {"home": True})
        self._notify()
        self._jobs.put(("home", self._stop_generation))

    def stop(self) -> None:
        with self._lock:
            self._stop_generation += 1
            self._pending_move = self._awaiting_home = False
            self._finish_move("stopped")
        if self.link.state == CONNECTED:
            self.link.submit(P.STOP, callback=self._after_stop)
        self._notify()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until the floor rests (idle or fault); False if still busy after ``timeout``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._status_cond:
            while self.state not in (IDLE, FAULT):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._status_cond.wait(0.05 if left is None else min(left, 0.05))
        return True

    @property
    def position(self) -> float:
        steps = self._pico["position"] if self._pico else self._goal
        return (steps / self.steps_per_ant) % self.ants_around

    def status(self) -> dict[str, Any]:
        status = super().status()
        hello = self.link.hello or {}
        status.update({
            "backend": "serial",
            "fault_code": self.fault_code,
            "homed": bool(self._pico and self._pico["homed"]) and not self._resyncing,
            "steps": self._pico["position"] if self._pico else None,
            "goal": round((self._goal / self.steps_per_ant) % self.ants_around, 3),
            "last_move": dict(self.last_move) if self.last_move else None,
            "link": {"state": self.link.state, "message": self.link.message, "port": self.link.port,
                     "firmware": hello.get("firmware"), "protocol": hello.get("protocol"),
                     "rtt": self.link.rtt_summary()},
        })
        return status

    def close(self) -> None:
        self._jobs.put(None)
        self.link.close()
        self._worker.join(timeout=3)

    # --- bookkeeping (lock held) ------------------------------------------------
    def _ask_move(self, steps: float, move: dict[str, Any]) -> None:
        with self._lock:
            self._goal += steps
            self._pending_move = True
            self._begin(MOVING, move)
            generation = self._stop_generation
        self._notify()
        self._jobs.put(("move", generation))

    def _begin(self, state: str, move: dict[str, Any]) -> None:
        if self.fault_code != "wrong_firmware":
            self.state, self.fault, self.fault_code = state, None, None
        self.last_move = dict(move, result="moving")

    def _finish_move(self, result: str) -> None:
        if self.last_move and self.last_move["result"] == "moving":
            self.last_move["result"] = result

    def _set_fault(self, code: str | None) -> None:
        self.fault_code = code
        self.fault = FAULTS.get(code, code) if code else None

    def _derive_state(self) -> bool:
        """State, fault and last_move from the Pico's last word and what we asked since."""
        pico = self._pico
        if self.link.state == WRONG_FIRMWARE:
            self.state = FAULT
            self._set_fault("wrong_firmware")
        elif pico is not None:
            state = P.STATE_NAMES[pico["state"]]
            if state == IDLE and (self._resyncing or self._awaiting_home):
                state = HOMING      # connected, but not homed and back at the goal yet
            elif state == IDLE and self._pending_move:
                state = MOVING      # asked to turn; the Pico just has not heard yet
            self.state = state
            self._set_fault(P.FAULT_NAMES[pico["fault"]] if pico["fault"] < len(P.FAULT_NAMES) else "fault")
        if self.state == FAULT:
            self._finish_move("fault")
        elif self.state == IDLE:
            self._finish_move("done")
        seen = (self.state, self.fault, pico and pico["position"], pico and pico["homed"],
                self._resyncing, self.last_move and self.last_move["result"])
        changed, self._seen = seen != self._seen, seen
        return changed

    def _rederive(self) -> None:
        with self._lock:
            changed = self._derive_state()
        with self._status_cond:
            self._status_cond.notify_all()
        if changed:
            self._notify()

    # --- link callbacks (I/O thread: never block here) ------------------------
    def _on_link(self, state: str, message: str) -> None:
        log.info("forest floor link %s: %s", state, message)
        with self._lock:
            if state != CONNECTED and self._pico is not None:
                # Whatever happens out of our sight (a power cut, a reset) may move the
                # floor or make the Pico forget home; keep the last position for the
                # tablet but trust it again only after the next homing.
                self._pico = dict(self._pico, homed=False)
            if state == CONNECTED:
                self._resyncing = self.home_on_connect
                self._epoch += 1
                if self.fault_code == "wrong_firmware":
                    self._set_fault(None)
                    self.state = HOMING
        if state == CONNECTED:
            self._jobs.put(("resync", self._epoch))
        self._rederive()
        self._notify()              # the link part of the status changed in any case

    def _on_status(self, pico: dict[str, Any]) -> None:
        with self._lock:
            self._pico = pico
            if self._pending_move and pico["target"] == round(self._goal) and pico["homed"]:
                self._pending_move = False
        self._rederive()

    def _after_stop(self, pending) -> None:
        if pending.reply is not None:
            with self._lock:
                self._goal = float(pending.reply.status["target"])
            self._rederive()

    # --- worker: everything that waits for the Pico ---------------------------
    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            kind, token = job
            try:
                if kind == "resync":
                    self._resync(token)
                elif token != self._stop_generation:
                    continue        # asked for before the stop button: never start it now
                elif kind == "home":
                    self._home_and_wait()
                elif kind == "move":
                    self._move()
            except (LinkDown, TimeoutError) as exc:
                # The next CONNECTED brings a resync, which heads for the goal again.
                log.info("forest floor %s interrupted: %s", kind, exc)

    def _resync(self, epoch: int) -> None:
        try:
            if epoch == self._epoch:
                self._configure_home_and_return()
        finally:
            with self._lock:
                if epoch == self._epoch:
                    self._resyncing = False
            self._rederive()

    def _configure_home_and_return(self) -> None:
        generation = self._stop_generation
        self.link.request(P.CONFIG, P.pack_config(
            self.steps_per_rev, self.top_speed, self.acceleration, self.home_speed,
            2 * self.steps_per_rev, P.FLAG_INVERT if self.invert else 0))
        if not self.home_on_connect:
            return
        # No last_move of its own: the game did not ask for this homing, and the table
        # treats a finished move as "the floor turned". A turn cut short by an unplug
        # stays "moving" until the floor gets there (or faults).
        if not self._home_and_wait():
            return
        with self._lock:
            # Home is step 0 again: take the shortest way to the same spot on the rim.
            goal = self._goal % self.steps_per_rev
            if goal > self.steps_per_rev / 2:
                goal -= self.steps_per_rev
            self._goal = goal
            self._pending_move = generation == self._stop_generation
        if self._pending_move:
            self._move()

    def _home_and_wait(self) -> bool:
        """HOME and wait until homing ends. True when the floor is homed."""
        try:
            self.link.request(P.HOME)
        finally:
            with self._lock:
                self._awaiting_home = False
        # Statuses arrive in the Pico's order, so the first one after the HOME reply
        # that is not "homing" is the end of this homing.
        deadline = time.monotonic() + 2.4 * self.steps_per_rev / self.home_speed + 3
        with self._status_cond:
            while self._pico is None or self._pico["state"] == P.HOMING:
                left = deadline - time.monotonic()
                if left <= 0 or self.link.state != CONNECTED:
                    return False
                self._status_cond.wait(min(left, 0.1))
            return bool(self._pico["homed"])

    def _move(self) -> None:
        if self.link.state != CONNECTED:
            return                  # the resync after reconnecting heads for the goal
        with self._lock:
            goal = round(self._goal)
        reply = self.link.request(P.MOVE_TO, P.pack_move_to(goal))
        if reply.error == "not_homed":
            with self._lock:
                self._pending_move = False
            if self.home_on_connect and (self._pico or {}).get("state") != P.FAULTED:
                with self._lock:
                    self._resyncing = True
                self._jobs.put(("resync", self._epoch))
            self._rederive()
        elif reply.error:
            log.warning("forest floor refused the turn: %s", reply.error)
            with self._lock:
                self._pending_move = False
                self._finish_move("fault")
                self.fault = f"the Pico refused the turn ({reply.error}): turn the floor by hand"
            self._notify()
