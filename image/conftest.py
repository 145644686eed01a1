"""`make image-test`: options and fixtures for image/test_image.py."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def pytest_addoption(parser):
    parser.addoption("--image-dir", default=str(REPO / "build" / "image"),
                     help="where `make image` left the card image (default build/image)")


@pytest.fixture(scope="session")
def image_dir(request) -> Path:
    return Path(request.config.getoption("--image-dir")).resolve()


@pytest.fixture(scope="session")
def built_image(image_dir) -> Path:
    found = sorted(image_dir.glob("potionpi-*-arm64.img"))
    if not found:
        pytest.fail(f"no card image in {image_dir}: run `make image` first")
    return found[-1]


@pytest.fixture(scope="session")
def output() -> Path:
    """Screenshots and console logs, kept for a person to look at."""
    path = REPO / "test-output" / "image"
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def ssh_key(tmp_path_factory) -> Path:
    key = tmp_path_factory.mktemp("ssh") / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "image-test", "-f", str(key)],
                   check=True)
    return key
