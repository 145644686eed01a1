"""GPIO forest floor: the step rate the Python pulse loop reaches (prints figures).

Runs on gpiozero's MockFactory, so it measures the loop's own overhead; on a Pi
with lgpio the pin writes cost more. Pick ``top_speed`` in the config below the
figure printed on the Pi itself.
"""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpiozero.pins.mock import MockFactory  # noqa: E402

from controller.devices.floor_gpio import GpioForestFloor  # noqa: E402


def main() -> None:
    factory = MockFactory()
    for top in (1000, 4000, 16000, 1e6):
        floor = GpioForestFloor(17, 27, enable_pin=22, steps_per_ant=100, top_speed=top, start_speed=top,
                                acceleration=1e9, pin_factory=factory)
        t = time.perf_counter()
        floor.rotate(16, "clockwise")
        floor.wait_idle()
        took = time.perf_counter() - t
        print(f"asked {top:>9.0f} steps/s: 1600 steps in {took * 1000:7.1f} ms = {1600 / took:8.0f} steps/s")
        floor.close()
    factory.close()


if __name__ == "__main__":
    main()
