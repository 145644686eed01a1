"""The built-in device plug-ins, one package each (``controller/devices/__init__.py``)."""
