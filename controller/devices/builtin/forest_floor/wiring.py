"""How the forest floor talks back to the table: a finished turn as a sensor action
(``FloorReporter``), and the turn a game stopped waiting for kept from moving the floor
(``TurnGate``). The table's lock is always taken before the floor's."""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from controller.contracts import FloorStatus, Session

from ...forest_floor import ForestFloor

if TYPE_CHECKING:
    from controller.table import Table


class FloorReporter:
    """Tells the table when the floor finished a turn (or could not), as a sensor would.

    Called from the floor's motion thread; the table is told from a short-lived thread so
    a floor lock is never held while waiting for the table lock.
    """

    def __init__(self, table: Table):
        self.table = table
        self._moving = False

    def __call__(self, status: FloorStatus) -> None:
        move = status.get("last_move") or {}
        if "ants" not in move:        # homing or a calibration nudge: not the master's turn
            return
        result = move.get("result")
        if result == "moving":
            self._moving = True
            return
        if not self._moving or result not in ("done", "stopped", "fault"):
            return
        self._moving = False          # one report per move, however often status repeats
        threading.Thread(target=self._report, args=(result, status.get("fault"), dict(move),
                                                    bool(status.get("position_lost"))),
                         daemon=True).start()

    def _report(self, result: str, fault: str | None, move: dict[str, Any],
                position_lost: bool) -> None:
        # Only a game that waits for the floor hears of it (one with a "floor_turned" action,
        # still waiting: the master may have finished the turn by hand meanwhile).
        if not self.table.is_legal({"type": "floor_turned"}):
            return
        if result == "done":
            self.table.sensor({"type": "floor_turned"})
        elif position_lost:
            # The link to the motor was lost mid-turn and did not come back in time: the
            # motor may have got part, all or none of the way. The master sets the floor
            # where the turn ends, counted from where it stood before it, not "N more".
            ants, way = move.get("ants"), str(move.get("direction", "")).replace("_", "-")
            self.table.notice({"kind": "floor", "message": (
                f"The forest floor lost its link to the motor during the turn, so its "
                f"position is unknown: turn it by hand until it stands {ants} ants {way} of "
                "where it stood before this turn (it may have got part or all of the way), "
                "then tap done, and home the floor before its next turn.")})
        elif fault is not None and fault.startswith("jam"):
            # The motor's step count says nothing about where the floor is: the game
            # waits (no floor_turned) until the master has put it right by hand.
            self.table.notice({"kind": "floor", "message": (
                f"The forest floor jammed ({fault}). It did not turn as far as the motor did, "
                "so its position is lost: free it, turn it the rest of the way by hand, then "
                "tap done, and home the floor before its next turn.")})
        else:
            why = fault or "the stop button was pressed"
            self.table.notice({"kind": "floor", "message": f"The forest floor stopped ({why}): "
                               "turn it the rest of the way by hand, then tap done."})


class TurnGate:
    """Tells the floor when the game stops waiting for its turn (the master tapped done,
    a new game began), so nothing of that turn moves the floor afterwards — not even a
    turn carried on after a link fault. Runs under the table's lock on every new version,
    before anyone hears of it; the table's lock is always taken before the floor's."""

    def __init__(self, table: Table, floor: ForestFloor):
        self.table = table
        self.floor = floor

    def __call__(self, session: Session) -> None:
        # a game without floor turns never waits (no trial apply on every version for it)
        if not self.table.accepts("floor_turned") or not self.table.is_legal({"type": "floor_turned"}):
            self.floor.turn_over()
