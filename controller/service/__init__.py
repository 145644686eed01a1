"""Running potionpi as the table's service: install, systemd notify, discovery, hotspot,
self-check, update and logs. Each module does one of these; the CLI wires them."""

# `potionpi check`'s choices, here so the CLI can offer them without importing the check
# (every command builds the whole parser: `potionpi run` would load it for nothing)
SIM_FAULTS = ("beam", "encoder")
# what `--only` chooses from; "pins" covers the pin factory too
CHECK_PARTS = ("pins", "encoder", "beam", "colour", "pico", "homing")
