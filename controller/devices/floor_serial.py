"""The forest floor behind the Pi Pico firmware, over USB serial.

The host speaks ants; the Pico speaks steps from its home mark. The host keeps the
*goal* — where the game says the floor should stand, in steps from home — and only
ever sends absolute targets (MOVE_TO goal), so a command sent twice, or again after
a reconnect, can never turn the floor twice.

The floor never moves unasked: whenever the link comes (back) up the Pico is only
configured. A turn the Pico refuses as "not homed" (after a connect, a power cut or
a fault) homes first and then heads for the goal the shortest way round, so the
floor ends where the game expects it. ``home_on_connect = true`` homes (and returns
to the goal) at once on every connect instead.

A link fault in the middle of the master's turn: the turn stays "moving" (hands off)
for as long as a powered Pico could still be turning on its own. If the link is back
by then, the turn is carried on (homing first if the Pico lost power) — but only
while the game still waits for that turn (``turn_over()`` ends it: the master tapped
done, a new game) and never after the stop button. If it is not back by then, the
turn is given up: fault ``link_lost``, the position is unknown (``position_lost``),
the master finishes by hand, and the next turn homes first. A Pico that finished the
turn on its own reports so after the reconnect, and the turn ends "done" without a
motion command. The master's homing cut short follows the same rule (carried on only
if the link is back in time, else given up, never begun again later). Every motion
command goes out under the floor's lock with the stop generation it belongs to, so
a stop, a give-up or the end of the turn can never be overtaken by a carry-on.

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
from ..firmware.markwatch import confirm_steps
from .base import Section
from ..firmware.motion import Ramp
from .forest_floor import FAULT, HOMING, IDLE, MOVING, ForestFloor, Launch, Move, check_jam_tolerance
from .pico_link import CONNECTED, WRONG_FIRMWARE, LinkDown, LinkTimings, Pending, PicoLink

log = logging.getLogger(__name__)

# What the tablet says for each fault the firmware (or the link) reports.
FAULTS = {
    "home_not_found": "home not found within 1.2 turns of the floor: turn it by hand",
    "stall": "the floor is stuck (stall): turn it by hand",
    "move_timeout": "the floor did not finish its turn in time: turn it by hand",
    "jam": "the floor is jammed (its home mark was not where the motor's steps put it): "
           "free it and turn it by hand",
    "wrong_firmware": "the Pico needs the firmware of this potionpi (`potionpi firmware flash`): "
                      "turn the floor by hand",
    "link_lost": "the link to the Pico was lost during the turn, so where the floor stands is "
                 "unknown: turn it by hand",
    "link_lost_home": "the link to the Pico was lost during homing: home the floor again once "
                      "the Pico is back",
}


class SerialForestFloor(ForestFloor):
    simulated = False

    def __init__(self, *, ants_around: int, steps_per_ant: float, top_speed: float,
                 acceleration: float, homing_speed: float, invert_direction: bool,
                 serial_port: str, timings: LinkTimings | None = None,
                 home_on_connect: bool = False, jam_tolerance_ants: float = 0.5,
                 home_mark_steps: int = 0):
        """Speeds in steps per second, acceleration in steps per second². ``serial_port``
        empty: find the Pico by its USB vendor id. ``timings``: the link's time limits
        (tests shrink them). ``home_on_connect``: home at once on every connect.
        ``jam_tolerance_ants`` and ``home_mark_steps`` go to the Pico's jam watch: how far
        off the mark may be seen, and the mark's width (which sizes its glitch filter)."""
        super().__init__(ants_around, steps_per_ant)
        self.steps_per_rev = round(self.steps_per_ant * self.ants_around)
        # whole steps for the Pico, never more than asked
        self.jam_tolerance = int(check_jam_tolerance(jam_tolerance_ants, self.steps_per_ant,
                                                     self.ants_around, home_mark_steps))
        if self.jam_tolerance > 0xFFFF:
            raise ValueError(f"forest_floor.jam_tolerance_ants = {jam_tolerance_ants:g} is "
                             f"{self.jam_tolerance} steps; the Pico takes at most 65535")
        self.mark_confirm = confirm_steps(home_mark_steps)
        self.top_speed = max(1, int(top_speed))
        self.acceleration = max(1, int(acceleration))
        self.home_speed = max(1, int(homing_speed))
        self.invert = bool(invert_direction)
        self.home_on_connect = bool(home_on_connect)
        self.fault_code: str | None = None
        # The Pico's jam watch needs the true steps per turn; calibration nudges
        # (move_steps) run on a guess, so they turn it off and a turn turns it on again.
        self.jam_watch = True
        self._sent_watch: bool | None = None   # what the Pico was last configured with
        self._goal = 0.0                   # steps from home where the game wants the floor
        self._pico: dict[str, Any] | None = None
        self._pending_move = False         # a move asked for that the Pico has not confirmed
        # home() calls asked for and answered by the Pico: until the Pico answers the
        # HOME, every status it sends describes the floor *before* that homing
        self._homes_asked = 0
        self._homes_answered = 0
        self._resyncing = False            # between (re)connecting and reaching the goal again
        self._move_from: float | None = None   # the goal (steps from home) the current turn began at
        self._turn_goal = 0.0              # the goal the current turn heads for
        # The link went down mid-move: the move waits (hands off) until a powered Pico must
        # have finished on its own; then it is given up. ``_lost_epoch`` names that outage.
        self._lost_epoch: int | None = None
        self._give_up_timer: threading.Timer | None = None
        self._position_lost = False        # a turn given up: where the floor stands is unknown
        self._given_up: str | None = None  # the FAULTS key of a move given up, until the next move
        self._must_home = False            # the Pico's count is no longer the floor's: home first
        self._home_unseen = False          # a HOME went out whose end we did not see
        self._stop_unsent = False          # a stop pressed while the link was down
        self._cut_short = False            # the move in hand was under way when the link went
        self._turn_open = False            # the game waits for the current turn
        self._epoch = 0                    # counts connections; a resync belongs to one
        self._stop_generation = 0
        self._seen: tuple[Any, ...] | None = None
        self._jobs: queue.Queue[tuple[str, int] | None] = queue.Queue()   # (job, token)
        self.link = PicoLink(serial_port or None, timings=timings,
                             on_status=self._on_status, on_state=self._on_link)
        self._worker = threading.Thread(target=self._work, name="floor-serial", daemon=True)
        self._worker.start()
        self.link.start()

    @classmethod
    def from_config(cls, section: Section, *, serial_port: str | None = None,
                    timings: LinkTimings | None = None) -> "SerialForestFloor":
        """From the ``[forest_floor]`` section; ``serial_port`` overrides the configured one
        (a simulated Pico's pseudo-terminal)."""
        if timings is None:
            timings = LinkTimings.from_section(section)
        return cls(ants_around=section["ants_around"], steps_per_ant=section["steps_per_ant"],
                   top_speed=section["top_speed"], acceleration=section["acceleration"],
                   homing_speed=section["homing_speed"],
                   invert_direction=section["invert_direction"],
                   serial_port=section["serial_port"] if serial_port is None else serial_port,
                   timings=timings, home_on_connect=section["home_on_connect"],
                   jam_tolerance_ants=section["jam_tolerance_ants"],
                   home_mark_steps=section["home_mark_steps"])

    # --- the ForestFloor interface -------------------------------------------
    def stop(self) -> None:
        with self._lock:
            self._stop_generation += 1
            self._pending_move = False
            self._homes_answered = self._homes_asked
            if self.link.state == CONNECTED:
                if self._moving_turn() and not (self._pico and self._pico["homed"]):
                    # The Pico counts from where it woke (a power cut, a reset), not from
                    # home: where the stopped turn left the floor is unknown, so the master
                    # sets the whole turn by hand (not "N more" from a count that means
                    # nothing). The next turn homes first: the Pico is not homed.
                    self._position_lost = True
                self._finish_move("stopped")
                self.link.submit(P.STOP, callback=self._after_stop)
            else:
                # The stop cannot reach the Pico; a powered one may still be turning. It
                # is sent as soon as the link is back, and the turn is not "stopped
                # somewhere we know": where the floor stands is unknown.
                self._stop_unsent = True
                if self._moving_turn():
                    self._give_up_now()
                else:
                    self._finish_move("stopped")
        self._notify()

    def turn_over(self) -> None:
        """The game no longer waits for the current turn (the master tapped done, a new
        game): nothing of it may move the floor any more. Called under the table's lock."""
        with self._lock:
            if not self._turn_open or not self.last_move or "ants" not in self.last_move:
                return
            self._turn_open = False
            result = self.last_move["result"]
            if result == "moving":
                if self.link.state == CONNECTED:
                    self._stop_generation += 1
                    self._pending_move = False
                    self._finish_move("stopped")
                    self.link.submit(P.STOP, callback=self._after_stop)
                else:
                    self._stop_unsent = True
                    self._give_up_now()
            if result != "done":
                # finished by hand: the floor stands at the turn's goal (the master put it
                # there), and the Pico's step count no longer says so
                self._goal = self._turn_goal
                self._must_home = True
        self._rederive()

    @property
    def position(self) -> float:
        steps = self._pico["position"] if self._pico else self._goal
        if (self.fault_code == "jam" or self._position_lost) and self._move_from is not None:
            # The Pico counts the steps it sent; a jammed floor did not follow them. Where
            # the move began is the last place the floor is known to have stood.
            steps = self._move_from
        return (steps / self.steps_per_ant) % self.ants_around

    def status(self) -> dict[str, Any]:
        status = super().status()
        hello = self.link.hello or {}
        status.update({
            "backend": "serial",
            "fault_code": self.fault_code,
            "position_lost": self._position_lost,
            "homed": (bool(self._pico and self._pico["homed"]) and not self._resyncing
                      and not self._must_home),
            "steps": self._pico["position"] if self._pico else None,
            "goal": round((self._goal / self.steps_per_ant) % self.ants_around, 3),
            "link": {"state": self.link.state, "message": self.link.message, "port": self.link.port,
                     "firmware": hello.get("firmware"), "protocol": hello.get("protocol"),
                     "rtt": self.link.rtt_summary()},
        })
        return status

    def mark_runs(self) -> list[tuple[int, int | None]]:
        """Where the home sensor read active during the Pico's last move, as (rise, fall)
        steps from home (fall None: still active at the end); for calibration."""
        reply = self.link.request(P.MARKS, timeout=self._reply_s)
        if reply.mtype != P.MARKS_REPLY:
            raise RuntimeError(f"the Pico did not say where it saw the mark ({reply.error})")
        return P.unpack_marks(reply.payload)

    def close(self) -> None:
        with self._lock:
            self._cancel_give_up()
        self._jobs.put(None)
        self.link.close()
        self._worker.join(timeout=3)

    # --- planning (lock held): the host keeps the goal, the worker tells the Pico -------
    def _check_free(self) -> None:
        """Never busy: a turn asked for while another runs moves the goal on."""

    def _plan_turn(self, ants: int) -> Launch:
        self.jam_watch = True
        self._turn_open = True             # until the game stops waiting for it (turn_over)
        return self._plan_move(ants * self.steps_per_ant)

    def _plan_steps(self, steps: int) -> Launch:
        self.jam_watch = False
        return self._plan_move(float(steps))

    def _plan_move(self, steps: float) -> Launch:
        self._move_from = self._goal       # where the game had the floor when this turn began
        self._goal += steps
        self._turn_goal = self._goal
        self._pending_move = True
        return self._job("move")

    def _plan_home(self) -> Launch:
        self._goal = 0.0
        self._homes_asked += 1
        return self._job("home")

    def _job(self, kind: str) -> Launch:
        if self.link.state not in (CONNECTED, WRONG_FIRMWARE):
            # asked while the link is down: it waits for the link, but not for ever
            self._cut_short = True
            self._schedule_give_up(self._settle_s())
        job = (kind, self._stop_generation)
        return lambda: self._jobs.put(job)

    def _begin_move(self, state: str, move: Move) -> None:
        fault = self.fault
        self._cancel_give_up()
        self._position_lost = False
        self._given_up = None
        self._cut_short = False
        super()._begin_move(state, move)
        if self.fault_code == "wrong_firmware":
            # nothing turns until the right firmware is flashed: the floor stays in fault
            self.state, self.fault = FAULT, fault
        else:
            self.fault_code = None

    def _set_fault(self, code: str | None) -> None:
        self.fault_code = code
        self.fault = FAULTS.get(code, code) if code else None

    def _derive_state(self) -> bool:
        """State, fault and last_move from the Pico's last word and what we asked since.

        A word the Pico sent before it heard our latest command describes the floor
        before that command: it may say "idle" or "fault" about the last move, but it
        must never end the new one. So until the Pico answers a HOME (or confirms the
        goal of a turn) the floor stays homing (moving), whatever older statuses say.
        While the link is down a move in hand stays moving (hands off: a powered Pico
        may still be turning) until it is carried on or given up.
        """
        pico = self._pico
        if self.link.state == WRONG_FIRMWARE:
            self.state = FAULT
            self._set_fault("wrong_firmware")
        elif self.link.state != CONNECTED:
            # Nothing the Pico said before the cut describes the floor now: a move in
            # hand stays moving (hands off) until carried on or given up; else as it was.
            if self.last_move and self.last_move["result"] == "moving":
                self.state = HOMING if "home" in self.last_move else MOVING
                self._set_fault(None)
        elif pico is not None:
            state = P.STATE_NAMES[pico["state"]]
            if state in (IDLE, FAULT) and self._homes_asked > self._homes_answered:
                state = HOMING      # from before our HOME: not the end of this homing
            elif state == IDLE and self._resyncing:
                state = HOMING      # connected, but not homed and back at the goal yet
            elif state in (IDLE, FAULT) and self._pending_move:
                state = MOVING      # asked to turn; the Pico just has not heard yet
            if (state == HOMING and self.last_move and self.last_move["result"] == "moving"
                    and "home" not in self.last_move):
                state = MOVING      # homing first, as part of the master's turn: hands off
            code = pico["fault"]
            if state == FAULT:
                # a jam, a stall, a lost mark: the move ends as "fault" with a sentence
                name = (P.FAULT_NAMES[code] if 0 < code < len(P.FAULT_NAMES) else None) or "fault"
                self.fault_code = name
                self._come_to_rest("fault", fault=FAULTS.get(name, name))
            elif state == IDLE and self._given_up:
                # a move given up: at rest, but where is unknown until the next move homes
                self._come_to_rest("fault", fault=FAULTS[self._given_up])
                self.fault_code = "link_lost"
            elif state == IDLE:
                self.fault_code = None
                if (pico["homed"] and self.last_move and self.last_move.get("home")
                        and self.last_move["result"] == "moving"):
                    # the homing asked for is done: the Pico's count is the floor's again,
                    # in the same breath as "done" (the worker's word on it may come later)
                    self._must_home = False
                self._come_to_rest("done")
            else:
                self.state = state
                self._set_fault(None)
        if self.state == FAULT and self.link.state == WRONG_FIRMWARE:
            self._finish_move("fault")
        self._changed.notify_all()
        seen = (self.state, self.fault, pico and pico["position"], pico and pico["homed"],
                self._resyncing, self.last_move and self.last_move["result"], self.link.state)
        changed, self._seen = seen != self._seen, seen
        return changed

    def _rederive(self) -> None:
        with self._lock:
            changed = self._derive_state()
        if changed:
            self._notify()

    def _moving_turn(self) -> bool:
        """A turn of the master's is under way (lock held)."""
        return bool(self.last_move and self.last_move["result"] == "moving" and "ants" in self.last_move)

    # --- a link fault in the middle of a move (lock held unless said) -----------------------
    def _settle_s(self) -> float:
        """How long a powered Pico could go on moving by itself from now: its own limits
        (twice the planned move, twice 1.2 turns of homing, plus a second each)."""
        pico = self._pico or {"position": 0, "target": 0, "state": P.IDLE}
        steps = abs(round(self._goal) - pico["position"]) + abs(pico["target"] - pico["position"])
        move_s = Ramp(steps, self.top_speed, self.acceleration).duration_s() if steps else 0.0
        homing = (pico["state"] == P.HOMING or self._home_unseen
                  or bool(self.last_move and "home" in self.last_move))
        home_s = 1.2 * self.steps_per_rev / self.home_speed if homing else 0.0
        return 2 * (move_s + home_s) + 1.0

    def _schedule_give_up(self, seconds: float) -> None:
        self._cancel_give_up()
        timer = threading.Timer(seconds, self._give_up, args=(self._epoch, self._stop_generation))
        timer.daemon = True
        self._give_up_timer = timer
        timer.start()

    def _cancel_give_up(self) -> None:
        if self._give_up_timer is not None:
            self._give_up_timer.cancel()
            self._give_up_timer = None

    def _give_up(self, epoch: int, generation: int) -> None:
        """Timer thread: the link is still down when a powered Pico must have stopped."""
        with self._lock:
            if (self.link.state == CONNECTED or epoch != self._epoch
                    or generation != self._stop_generation
                    or not (self.last_move and self.last_move["result"] == "moving")):
                return
            self._give_up_now()
        self._notify()

    def _give_up_now(self) -> None:
        """The move in hand cannot be finished safely (lock held): it ends as fault
        ``link_lost``, nothing of it is ever sent again, and the next turn homes first."""
        assert self.last_move is not None
        self._cancel_give_up()
        self._stop_generation += 1
        self._pending_move = False
        self._homes_answered = self._homes_asked
        self._must_home = True
        homing = "home" in self.last_move
        self._position_lost = not homing
        self._given_up = "link_lost_home" if homing else "link_lost"
        self.fault_code = "link_lost"
        self._come_to_rest("fault", fault=FAULTS[self._given_up])

    # --- link callbacks (I/O thread: never block here) ------------------------
    def _on_link(self, state: str, message: str) -> None:
        log.info("forest floor link %s: %s", state, message)
        with self._lock:
            if state != CONNECTED and self._pico is not None:
                # Whatever happens out of our sight (a power cut, a reset) may move the
                # floor or make the Pico forget home; keep the last position for the
                # tablet but trust it again only after the next homing.
                self._pico = dict(self._pico, homed=False)
            if (state != CONNECTED and self._give_up_timer is None and self.last_move
                    and self.last_move["result"] == "moving"):
                # Cut off mid-move: wait (hands off) as long as a powered Pico could still
                # be moving by itself, then give the move up unless the link is back.
                if "home" in self.last_move:
                    # no status from before the cut may end this homing
                    self._homes_answered = min(self._homes_answered, self._homes_asked - 1)
                self._cut_short = True
                self._schedule_give_up(self._settle_s())
            if state == CONNECTED:
                self._cancel_give_up()
                self._resyncing = self.home_on_connect
                if self._moving_turn():
                    # a turn the link dropped in the middle of: the resync carries it on
                    self._pending_move = True
                self._sent_watch = None
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

    def _after_stop(self, pending: Pending) -> None:
        if pending.reply is not None:
            with self._lock:
                if not self._must_home:
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
                    with self._lock:
                        asked = self._homes_asked
                    if self._home_and_wait(asked, token):
                        with self._lock:
                            self._must_home = False
                elif kind == "move":
                    self._move(token)
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

    def _configure(self) -> None:
        """CONFIG: the motion settings, the direction and whether to watch for jams."""
        watch = self.jam_watch
        flags = (P.FLAG_INVERT if self.invert else 0) | (0 if watch else P.FLAG_NO_JAM_WATCH)
        reply = self.link.request(P.CONFIG, P.pack_config(
            self.steps_per_rev, self.top_speed, self.acceleration, self.home_speed,
            2 * self.steps_per_rev, flags, self.jam_tolerance, self.mark_confirm),
            timeout=self._reply_s)
        if reply.ok:
            self._sent_watch = watch
        elif reply.error != "busy":     # busy: the Pico is still on a move; sent again before the next
            log.warning("the Pico refused its configuration: %s", reply.error)

    def _configure_home_and_return(self) -> None:
        generation = self._stop_generation
        self._configure()               # its reply brings the Pico's own word on where it is
        with self._lock:
            pico = self._pico or {}
            in_hand = bool(self.last_move and self.last_move["result"] == "moving")
            # A Pico moving on a command the host no longer stands behind (the stop button
            # while the link was down, a turn given up or over) is stopped before anything.
            halt = self._stop_unsent or (not in_hand and pico.get("state") in (P.MOVING, P.HOMING))
            self._stop_unsent = False
            if halt:
                self.link.submit(P.STOP, callback=self._after_stop)
            # only a homing the link cut short; one asked since the connect runs as asked
            cut = self._cut_short
            self._cut_short = False
            homing = in_hand and cut and self.last_move is not None and "home" in self.last_move
            home_again = False
            if homing:
                if pico.get("homed") or pico.get("state") == P.HOMING:
                    # the Pico homed (or is homing) on its own: follow its word from here
                    self._homes_answered = self._homes_asked
                else:
                    # it lost power (or never heard the HOME): back before the give-up, so
                    # the master's homing goes on, still shown as homing (hands off)
                    home_again = True
            asked = self._homes_asked
        if homing:
            if home_again and self._home_and_wait(asked, generation):
                with self._lock:
                    self._must_home = False
            self._rederive()
            self._notify()
            return
        if not self.home_on_connect:
            # Only a turn of the master's still under way, cut short by the link, goes on.
            with self._lock:
                go_on = (cut and self._pending_move and self._moving_turn()
                         and generation == self._stop_generation)
                if go_on and self._home_unseen and pico.get("homed"):
                    # the turn's homing ended while we could not hear: home is step 0 again
                    self._home_unseen = False
                    self._goal_from_home()
            if go_on:
                self._move(generation)
            return
        # No last_move of its own: the game did not ask for this homing, and the table
        # treats a finished move as "the floor turned". A turn cut short by an unplug
        # stays "moving" until the floor gets there (or faults).
        if not self._home_and_wait(generation=generation):
            return
        with self._lock:
            self._must_home = False
            self._goal_from_home()
            self._pending_move = generation == self._stop_generation
        if self._pending_move:
            self._move(generation)

    def _goal_from_home(self) -> None:
        """Home is step 0 again (lock held): the shortest way to the same spot on the rim.
        The turn's own start and goal shift with it, so they keep meaning the same spots."""
        goal = self._goal % self.steps_per_rev
        if goal > self.steps_per_rev / 2:
            goal -= self.steps_per_rev
        shift = goal - self._goal
        self._goal = goal
        self._turn_goal += shift
        if self._move_from is not None:
            self._move_from += shift

    @property
    def _reply_s(self) -> float:
        """How long a reply may take: a lost link fails the wait at once (LinkDown), so this
        only has to outlast a slow one (the link may stay silent for lost_after_s)."""
        return max(5.0, 2 * self.link.timings.lost_after_s)

    def _submit_motion(self, generation: int, mtype: int, payload: bytes = b"",
                       callback: Any = None) -> Pending | None:
        """Send a command that moves the floor, unless a stop, a give-up or the end of the
        turn came since ``generation`` (None then). Under the lock: none of those can slip
        in between the check and the send."""
        with self._lock:
            if generation != self._stop_generation:
                return None
            return self.link.submit(mtype, payload, callback=callback)

    def _home_and_wait(self, asked: int | None = None, generation: int | None = None) -> bool:
        """HOME and wait until homing ends. True when the floor is homed.

        ``asked``: the home() calls this HOME answers (None: a homing of the turn or of
        the resync, which the game did not ask for as such). A homing the Pico is already
        on (reconnected in the middle of one) is waited for, not begun again.
        """
        def answered(pending: Pending) -> None:
            # On the link's thread, right after the reply's own status and before any
            # later one: from here on the Pico's words are about this homing.
            if asked is not None and pending.reply is not None:
                with self._lock:
                    self._homes_answered = max(self._homes_answered, asked)
                self._rederive()

        if generation is None:
            generation = self._stop_generation
        epoch = self._epoch
        if not (self._pico and self._pico["state"] == P.HOMING and asked is None):
            pending = self._submit_motion(generation, P.HOME, callback=answered)
            if pending is None:
                return False
            self._home_unseen = True
            pending.wait(self._reply_s)
        # Statuses arrive in the Pico's order, so the first one after the HOME reply
        # that is not "homing" is the end of this homing. The Pico judges how long its
        # homing may take, on its own clock (home_not_found after 1.2 turns, or twice its
        # plan), and a hung Pico is reset by its watchdog, which ends the link: so the
        # host waits on the Pico's word, never on its own clock (a slow link would make
        # that lie). The cap only guards against a firmware that never says.
        cap = time.monotonic() + 600 + 10 * 2.4 * self.steps_per_rev / self.home_speed
        with self._changed:
            while self._pico is None or self._pico["state"] == P.HOMING:
                left = cap - time.monotonic()
                if left <= 0 or self.link.state != CONNECTED or self._epoch != epoch:
                    return False    # after a reconnect the Pico's word is not this homing's end
                self._changed.wait(min(left, 0.1))
            self._home_unseen = False
            return bool(self._pico["homed"])

    def _move(self, generation: int) -> None:
        """Head for the goal, for the stop generation the move was decided in: a stop, a
        give-up or the end of the turn since that decision sends nothing (a generation
        read here, later, would carry a turn on after the master's stop or done)."""
        if self.link.state != CONNECTED:
            return                  # the next connect's resync (or the next turn) heads for the goal
        with self._lock:
            must_home = self._must_home
            epoch = self._epoch
        if self._sent_watch != self.jam_watch:
            self._configure()
        reply = None
        if not must_home:
            reply = self._move_to(generation)
            if reply is None:
                return              # stopped, given up or over since: not one step more
        if reply is None or reply.error == "not_homed":
            # Not homed (a fresh connect, a power cut, a fault, a turn finished by hand):
            # home first, then the turn, the shortest way round to where the game expects it.
            homed = self._home_and_wait(generation=generation)
            with self._lock:
                if homed and generation == self._stop_generation:
                    self._must_home = False
                    self._goal_from_home()
                else:
                    # the homing faulted (its fault ends the turn) or a stop came in between;
                    # or the link dropped and came back, and that connect's resync (queued
                    # behind this) carries the turn on: it must still find the turn pending
                    if epoch == self._epoch:
                        self._pending_move = False
                    homed = False
            if not homed:
                self._rederive()
                return
            reply = self._move_to(generation)
            if reply is None:
                return
        if reply.error:
            log.warning("forest floor refused the turn: %s", reply.error)
            with self._lock:
                self._pending_move = False
                self._finish_move("fault")
                self.fault = f"the Pico refused the turn ({reply.error}): turn the floor by hand"
            self._notify()

    def _move_to(self, generation: int) -> Any:
        """MOVE_TO the goal, if the move is still wanted; its Reply, or None."""
        with self._lock:
            goal = round(self._goal)
        pending = self._submit_motion(generation, P.MOVE_TO, P.pack_move_to(goal))
        return None if pending is None else pending.wait(self._reply_s)
