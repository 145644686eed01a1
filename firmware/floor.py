"""The firmware's brain: one forest floor, its moves, homing, faults and status.

Pure logic: it drives a *stepper port* and reads a clock it is given, so the Pico
(hal.PioStepper) and the simulated Pico (controller/devices/sim_pico.py) run the
very same code. A stepper port offers:

    room()              how many more step intervals it can take right now
    queue(interval_us)  one step, then wait interval_us before the next
    in_flight()         queued steps whose pulse has not gone out yet
    busy()              a step is still queued or its interval still runs
    abort()             drop queued steps at once; returns how many were dropped
    count_from_zero()   start counting pulses afresh (nothing may be in flight)
    next_edge()         the oldest home-sensor edge not yet handed out, as
                        pulses * 2 + (1 if the sensor turned active else 0), pulses
                        counted since count_from_zero(); -1 when there is none
    set_direction(fwd)  DIR level for the next steps
    enable(on)          driver coils on/off
    home_active()       the home sensor sees the mark now
    stop_at_mark(on)    arm: end the pulses at once on the step the sensor's edge arrives
    stopped_at_mark()   it did (until the next abort or arming)
    stall_active()      the driver reports a stall (False when it cannot)

Jam watch (markwatch.py, the same rule as the Pi's GPIO floor): once homed, the home
mark passes the sensor at a known step every revolution. Each edge the port noted is
placed on its exact step; a sighting (the sensor active for ``confirm`` steps: a
glitch is shorter) farther than ``tolerance`` from the mark's place, or a mark the
move passed by the tolerance without a sighting, ends the move in fault JAM: the
floor is not where its steps say. A sighting turning clockwise re-syncs the count to
the mark's step, and the leg then goes on to its target from the corrected count, so
a slip smaller than the tolerance is put right on the next clockwise pass instead of
adding up. CONFIG's FLAG_NO_JAM_WATCH turns the watch off (calibration).

Nothing in ``service()`` allocates per step or per call (no floats, tuples or lists;
a leg that starts inside the loop reuses the one Ramp): on the Pico a float is a heap
object and the garbage collector would stall the loop mid-move.

Positions are steps from the home mark, positive = clockwise (``invert`` swaps the
DIR level only, so positions keep their meaning).
"""
from array import array

import floorproto as P
from homing import Homing, LEAVING, SEEKING
from markwatch import DEFAULT_CONFIRM, MarkWatch
from motion import Ramp, constant_interval_us, ramp_sums, ramp_table

TOLERANCE_PER_REV = 32     # without a CONFIG: half an ant of 16
HOME_CONFIRM_PASSES = 3    # homing: loop passes the sensor must still read active after the stop


class Floor:
    def __init__(self, stepper, now_ms, diff_ms=None, steps_per_rev=3200, top_speed=800,
                 acceleration=1600, home_speed=400, max_move=6400, invert=False):
        self.stepper = stepper
        self.now_ms = now_ms
        self.diff_ms = diff_ms or (lambda a, b: a - b)
        self.state = P.IDLE
        self.fault = P.NO_FAULT
        self.homed = False
        self.target = 0            # where the floor is headed, in steps from home
        self._issued = 0           # position once every queued step has gone out
        self._dir = 1
        self._homing = None
        self._started = 0
        self._budget_ms = 0
        self.jam_watch = True
        self.watch = MarkWatch()
        self._watching = False     # this leg is watched
        self._leg_base = 0         # the position pulse 0 of this leg stands for (+ re-syncs)
        self.resyncs = 0           # re-syncs on the mark since boot (tests, diagnostics)
        # where the sensor read active during the last leg, for MARKS (calibration): up to
        # MAX_RUNS (rise, fall) pairs, fall NO_EDGE while it still reads active
        self._runs = array("i", [0] * (2 * P.MAX_RUNS))
        self._run_count = 0
        self._apply(steps_per_rev, top_speed, acceleration, home_speed, max_move, invert, 0, 0)

    def _apply(self, steps_per_rev, top_speed, acceleration, home_speed, max_move, invert,
               tolerance, confirm):
        self.steps_per_rev = steps_per_rev
        self.top_speed = top_speed
        self.acceleration = acceleration
        self.home_speed = home_speed
        self.max_move = max_move
        self.invert = invert
        self.tolerance = tolerance or steps_per_rev // TOLERANCE_PER_REV
        self.confirm = confirm or DEFAULT_CONFIRM
        self._table = ramp_table(top_speed, acceleration)
        self._sums = ramp_sums(self._table)
        self._ramp = Ramp(0, top_speed, acceleration, table=self._table)
        self._home_interval = constant_interval_us(home_speed)

    # --- commands (each returns 0 or a floorproto.ERR_* refusal) --------------
    def configure(self, cfg):
        if self.state in (P.MOVING, P.HOMING):
            return P.ERR_BUSY
        if min(cfg["steps_per_rev"], cfg["top_speed"], cfg["acceleration"], cfg["home_speed"]) < 1:
            return P.ERR_BAD_PAYLOAD
        if 2 * cfg["tolerance"] >= cfg["steps_per_rev"]:
            return P.ERR_BAD_PAYLOAD       # every sighting would be near some mark
        self._apply(cfg["steps_per_rev"], cfg["top_speed"], cfg["acceleration"], cfg["home_speed"],
                    cfg["max_move"], bool(cfg["flags"] & P.FLAG_INVERT), cfg["tolerance"],
                    cfg["confirm"])
        self.jam_watch = not cfg["flags"] & P.FLAG_NO_JAM_WATCH
        return 0

    def move_to(self, target):
        """Head for ``target``; the same target again is a no-op, a new one while moving follows on."""
        if not self.homed or self.state == P.HOMING:
            return P.ERR_NOT_HOMED
        if target == self.target and self.state == P.MOVING:
            return 0
        if abs(target - self.position()) > self.max_move:
            return P.ERR_TOO_LONG
        self.target = target
        if self.state == P.IDLE and target != self._issued:
            self._start_leg()
        return 0

    def home(self):
        self._abort()
        self.fault = P.NO_FAULT
        self.homed = False
        self.state = P.HOMING
        self._watching = False
        self._homing = Homing(self.steps_per_rev)
        self._dir = 1
        st = self.stepper
        st.set_direction(not self.invert)
        st.enable(True)
        self._homing.start(st.home_active())
        st.stop_at_mark(self._homing.phase == SEEKING)
        self._started = self.now_ms()
        self._budget_ms = self._homing.limit * 2000 // max(self.home_speed, 1) + 1000
        return 0

    def stop(self):
        """Halt at once. A stopped move keeps its position; a stopped homing is still unhomed."""
        if self.state in (P.MOVING, P.HOMING):
            self._abort()
            self.state = P.IDLE
            self.stepper.enable(False)
        return 0

    # --- the loop -------------------------------------------------------------
    def service(self):
        """Call as often as possible: feeds the stepper, runs homing, watches for faults."""
        st = self.stepper
        if self.state == P.MOVING or self.state == P.HOMING:
            if st.stall_active():
                self._fail(P.STALL)
                return
            if self.diff_ms(self.now_ms(), self._started) > self._budget_ms:
                self._fail(P.MOVE_TIMEOUT if self.state == P.MOVING else P.HOME_NOT_FOUND)
                return
        if self.state == P.MOVING:
            ramp = self._ramp
            while st.room() > 0:
                interval = ramp.next_interval_us()
                if interval is None:
                    break
                st.queue(interval)
                self._issued += self._dir
            if self._watch_mark():
                self._fail(P.JAM)
                return
            if ramp.remaining() == 0 and not st.busy():
                if self._issued != self.target:
                    self._start_leg()      # a new target, or the rest after a re-sync
                else:
                    self.state = P.IDLE
                    st.enable(False)   # the floor holds by friction; a cool driver lasts
        elif self.state == P.HOMING:
            self._service_homing(st)

    def _service_homing(self, st):
        homing = self._homing
        assert homing is not None              # home() made it before entering HOMING
        if st.stopped_at_mark():
            # The port ended the pulses on the step the mark's edge arrived. A glitch on
            # the wire ends them too: the mark counts only if the sensor still reads
            # active, standing, on HOME_CONFIRM_PASSES passes in a row.
            if st.home_active():
                homing.confirmed += 1
                if homing.confirmed >= HOME_CONFIRM_PASSES:
                    st.abort()
                    st.stop_at_mark(False)
                    self._issued = 0
                    self.target = 0
                    self.homed = True
                    self.state = P.IDLE
                    st.enable(False)
                return
            homing.glitches += 1
            homing.confirmed = 0
            dropped = st.abort()               # the queued steps go again from here
            homing.queued -= dropped
            self._issued -= dropped
            st.stop_at_mark(True)
        if homing.phase == LEAVING and not st.home_active():
            homing.phase = SEEKING
            st.stop_at_mark(True)
        interval = self._home_interval
        while homing.queued < homing.limit and st.room() > 0:
            st.queue(interval)
            homing.queued += 1
            self._issued += 1
        if homing.queued >= homing.limit and not st.busy() and not st.stopped_at_mark():
            self._fail(P.HOME_NOT_FOUND)

    def _watch_mark(self):
        """This pass's edges: noted for MARKS and, when the leg is watched, through the jam
        watch; True when the floor is not where its steps say. The count is re-synced as
        the watch asks. Small ints only."""
        st = self.stepper
        watch = self.watch
        watching = self._watching
        # where the floor surely is, taken before the edges: every edge up to here is in
        made = self.position()
        edge = st.next_edge()
        while edge >= 0:
            at = self._leg_base + self._dir * (edge >> 1)
            active = (edge & 1) == 1
            self._note_run(active, at)
            if watching:
                if watch.level(active, at, at):
                    return True
                correction = watch.take_correction()
                if correction:
                    self._leg_base += correction
                    self._issued += correction
                    made += correction
                    self.resyncs += 1
            edge = st.next_edge()
        return watching and watch.reached(made) != 0

    def _note_run(self, active, at):
        runs = self._runs
        n = self._run_count
        if active:
            if n < P.MAX_RUNS and (n == 0 or runs[2 * n - 1] != P.NO_EDGE):
                runs[2 * n] = at
                runs[2 * n + 1] = P.NO_EDGE
                self._run_count = n + 1
        elif n and runs[2 * n - 1] == P.NO_EDGE:
            runs[2 * n - 1] = at

    def marks_payload(self):
        return P.pack_marks(self._runs, self._run_count)

    # --- reports --------------------------------------------------------------
    def position(self):
        return self._issued - self._dir * self.stepper.in_flight()

    def status_payload(self):
        return P.pack_status(self.state, self.fault, self.homed, self.position(), self.target)

    # --- inside ---------------------------------------------------------------
    def _start_leg(self):
        st = self.stepper
        delta = self.target - self._issued
        self._dir = 1 if delta > 0 else -1
        self._ramp.reset(delta if delta > 0 else -delta)
        st.set_direction((self._dir > 0) != self.invert)
        st.enable(True)
        self.state = P.MOVING
        while st.next_edge() >= 0:
            pass                   # edges from before this leg: the floor stood still
        st.count_from_zero()
        self._run_count = 0
        self._leg_base = self._issued
        self._watching = self.homed and self.jam_watch
        if self._watching:
            self.watch.start(self._issued, self.target, self.steps_per_rev, self.tolerance,
                             self.confirm, st.home_active())
        self._started = self.now_ms()
        # Over-long move: twice the plan plus a second means the motor is not turning.
        self._budget_ms = self._ramp.duration_us(self._sums) // 500 + 1000

    def _abort(self):
        dropped = self.stepper.abort()
        self._issued -= self._dir * dropped
        self.stepper.stop_at_mark(False)
        self._ramp.reset(0)
        if self.state == P.MOVING:
            self.target = self._issued

    def _fail(self, fault):
        self._abort()
        self.target = self._issued
        self.state = P.FAULTED
        self.fault = fault
        self.homed = False        # after a stall or a lost mark the position is a guess
        self._watching = False
        self.stepper.enable(False)
