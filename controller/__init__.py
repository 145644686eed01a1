"""potionpi daemon: devices, rules engines, table, store and CLI."""

__version__ = "0.1.0"
