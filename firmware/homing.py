"""Homing state machine: step forward until the home sensor trips, give up after 1.2 turns.

Pure logic. The caller makes one step per ``update`` answer STEP and reads the
sensor again only after that step has left the driver, so the floor stops at the
same step every time it approaches the mark from the same side at the same speed.
"""

STEP, DONE, FAIL = "step", "done", "fail"

LEAVING, SEEKING, FOUND, FAILED = "leaving", "seeking", "found", "failed"


class Homing:
    def __init__(self, steps_per_rev):
        # 1.2 revolutions: a full turn must pass the mark once; the extra fifth
        # forgives a sensor whose window starts just behind the start position.
        self.limit = steps_per_rev * 12 // 10
        self.phase = None
        self.steps = 0

    def update(self, sensor_active):
        """Next thing to do given the sensor now: STEP, DONE or FAIL."""
        if self.phase is None:
            # Starting on the mark: first step off it, then approach it properly.
            self.phase = LEAVING if sensor_active else SEEKING
        if self.phase == LEAVING:
            if sensor_active:
                return self._step()
            self.phase = SEEKING
        if self.phase == SEEKING:
            if sensor_active:
                self.phase = FOUND
                return DONE
            return self._step()
        return DONE if self.phase == FOUND else FAIL

    def _step(self):
        if self.steps >= self.limit:
            self.phase = FAILED
            return FAIL
        self.steps += 1
        return STEP
