"""Run the jam watch's shared vectors (markwatch_vectors.json) through firmware/markwatch.py.

The same script runs on CPython, on MicroPython's unix port and as main.py on the
emulated RP2040 (where there is no sys.argv: the vectors sit beside it on the Pico's
filesystem). Prints one line per case and "markwatch ok N"; any difference from the
vectors raises.
"""
import json
import sys

from markwatch import MarkWatch, VERDICT_NAMES


def run(path):
    with open(path) as fh:
        cases = json.load(fh)["cases"]
    watch = MarkWatch()
    for case in cases:
        watch.start(case["start"], case["end"], case["revolution"], case["tolerance"],
                    case["confirm"], case["active"], case["resync_width"])
        got = []
        for event in case["events"]:
            if event[0] == "level":
                verdict = watch.level(event[1], event[2], event[3])
                want = event[4:6]
            else:
                verdict = watch.reached(event[1])
                want = event[2:4]
            correction = watch.take_correction()
            got.append(VERDICT_NAMES[verdict])
            if [VERDICT_NAMES[verdict], correction] != want:
                raise AssertionError("%s: %s gave %s, %d, not %s" % (
                    case["name"], event, VERDICT_NAMES[verdict], correction, want))
        for key in ("off", "glitches", "sightings"):
            if key in case and getattr(watch, key) != case[key]:
                raise AssertionError("%s: %s is %d, not %d" % (case["name"], key,
                                                              getattr(watch, key), case[key]))
        print("case", case["name"], " ".join(got))
    print("markwatch ok", len(cases))


run(sys.argv[1] if len(getattr(sys, "argv", [])) > 1 else "markwatch_vectors.json")
