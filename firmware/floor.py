"""The firmware's brain: one forest floor, its moves, homing, faults and status.

Pure logic: it drives a *stepper port* and reads a clock it is given, so the Pico
(hal.PioStepper) and the simulated Pico (controller/devices/sim_pico.py) run the
very same code. A stepper port offers:

    room()              how many more step intervals it can take right now
    queue(interval_us)  one step, then wait interval_us before the next
    in_flight()         queued steps whose pulse has not gone out yet
    abort()             drop queued steps at once; returns how many were dropped
    set_direction(fwd)  DIR level for the next steps
    enable(on)          driver coils on/off
    home_active()       the home sensor sees the mark
    mark_seen()         the sensor saw the mark since the last call (or sees it now)
    stop_at_mark(on)    arm: end the pulses at once on the step the sensor's edge arrives
    stopped_at_mark()   it did (until the next abort or arming)
    stall_active()      the driver reports a stall (False when it cannot)

Jam watch: the home mark passes the sensor at a known step every revolution
(position 0 mod steps_per_rev once homed). A move whose steps cross that step from
more than ``jam_window`` steps before it to more than ``jam_window`` after it without
the sensor seeing the mark, or whose sensor sees the mark farther than ``jam_window``
steps from where it should be, ends in fault JAM: the floor did not turn as the steps
say. This works with any driver; it catches a jam only on a move that passes (or
should not meet) the mark. CONFIG's FLAG_NO_JAM_WATCH turns it off (calibration).

Nothing in ``service()`` allocates per step or per call (no floats, tuples or
lists): on the Pico a float is a heap object and the garbage collector would
stall the loop mid-move.

Positions are steps from the home mark, positive = clockwise (``invert`` swaps the
DIR level only, so positions keep their meaning).
"""
import floorproto as P
from homing import Homing, LEAVING, SEEKING
from motion import Ramp, constant_interval_us, ramp_table

JAM_WINDOW_PER_REV = 16    # the window either side of the mark: a sixteenth of a turn


class Floor:
    def __init__(self, stepper, now_ms, diff_ms=None, steps_per_rev=3200, top_speed=800,
                 acceleration=1600, home_speed=400, max_move=6400, invert=False):
        self.stepper = stepper
        self.now_ms = now_ms
        self.diff_ms = diff_ms or (lambda a, b: a - b)
        self.steps_per_rev = steps_per_rev
        self.top_speed = top_speed
        self.acceleration = acceleration
        self.home_speed = home_speed
        self.max_move = max_move
        self.invert = invert
        self.jam_window = steps_per_rev // JAM_WINDOW_PER_REV
        self._table = ramp_table(top_speed, acceleration)
        self.state = P.IDLE
        self.fault = P.NO_FAULT
        self.homed = False
        self.target = 0            # where the floor is headed, in steps from home
        self._issued = 0           # position once every queued step has gone out
        self._dir = 1
        self._ramp = None
        self._homing = None
        self._started = 0
        self._budget_ms = 0
        self._home_interval = constant_interval_us(home_speed)
        # jam watch over one leg: where the last pass found the floor, and whether the
        # steps made near the mark covered its step / saw the sensor
        self.jam_watch = True
        self._last_made = 0
        self._near = False
        self._saw = False
        self._mark = self._lo = self._hi = 0

    # --- commands (each returns 0 or a floorproto.ERR_* refusal) --------------
    def configure(self, cfg):
        if self.state in (P.MOVING, P.HOMING):
            return P.ERR_BUSY
        if min(cfg["steps_per_rev"], cfg["top_speed"], cfg["acceleration"], cfg["home_speed"]) < 1:
            return P.ERR_BAD_PAYLOAD
        self.steps_per_rev = cfg["steps_per_rev"]
        self.top_speed = cfg["top_speed"]
        self.acceleration = cfg["acceleration"]
        self.home_speed = cfg["home_speed"]
        self.max_move = cfg["max_move"]
        self.invert = bool(cfg["flags"] & P.FLAG_INVERT)
        self.jam_window = self.steps_per_rev // JAM_WINDOW_PER_REV
        self.jam_watch = not cfg["flags"] & P.FLAG_NO_JAM_WATCH
        self._table = ramp_table(self.top_speed, self.acceleration)
        self._home_interval = constant_interval_us(self.home_speed)
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
        self._homing = Homing(self.steps_per_rev)
        self._dir = 1
        self.stepper.set_direction(not self.invert)
        self.stepper.enable(True)
        self._homing.start(self.stepper.home_active())
        self.stepper.stop_at_mark(self._homing.phase == SEEKING)
        self._started = self.now_ms()
        seconds = self._homing.limit / max(self.home_speed, 1)
        self._budget_ms = int(seconds * 2000) + 1000
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
            assert ramp is not None            # a move always runs on the ramp _start_leg made
            while st.room() > 0:
                interval = ramp.next_interval_us()
                if interval is None:
                    break
                st.queue(interval)
                self._issued += self._dir
            if self.homed and self.jam_watch and self._watch_mark(st.mark_seen()):
                self._fail(P.JAM)
                return
            if ramp.remaining() == 0 and st.in_flight() == 0:
                if self._issued != self.target:
                    self._start_leg()
                else:
                    self.state = P.IDLE
                    st.enable(False)   # the floor holds by friction; a cool driver lasts
        elif self.state == P.HOMING:
            self._service_homing(st)

    def _service_homing(self, st):
        homing = self._homing
        assert homing is not None              # home() made it before entering HOMING
        if st.stopped_at_mark():
            # The port ended the pulses on the step the mark arrived: that step is home.
            st.abort()
            st.stop_at_mark(False)
            self._issued = 0
            self.target = 0
            self.homed = True
            self.state = P.IDLE
            st.enable(False)
            return
        if homing.phase == LEAVING and not st.home_active():
            homing.phase = SEEKING
            st.stop_at_mark(True)
        interval = self._home_interval
        while homing.queued < homing.limit and st.room() > 0:
            st.queue(interval)
            homing.queued += 1
            self._issued += 1
        if homing.queued >= homing.limit and st.in_flight() == 0 and not st.stopped_at_mark():
            self._fail(P.HOME_NOT_FOUND)

    def _watch_mark(self, seen):
        """Jam watch for this loop pass; True when the floor is not where its steps say.

        ``seen``: the sensor saw the mark since the last pass. A visit near the mark is
        judged when the steps leave its window: crossed from one side to the other
        without a sighting is a jam; a leg that ends inside the window is not judged
        (a calibration nudge, say). A sighting outside every window is a jam at once.
        Small ints only: nothing here allocates.
        """
        rev = self.steps_per_rev
        w = self.jam_window
        made = self.position()
        last = self._last_made
        self._last_made = made
        lo = made if made < last else last
        hi = made if made > last else last
        mark = self._mark if self._near else (made + rev // 2) // rev * rev
        if lo <= mark + w and hi >= mark - w:
            # these steps came near the mark's step
            if not self._near:
                self._near = True
                self._mark = mark
                self._lo = lo
                self._hi = hi
            if lo < self._lo:
                self._lo = lo
            if hi > self._hi:
                self._hi = hi
            if seen:
                self._saw = True
            return False
        if self._near:
            crossed = self._lo < mark - w and self._hi > mark + w
            saw = self._saw
            self._near = self._saw = False
            if crossed and not saw:
                return True        # passed the mark's step without seeing the mark
        return seen                # the mark where it should not be

    # --- reports --------------------------------------------------------------
    def position(self):
        return self._issued - self._dir * self.stepper.in_flight()

    def status_payload(self):
        return P.pack_status(self.state, self.fault, self.homed, self.position(), self.target)

    # --- inside ---------------------------------------------------------------
    def _start_leg(self):
        delta = self.target - self._issued
        self._dir = 1 if delta > 0 else -1
        self._ramp = Ramp(abs(delta), self.top_speed, self.acceleration, table=self._table)
        self.stepper.set_direction((self._dir > 0) != self.invert)
        self.stepper.enable(True)
        self.state = P.MOVING
        self._last_made = self.position()
        self._near = self._saw = False
        if self.homed:
            # where the leg starts counts (on the mark: seen); an older sighting does not
            self._watch_mark(self.stepper.mark_seen())
        self._started = self.now_ms()
        # Over-long move: twice the plan plus a second means the motor is not turning.
        self._budget_ms = int(self._ramp.duration_s() * 2000) + 1000

    def _abort(self):
        dropped = self.stepper.abort()
        self._issued -= self._dir * dropped
        self.stepper.stop_at_mark(False)
        self._ramp = None
        if self.state == P.MOVING:
            self.target = self._issued

    def _fail(self, fault):
        self._abort()
        self.target = self._issued
        self.state = P.FAULTED
        self.fault = fault
        self.homed = False        # after a stall or a lost mark the position is a guess
        self.stepper.enable(False)
