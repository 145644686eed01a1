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

The Pico's step count is the floor's position only while it is *trusted*: the Pico
says it is homed and no turn was finished by hand since (``_must_home``). An
untrusted count (a Pico that woke from a power cut counts from where it woke; after
a turn by hand the floor stands where the master put it) never confirms a turn and
never says where the floor stands: the goal does (or the turn's start while the turn
homes first), so the tablet's "N more ants" is counted in one frame.

The move in hand is an explicit state machine (``Phase``; the link's own states are
``pico_link.LinkState``). Every change of phase goes through ``_transition(event)``
(lock held), which looks the pair up in ``TRANSITIONS``; a pair the table does not
list is refused (the phase stays) and logged as a warning. "=" keeps the phase.

    event           from                                                to
    ask             any                                                 asked
    ask_home        any                                                 home_asked
    ask_offline     any                                                 cut_off
    home_answered   home_asked                                          under_way
    home_answered   rest asked under_way cut_off resync given_up        =
    goal_confirmed  asked cut_off                                       under_way
    goal_confirmed  rest home_asked under_way resync given_up           =
    homing_failed   asked                                               under_way
    homing_failed   rest home_asked under_way cut_off resync given_up   =
    pico_rests      under_way                                           rest
    follow_pico     cut_off resync                                      under_way
    carry_on        cut_off resync                                      asked
    carry_on_home   cut_off resync                                      home_asked
    resynced        resync                                              asked
    resync_ended    resync                                              under_way
    resync_ended    rest asked home_asked under_way cut_off given_up    =
    refused         asked                                               rest
    stop            rest asked home_asked under_way cut_off resync      rest
    stop            given_up                                            =
    give_up         asked home_asked under_way cut_off resync           given_up
    cut             asked home_asked under_way cut_off resync           cut_off
    link_down       rest asked home_asked under_way cut_off resync      rest
    link_down       given_up                                            =
    connect         rest cut_off given_up                               =
    connect         asked home_asked under_way resync                   rest
    connect_homing  rest cut_off asked home_asked under_way resync      resync
    connect_homing  given_up                                            =

The give-up countdown runs only in ``cut_off``: ``ask_offline`` starts it afresh,
``cut`` unless one runs; ``connect``, ``connect_homing`` and every way out of
``cut_off`` cancel it.

What each phase means, and how it reads the Pico's word (``_derive_state``):

- ``rest``: no move in hand (none yet, or it ended done, stopped or in a fault).
- ``asked``: a turn (or a nudge, or the resync's way back to the goal) is asked and
  the Pico has not confirmed its goal with a trusted count: an "idle" or "fault"
  from before never ends it (homing first is part of it: shown "moving").
- ``home_asked``: a HOME is asked and the Pico has not answered it: its "idle" or
  "fault" describe the floor before that homing.
- ``under_way``: the Pico is on it; its next "idle" or "fault" ends the move
  (``pico_rests``).
- ``cut_off``: the link went (or the move was asked while it was down) with a move in
  hand: hands off, and a countdown as long as a powered Pico could move by itself
  gives it up (``give_up``) unless the link is back; once back, the resync decides
  (``follow_pico``, ``carry_on``, ``carry_on_home``) unless the Pico's own word
  confirms the goal first.
- ``resync``: ``home_on_connect``: homing and the way back to the goal after a
  connect; an "idle" is not the end of it.
- ``given_up``: the move in hand could not be finished safely: at rest its fault is
  ``link_lost`` until the next move.

Beside the phase a few facts outlive a move: ``_must_home`` (the Pico's count is not
the floor's: the next turn homes first), ``_position_lost``, ``_home_unseen`` (a HOME
went out whose end was not seen), ``_stop_unsent`` (a STOP owed to the Pico),
``_turn_open`` (the game still waits for the turn), and two tokens: ``_epoch`` (one
per connection) and ``_stop_generation`` (one per stop, give-up or end of turn).

Status follows the other back-ends: ``fault`` is a sentence for the tablet,
``last_move`` = {ants, direction | steps | home, result: moving/done/stopped/fault};
``link`` adds the link state (connected, reconnecting, wrong_firmware, ...) and
``phase`` the phase above.
"""
from __future__ import annotations

import enum
import logging
import queue
import threading
import time
from typing import Any

from ..config import SCHEMA
from ..contracts import FloorStatus
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


class Phase(enum.StrEnum):
    """The move in hand, as the host sees it (see the module's table)."""

    REST = "rest"
    ASKED = "asked"
    HOME_ASKED = "home_asked"
    UNDER_WAY = "under_way"
    CUT_OFF = "cut_off"
    RESYNC = "resync"
    GIVEN_UP = "given_up"


class Event(enum.StrEnum):
    """What happens to the move in hand: asked for, answered, cut, carried on, given up."""

    ASK = "ask"                        # a turn or nudge asked, the link up
    ASK_HOME = "ask_home"              # a homing asked, the link up
    ASK_OFFLINE = "ask_offline"        # either, the link down
    HOME_ANSWERED = "home_answered"    # the Pico answered the latest HOME
    GOAL_CONFIRMED = "goal_confirmed"  # a trusted count says the Pico heads for the goal
    HOMING_FAILED = "homing_failed"    # a turn's homing first did not home: its fault ends the turn
    PICO_RESTS = "pico_rests"          # the Pico says idle or fault about the move under way
    FOLLOW_PICO = "follow_pico"        # back after a cut: the Pico homed (or homes) on its own
    CARRY_ON = "carry_on"              # back in time: the cut-off turn goes on
    CARRY_ON_HOME = "carry_on_home"    # back in time: the cut-off homing is begun again
    RESYNCED = "resynced"              # home_on_connect: homed; the way back to the goal goes out
    RESYNC_ENDED = "resync_ended"      # home_on_connect: the resync ended without the way back
    REFUSED = "refused"                # the Pico refused the turn
    STOP = "stop"                      # the stop button, or the end of the turn, with the link up
    GIVE_UP = "give_up"                # the move cannot be finished safely
    CUT = "cut"                        # the link went with a move in hand
    LINK_DOWN = "link_down"            # the link went, nothing in hand
    CONNECT = "connect"                # the link is up
    CONNECT_HOMING = "connect_homing"  # the link is up, home_on_connect


def _rows() -> dict[tuple[Phase, Event], Phase]:
    """The table of the module's docstring, as (phase, event) -> next phase."""
    R, A, H, U, C, S, G = (Phase.REST, Phase.ASKED, Phase.HOME_ASKED, Phase.UNDER_WAY,
                           Phase.CUT_OFF, Phase.RESYNC, Phase.GIVEN_UP)
    every = tuple(Phase)
    same = None                        # the phase stays
    rows: list[tuple[Event, tuple[Phase, ...], Phase | None]] = [
        (Event.ASK, every, A),
        (Event.ASK_HOME, every, H),
        (Event.ASK_OFFLINE, every, C),
        (Event.HOME_ANSWERED, (H,), U),
        (Event.HOME_ANSWERED, (R, A, U, C, S, G), same),     # late: a stop or a newer move came
        (Event.GOAL_CONFIRMED, (A, C), U),
        (Event.GOAL_CONFIRMED, (R, H, U, S, G), same),        # nothing to confirm, or resync
        (Event.HOMING_FAILED, (A,), U),
        (Event.HOMING_FAILED, (R, H, U, C, S, G), same),      # a stop, a newer move, a cut
        (Event.PICO_RESTS, (U,), R),
        (Event.FOLLOW_PICO, (C, S), U),
        (Event.CARRY_ON, (C, S), A),
        (Event.CARRY_ON_HOME, (C, S), H),
        (Event.RESYNCED, (S,), A),
        (Event.RESYNC_ENDED, (S,), U),
        (Event.RESYNC_ENDED, (R, A, H, U, C, G), same),       # a stop, a move or a cut came first
        (Event.REFUSED, (A,), R),
        (Event.STOP, (R, A, H, U, C, S), R),
        (Event.STOP, (G,), same),                             # given up stays given up
        (Event.GIVE_UP, (A, H, U, C, S), G),
        (Event.CUT, (A, H, U, C, S), C),
        (Event.LINK_DOWN, (R, A, H, U, C, S), R),
        (Event.LINK_DOWN, (G,), same),
        (Event.CONNECT, (R, C, G), same),
        (Event.CONNECT, (A, H, U, S), R),          # asked under the wrong firmware: in fault
        (Event.CONNECT_HOMING, (R, C, A, H, U, S), S),
        (Event.CONNECT_HOMING, (G,), same),
    ]
    table: dict[tuple[Phase, Event], Phase] = {}
    for event, froms, to in rows:
        for phase in froms:
            assert (phase, event) not in table, (phase, event)
            table[phase, event] = phase if to is None else to
    return table


TRANSITIONS = _rows()


class SerialForestFloor(ForestFloor):
    simulated = False

    def __init__(self, *, ants_around: int, steps_per_ant: float, top_speed: float,
                 acceleration: float, homing_speed: float, invert_direction: bool,
                 serial_port: str, timings: LinkTimings | None = None,
                 home_on_connect: bool = SCHEMA["forest_floor"]["home_on_connect"].default,
                 jam_tolerance_ants: float = SCHEMA["forest_floor"]["jam_tolerance_ants"].default,
                 home_mark_steps: int = SCHEMA["forest_floor"]["home_mark_steps"].default):
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
        self.phase = Phase.REST            # the move in hand (see the module's table)
        self._goal = 0.0                   # steps from home where the game wants the floor
        self._pico: dict[str, Any] | None = None
        self._homes_asked = 0              # home() calls: a HOME's reply answers the latest only
        self._move_from: float | None = None   # the goal (steps from home) the current turn began at
        self._turn_goal = 0.0              # the goal the current turn heads for
        # counts down, while the phase is cut_off, to the moment a powered Pico must have stopped
        self._give_up_timer: threading.Timer | None = None
        self._position_lost = False        # a turn given up: where the floor stands is unknown
        self._must_home = False            # the Pico's count is no longer the floor's: home first
        self._home_unseen = False          # a HOME went out whose end we did not see
        self._stop_unsent = False          # a stop pressed while the link was down
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
            if self.link.state == CONNECTED:
                if self._moving_turn() and not self._count_trusted():
                    # The Pico counts from where it woke (a power cut, a reset), or from a
                    # homing the master's hand has undone since, not from where this turn
                    # began: where the stopped turn left the floor is unknown, so the master
                    # sets the whole turn by hand (not "N more" from a count that means
                    # nothing). The next turn homes first.
                    self._position_lost = True
                self._finish_move("stopped")
                self._transition(Event.STOP)
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
                    self._transition(Event.STOP)
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
                    self._finish_move("stopped")
                    self._transition(Event.STOP)
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
        if (self.fault_code == "jam" or self._position_lost) and self._move_from is not None:
            # The Pico counts the steps it sent; a jammed floor did not follow them. Where
            # the move began is the last place the floor is known to have stood.
            steps = self._move_from
        elif self._pico is not None and self._count_trusted():
            steps = self._pico["position"]
        elif self._moving_turn() and self._move_from is not None:
            steps = self._move_from     # homing first: the turn itself has not begun
        else:
            steps = self._goal          # at rest where the game (or the master's hand) put it
        return (steps / self.steps_per_ant) % self.ants_around

    @property
    def needs_home(self) -> bool:  # type: ignore[override]  # derived, never set
        """Home first: the Pico's count is not (or not yet again) where the floor stands."""
        return not (self._count_trusted() and self.phase is not Phase.RESYNC)

    def status(self) -> FloorStatus:
        status = super().status()
        hello = self.link.hello or {}
        status.update({
            "backend": "serial",
            "fault_code": self.fault_code,
            "position_lost": self._position_lost,
            "homed": not status["needs_home"],   # the same fact, in the Pico's own word
            "steps": self._pico["position"] if self._pico else None,
            "goal": round((self._goal / self.steps_per_ant) % self.ants_around, 3),
            "phase": str(self.phase),
            "link": {"state": str(self.link.state), "message": self.link.message,
                     "port": self.link.port, "firmware": hello.get("firmware"),
                     "protocol": hello.get("protocol"), "rtt": self.link.rtt_summary()},
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

    # --- the state machine (lock held) ---------------------------------------------
    def _transition(self, event: Event) -> bool:
        """The one place the phase changes: ``TRANSITIONS`` says to what. A pair it does
        not list is refused (the phase stays) and logged. Entering ``cut_off`` starts
        the give-up countdown (``ask_offline`` afresh, ``cut`` unless one runs); leaving
        it, or the link coming back, cancels it. False when refused."""
        to = TRANSITIONS.get((self.phase, event))
        if to is None:
            log.warning("forest floor: %s in phase %s is not in the transition table; refused",
                        event, self.phase)
            return False
        self.phase = to
        if to is not Phase.CUT_OFF or event in (Event.CONNECT, Event.CONNECT_HOMING):
            self._cancel_give_up()
        elif event is Event.ASK_OFFLINE or self._give_up_timer is None:
            self._schedule_give_up(self._settle_s())
        self._changed.notify_all()
        return True

    def _count_trusted(self) -> bool:
        """The Pico's step count is the floor's: it is homed, and no hand turned the
        floor since (lock held, or a glance)."""
        return bool(self._pico and self._pico["homed"]) and not self._must_home

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
        return self._job("move")

    def _plan_home(self) -> Launch:
        self._goal = 0.0
        self._homes_asked += 1
        return self._job("home")

    def _job(self, kind: str) -> Launch:
        if self.link.state not in (CONNECTED, WRONG_FIRMWARE):
            # asked while the link is down: it waits for the link, but not for ever
            self._transition(Event.ASK_OFFLINE)
        else:
            self._transition(Event.ASK_HOME if kind == "home" else Event.ASK)
        job = (kind, self._stop_generation)
        return lambda: self._jobs.put(job)

    def _begin_move(self, state: str, move: Move) -> None:
        fault = self.fault
        self._position_lost = False
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
        """State, fault and last_move from the Pico's last word, read in the phase.

        A word the Pico sent before it heard our latest command describes the floor
        before that command: it may say "idle" or "fault" about the last move, but it
        must never end the new one. So while the phase is ``asked`` or ``home_asked``
        (or ``cut_off``, the resync deciding) the floor stays moving (homing), whatever
        older statuses say. While the link is down a move in hand stays moving (hands
        off: a powered Pico may still be turning) until it is carried on or given up.
        """
        pico = self._pico
        phase = self.phase
        if self.link.state == WRONG_FIRMWARE:
            self.state = FAULT
            self._set_fault("wrong_firmware")
        elif self.link.state != CONNECTED:
            # Nothing the Pico said before the cut describes the floor now: a move in
            # hand stays moving (hands off) until carried on or given up; else as it was.
            if self._in_hand():
                self.state = HOMING if self._homing_in_hand() else MOVING
                self._set_fault(None)
        elif pico is not None:
            state = self._read_pico(P.STATE_NAMES[pico["state"]])
            code = pico["fault"]
            if state == FAULT:
                # a jam, a stall, a lost mark: the move ends as "fault" with a sentence
                name = (P.FAULT_NAMES[code] if 0 < code < len(P.FAULT_NAMES) else None) or "fault"
                self.fault_code = name
                self._come_to_rest("fault", fault=FAULTS.get(name, name))
            elif state == IDLE and phase is Phase.GIVEN_UP:
                # a move given up: at rest, but where is unknown until the next move homes
                self._come_to_rest("fault", fault=FAULTS[self._given_up_key()])
                self.fault_code = "link_lost"
            elif state == IDLE:
                self.fault_code = None
                if pico["homed"] and self._homing_in_hand():
                    # the homing asked for is done: the Pico's count is the floor's again,
                    # in the same breath as "done" (the worker's word on it may come later)
                    self._must_home = False
                self._come_to_rest("done")
            else:
                self.state = state
                self._set_fault(None)
            if state in (IDLE, FAULT) and phase is Phase.UNDER_WAY:
                self._transition(Event.PICO_RESTS)
        if self.state == FAULT and self.link.state == WRONG_FIRMWARE:
            self._finish_move("fault")
        self._changed.notify_all()
        seen = (self.state, self.fault, pico and pico["position"], pico and pico["homed"],
                self.phase, self.last_move and self.last_move["result"], self.link.state)
        changed, self._seen = seen != self._seen, seen
        return changed

    def _read_pico(self, state: str) -> str:
        """The Pico's state as the phase lets it count (lock held): an "idle" or "fault"
        from before the move in hand was heard is not its end."""
        phase = self.phase
        early = state in (IDLE, FAULT)
        if early and (phase is Phase.HOME_ASKED
                      or (phase is Phase.CUT_OFF and self._homing_in_hand())):
            state = HOMING      # from before our HOME: not the end of this homing
        elif state == IDLE and phase is Phase.RESYNC:
            state = HOMING      # connected, but not homed and back at the goal yet
        elif early and (phase in (Phase.ASKED, Phase.CUT_OFF)
                        or (phase is Phase.RESYNC and self._moving_turn())):
            state = MOVING      # asked to turn; the Pico just has not heard yet
        if state == HOMING and self._in_hand() and not self._homing_in_hand():
            state = MOVING      # homing first, as part of the master's turn: hands off
        return state

    def _rederive(self) -> None:
        with self._lock:
            changed = self._derive_state()
        if changed:
            self._notify()

    def _in_hand(self) -> bool:
        """A move is under way, as far as the game is told (lock held)."""
        return bool(self.last_move and self.last_move["result"] == "moving")

    def _homing_in_hand(self) -> bool:
        return self._in_hand() and "home" in (self.last_move or {})

    def _moving_turn(self) -> bool:
        """A turn of the master's is under way (lock held)."""
        return self._in_hand() and "ants" in (self.last_move or {})

    def _given_up_key(self) -> str:
        return "link_lost_home" if self.last_move and "home" in self.last_move else "link_lost"

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
                    or generation != self._stop_generation or self.phase is not Phase.CUT_OFF
                    or not self._in_hand()):
                return
            self._give_up_now()
        self._notify()

    def _give_up_now(self) -> None:
        """The move in hand cannot be finished safely (lock held): it ends as fault
        ``link_lost``, nothing of it is ever sent again, and the next turn homes first."""
        assert self.last_move is not None
        self._stop_generation += 1
        self._transition(Event.GIVE_UP)
        self._must_home = True
        self._position_lost = "home" not in self.last_move
        self.fault_code = "link_lost"
        self._come_to_rest("fault", fault=FAULTS[self._given_up_key()])

    # --- link callbacks (I/O thread: never block here) ------------------------
    def _on_link(self, state: str, message: str) -> None:
        log.info("forest floor link %s: %s", state, message)
        with self._lock:
            if state != CONNECTED:
                if self._pico is not None:
                    # Whatever happens out of our sight (a power cut, a reset) may move the
                    # floor or make the Pico forget home; keep the last count for the
                    # tablet but trust it again only once the Pico says it is homed.
                    self._pico = dict(self._pico, homed=False)
                # Cut off mid-move: wait (hands off) as long as a powered Pico could still
                # be moving by itself, then give the move up unless the link is back.
                self._transition(Event.CUT if self._in_hand() else Event.LINK_DOWN)
            else:
                # a move the link dropped in the middle of: the resync carries it on
                self._transition(Event.CONNECT_HOMING if self.home_on_connect else Event.CONNECT)
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
            # Only a trusted count confirms the goal: a Pico homed before the master's
            # hand turned the floor may stand at the goal's number by chance, far from it.
            if self._count_trusted() and pico["target"] == round(self._goal):
                self._transition(Event.GOAL_CONFIRMED)
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
                    self._transition(Event.RESYNC_ENDED)
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
        """After a connect: CONFIG, a STOP if the Pico moves on a command the host no
        longer stands behind, then the move the link cut off (``cut_off`` or ``resync``
        with a move in hand): followed, carried on or begun again; and with
        ``home_on_connect`` the homing and the way back to the goal."""
        generation = self._stop_generation
        self._configure()               # its reply brings the Pico's own word on where it is
        with self._lock:
            pico = self._pico or {}
            self._halt_what_nobody_stands_behind(pico)
            # only a move the link cut off; one asked since the connect runs as asked
            cut = self._in_hand() and self.phase in (Phase.CUT_OFF, Phase.RESYNC)
            homing = cut and self._homing_in_hand()
        if homing:
            self._carry_on_homing(pico, generation)
        elif not self.home_on_connect:
            if cut:
                self._carry_on_turn(pico, generation)
        else:
            self._home_and_return(generation)

    def _halt_what_nobody_stands_behind(self, pico: dict[str, Any]) -> None:
        """A Pico moving on a command the host no longer stands behind (the stop button
        while the link was down, a turn given up or over) is stopped before anything
        (lock held)."""
        if self._stop_unsent or (not self._in_hand() and pico.get("state") in (P.MOVING, P.HOMING)):
            self.link.submit(P.STOP, callback=self._after_stop)
        self._stop_unsent = False

    def _carry_on_homing(self, pico: dict[str, Any], generation: int) -> None:
        """The master's homing the link cut off, back before the give-up."""
        with self._lock:
            home_again = False
            if pico.get("homed") or pico.get("state") == P.HOMING:
                # the Pico homed (or is homing) on its own: follow its word from here
                self._transition(Event.FOLLOW_PICO)
            else:
                # it lost power (or never heard the HOME): the master's homing goes on,
                # still shown as homing (hands off)
                home_again = self._transition(Event.CARRY_ON_HOME)
            asked = self._homes_asked
        if home_again and self._home_and_wait(asked, generation):
            with self._lock:
                self._must_home = False
        self._rederive()
        self._notify()

    def _carry_on_turn(self, pico: dict[str, Any], generation: int) -> None:
        """Only a turn of the master's still under way, cut short by the link, goes on."""
        with self._lock:
            go_on = (self._moving_turn() and generation == self._stop_generation
                     and self._transition(Event.CARRY_ON))
            if go_on and self._home_unseen and pico.get("homed"):
                # the turn's homing ended while we could not hear: home is step 0 again
                self._home_unseen = False
                self._goal_from_home()
        if go_on:
            self._move(generation)

    def _home_and_return(self, generation: int) -> None:
        """``home_on_connect``: home, then back to the goal. No last_move of its own: the
        game did not ask for this homing, and the table treats a finished move as "the
        floor turned". A turn cut short by an unplug stays "moving" until the floor gets
        there (or faults)."""
        if not self._home_and_wait(generation=generation):
            return
        with self._lock:
            self._must_home = False
            self._goal_from_home()
            back = (generation == self._stop_generation and self.phase is Phase.RESYNC
                    and self._transition(Event.RESYNCED))
        if back:
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

        ``asked``: the home() call this HOME answers (None: a homing of the turn or of
        the resync, which the game did not ask for as such). A homing the Pico is already
        on (reconnected in the middle of one) is waited for, not begun again.
        """
        def answered(pending: Pending) -> None:
            # On the link's thread, right after the reply's own status and before any
            # later one: from here on the Pico's words are about this homing.
            if asked is not None and pending.reply is not None:
                with self._lock:
                    if asked == self._homes_asked:
                        self._transition(Event.HOME_ANSWERED)
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
                    # behind this) carries the turn on: it must still find the turn cut off
                    if epoch == self._epoch:
                        self._transition(Event.HOMING_FAILED)
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
                self._transition(Event.REFUSED)
                self._finish_move("fault")
                self.fault = f"the Pico refused the turn ({reply.error}): turn the floor by hand"
            self._notify()

    def _move_to(self, generation: int) -> Any:
        """MOVE_TO the goal, if the move is still wanted; its Reply, or None."""
        with self._lock:
            goal = round(self._goal)
        pending = self._submit_motion(generation, P.MOVE_TO, P.pack_move_to(goal))
        return None if pending is None else pending.wait(self._reply_s)
