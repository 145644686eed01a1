"""The forest-floor Pico's firmware, and the wire protocol both ends of the cable speak.

On the Pico these files sit side by side at the root of its file system and import
each other by bare name (``import floorproto``); this file is not flashed.

On the host the folder is the package ``controller.firmware`` (``controller/firmware``
links here), so it is installed with potionpi: ``potionpi firmware flash`` copies the
files from wherever potionpi is installed, ``potionpi run --sim-mcu`` runs the pure
modules as a simulated Pico, and the host imports the protocol as
``controller.firmware.floorproto``, the very file the Pico gets.
"""
