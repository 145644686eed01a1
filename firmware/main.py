"""Forest-floor firmware entry point: runs at power-up on the Pi Pico.

Hold GP22 (settings.SAFE_MODE_PIN) to GND while plugging in to stay in the REPL.
"""
import time

import micropython

import settings as S


def run():
    import hal
    from floor import Floor
    from link import Link

    stepper = hal.PioStepper()
    port = hal.UsbPort()
    led = hal.Led()
    floor = Floor(stepper, time.ticks_ms, time.ticks_diff, steps_per_rev=S.STEPS_PER_REV,
                  top_speed=S.TOP_SPEED, acceleration=S.ACCELERATION, home_speed=S.HOME_SPEED,
                  max_move=S.MAX_MOVE)
    link = Link(floor, hal.boot_id(), S.FIRMWARE_VERSION)
    # Frames are binary: a 0x03 inside a payload must not raise KeyboardInterrupt.
    micropython.kbd_intr(-1)
    last_heard = time.ticks_ms()
    try:
        while not link.want_repl:
            data = port.read_available()
            if data:
                last_heard = time.ticks_ms()
                for reply in link.feed(data):
                    port.write(reply)
            floor.service()
            event = link.event()
            if event:
                port.write(event)
            led.show(time.ticks_diff(time.ticks_ms(), last_heard) < S.HOST_SILENT_S * 1000)
    finally:
        stepper.release()
        micropython.kbd_intr(3)


def main():
    import hal
    if hal.safe_mode():
        return
    try:
        run()
    except Exception as exc:  # a firmware bug: note it, then start afresh
        import machine
        with open("crash.txt", "w") as fh:
            fh.write(repr(exc))
        time.sleep(1)
        machine.reset()


main()
