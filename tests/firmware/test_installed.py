"""A plain (non-editable) install carries the firmware and the protocol: flash and simulate from it.

Builds the wheel, installs it into a fresh venv and runs from a folder outside the
checkout, so nothing can be found by walking up from the source tree. The venv
borrows the running environment's packages (flask, pyserial, ...) through a .pth
line, which adds them as plain folders: an editable potionpi there stays inert.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent("""
    import io, json, subprocess, sys
    from pathlib import Path

    from controller import firmware_tools
    from controller.firmware import floorproto as P

    fake = Path(sys.argv[1])
    fake.write_text("import sys\\nargs = sys.argv[1:]\\n"
                    "if 'potionpi-mpy' in args[-1]: print('potionpi-mpy', 6 | 3 << 8, '1.28.0')\\n"
                    "[print('cp', args[i + 1], args[i + 2], flush=True) "
                    "for i, a in enumerate(args) if a == 'cp']\\n")
    port, sim = firmware_tools.start_sim_pico(steps_per_rev=3200)
    try:
        out = io.StringIO()
        flashed = firmware_tools.flash(port, out, mpremote=[sys.executable, str(fake)])
        cli = subprocess.run([str(Path(sys.executable).with_name("potionpi")), "check",
                              "--only", "pico", "--port", port], capture_output=True, text=True, timeout=30)
    finally:
        sim.close()
    print(json.dumps({
        "firmware_dir": str(firmware_tools.find_firmware_dir()),
        "files": [[str(path), name] for path, name in firmware_tools.firmware_files()],
        "protocol_file": P.__file__,
        "version": firmware_tools.firmware_version(),
        "flash": [flashed, out.getvalue()],
        "check": [cli.returncode, cli.stdout + cli.stderr],
    }))
""")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with the potionpi wheel installed (not editable); its python."""
    tmp = tmp_path_factory.mktemp("installed")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q",
                            "-w", str(tmp / "dist")], capture_output=True, text=True, timeout=180)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (tmp / "dist").glob("potionpi-*.whl")
    venv.create(tmp / "venv", with_pip=False)
    python = tmp / "venv" / "bin" / "python"
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                           "--no-deps", str(wheel)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "borrowed_deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return python


@pytest.mark.slow
def test_an_installed_potionpi_flashes_and_simulates_the_pico_from_its_own_files(installed, tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "POTIONPI_FIRMWARE_DIR", "PYTHONHOME")}
    done = subprocess.run([str(installed), "-c", SCRIPT, str(tmp_path / "mpremote_fake.py")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    got = json.loads(done.stdout.splitlines()[-1])
    site = installed.parents[1] / "lib"
    firmware_dir = Path(got["firmware_dir"])
    assert firmware_dir.is_relative_to(site) and firmware_dir.name == "firmware"
    assert not firmware_dir.resolve().is_relative_to(ROOT)
    # the Pico gets every firmware module and the protocol this install speaks, main.py last
    names = [name for _, name in got["files"]]
    expected = sorted(p.name for p in (ROOT / "firmware").glob("*.py") if p.name != "__init__.py")
    assert sorted(names) == expected and names[-1] == "main.py"
    assert all(Path(path).is_file() and Path(path).is_relative_to(site) for path, _ in got["files"])
    assert Path(got["protocol_file"]) == firmware_dir / "floorproto.py"
    assert got["version"] != "unknown"
    code, text = got["flash"]
    assert code == 0 and f"[{len(names)}/{len(names)}]" in text, text
    code, text = got["check"]
    assert code == 0 and f"firmware {got['version']}-sim" in text, text
