"""The firmware's main loop: USB bytes in, replies and events out, the floor serviced,
the watchdog fed. main.py hands over to ``main()``.

The loop never blocks and allocates nothing per pass: it reads at most
settings.RX_PER_PASS bytes, hands queued reply bytes to USB only while it can take
them, and feeds the watchdog once per pass (and nowhere else), so a hung loop is
reset within settings.WATCHDOG_MS.
"""
import time

import micropython

import hal
import settings as S
from floor import Floor
from link import Link


def run(stepper, port, watchdog):
    """The loop; returns when the host asks for the REPL (to flash)."""
    led = hal.Led()
    floor = Floor(stepper, time.ticks_ms, time.ticks_diff, steps_per_rev=S.STEPS_PER_REV,
                  top_speed=S.TOP_SPEED, acceleration=S.ACCELERATION, home_speed=S.HOME_SPEED,
                  max_move=S.MAX_MOVE)
    link = Link(floor, hal.boot_id(), S.FIRMWARE_VERSION)
    last_heard = time.ticks_ms()
    silent_ms = S.HOST_SILENT_S * 1000
    while not link.want_repl:
        try:
            while not link.want_repl:
                watchdog.feed()
                n = 0
                b = port.read_byte()
                while b >= 0:
                    last_heard = time.ticks_ms()
                    reply = link.feed_byte(b)
                    if reply is not None:
                        port.send(reply)
                    n += 1
                    if n >= S.RX_PER_PASS:
                        break
                    b = port.read_byte()
                floor.service()
                event = link.event()
                if event is not None:
                    port.send(event)
                port.flush()
                led.show(time.ticks_diff(time.ticks_ms(), last_heard) < silent_ms)
        except KeyboardInterrupt:
            pass    # one queued before Ctrl-C was turned off: it never ends the firmware
    # the REPL reply goes out before the REPL takes the port
    for _ in range(200):
        watchdog.feed()
        port.flush()
        time.sleep_ms(1)


def main():
    stepper = hal.PioStepper()           # EN off, pulses stopped
    if hal.safe_mode():
        stepper.release()
        micropython.kbd_intr(3)
        return
    port = hal.UsbPort()
    watchdog = hal.Watchdog(S.WATCHDOG_MS)
    try:
        run(stepper, port, watchdog)
    except BaseException as exc:         # a firmware bug: coils off, note it, start afresh
        stepper.release()
        try:
            with open("crash.txt", "w") as fh:
                fh.write(repr(exc))
        except BaseException:
            pass
        import machine
        machine.reset()
    # asked to step aside for flashing: the REPL must not be reset by the watchdog
    stepper.release()
    watchdog.off()
    micropython.kbd_intr(3)
