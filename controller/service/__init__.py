"""Running potionpi as the table's service: install, systemd notify, discovery, hotspot,
self-check, update and logs. Each module does one of these; the CLI wires them."""
