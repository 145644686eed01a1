"""Every pin and hardware constant of the forest-floor Pico, in one place.

GP numbers are the RP2040's GPIO numbers (the "GPx" labels on a Pi Pico), not the
physical header pins. docs/firmware.md shows the wiring to the stepper driver.
"""

FIRMWARE_VERSION = "3.0.0"

# Stepper driver in step/dir mode (A4988, DRV8825 or TMC2209).
STEP_PIN = 2            # GP2  -> driver STEP
DIR_PIN = 3             # GP3  -> driver DIR
ENABLE_PIN = 4          # GP4  -> driver EN (active low: 0 = coils powered)
ENABLE_ACTIVE_LOW = True # fit a 10 kOhm pull-up GP4 -> 3V3: the pin floats (or is pulled down)
                         # while the Pico boots, and low would mean "coils on"

# Home mark: a hall sensor (A3144) or slotted optical switch, open collector to GND.
HOME_PIN = 6            # GP6  <- home sensor output, internal pull-up
HOME_ACTIVE_LOW = True  # the output pulls low while the magnet/flag is at the sensor

# Stall output of the driver (TMC2209 DIAG goes high on a stall). None: no stall input.
STALL_PIN = None        # e.g. 7 for GP7 <- TMC2209 DIAG
STALL_ACTIVE_HIGH = True

# Pull this pin to GND while the Pico powers up to skip the firmware and keep the
# REPL (for flashing when the firmware cannot be reached over the protocol).
SAFE_MODE_PIN = 22      # GP22, internal pull-up

STATUS_LED = "LED"      # on-board LED: on = host connected, blinking = waiting for host

# PIO state machine that makes the step pulses; 1 MHz makes one PIO cycle 1 us.
STEP_SM = 0
STEP_SM_FREQ = 1000000
STEP_PULSE_US = 16      # STEP high time; A4988 needs 1 us, DRV8825 1.9 us

# Motion defaults until the host sends CONFIG (steps per second, per second squared).
STEPS_PER_REV = 3200    # 16 ants x 200 steps
TOP_SPEED = 800
ACCELERATION = 1600
HOME_SPEED = 400
MAX_MOVE = 2 * 3200     # a single move longer than two revolutions is refused

# Seconds without any frame from the host after which the LED shows "waiting".
HOST_SILENT_S = 2

# The watchdog resets the Pico when the main loop stops feeding it for this long
# (Klipper's RP2040 build uses about the same). The loop never blocks: USB writes
# wait in a ring buffer of TX_BUFFER bytes instead.
WATCHDOG_MS = 350
TX_BUFFER = 512
# Bytes read from the host per loop pass at most, so the step FIFO is topped up often.
RX_PER_PASS = 64
