"""Forest-floor firmware entry point: runs at power-up on the Pi Pico.

Kept tiny and in source form (MicroPython runs only main.py, not main.mpy); the
firmware itself is app.mpy. Hold GP22 (settings.SAFE_MODE_PIN) to GND while plugging
in to stay in the REPL.
"""
# Ctrl-C off before anything else. Frames are binary and a reconnecting host sends
# HELLOs while the Pico boots: a 0x03 that arrived during boot fires as soon as
# main.py starts, so even this first statement sits inside a try, and again until
# it has run.
while True:
    try:
        import micropython
        micropython.kbd_intr(-1)
        break
    except KeyboardInterrupt:
        pass

try:
    # EN "off" next: the RP2040's default pull-down on GP4 means "coils on"
    import settings as S
    from machine import Pin
    Pin(S.ENABLE_PIN, Pin.OUT, value=1 if S.ENABLE_ACTIVE_LOW else 0)
    import app
    app.main()
except KeyboardInterrupt:     # queued before kbd_intr(-1): start the firmware afresh
    import machine
    machine.reset()
