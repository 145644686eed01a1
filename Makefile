# potionpi — `make` builds the venv, `make run` starts the table this machine has
# (simulated where there is no GPIO, said loudly), `make sim` always simulated,
# `make test` runs everything, `make test-quick` the quick lane while you work, `make bench`
# measures (`make bench-quick`: the targets' benches alone; `make bench-proof`: the proof
# suite), `make lint` type-checks the host and the firmware.
# On a Pi: `make`, then `sudo .venv/bin/potionpi install` runs it as a service.
PYTHON ?= python3
# e.g. VENV_FLAGS=--system-site-packages to use Debian's python3-lgpio (docs/install.md)
VENV_FLAGS ?=
VENV   := .venv
BIN    := $(VENV)/bin
STAMP_RUN  := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test
# MicroPython's stubs replace the standard library's, so they live apart from the venv's
# packages, where they would shadow CPython's (they install top-level .pyi files).
MP_STUBS   := $(VENV)/micropython-stubs
STAMP_STUBS := $(MP_STUBS)/.installed
FIRMWARE_MODULES := $(patsubst firmware/%.py,%,$(filter-out firmware/__init__.py,$(wildcard firmware/*.py)))
# Tests run in parallel, one pytest-xdist worker per core (servers take free ports,
# each worker starts its own browser); a test that must not run beside others of its
# kind marks them with the same xdist_group and they share one worker.
PYTEST_ARGS ?= -n auto --dist loadgroup
# setuptools prints a boxed "BuildBackendWarning: Editable installation" for every
# editable install, even under --quiet; a new owner takes it for an error. It is advice
# for developers with a same-named folder elsewhere, so it is filtered by its message.
PIP := PYTHONWARNINGS='ignore:Editable installation' $(BIN)/python -m pip

.PHONY: all run sim test test-quick bench bench-quick bench-proof lint clean image image-test
.DEFAULT_GOAL := all

$(BIN)/python:
	$(PYTHON) -m venv $(VENV_FLAGS) $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall only when the project description changes. `make run` needs only the
# runtime (plus lgpio and smbus2 on a Pi: the `pi` extra); `make test` adds the test tools.
$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(PIP) install --quiet -e '.[pi]'
	@# the service sees the checkout read-only (ProtectHome): compile it now, not at each start
	$(BIN)/python -m compileall -q controller web_ui
	touch $(STAMP_RUN)

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	$(PIP) install --quiet -e '.[pi,test]'
	touch $(STAMP_TEST) $(STAMP_RUN)

$(STAMP_STUBS): | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade --target $(MP_STUBS) 'micropython-rp2-rpi-pico-stubs>=1.22'
	touch $(STAMP_STUBS)

all: $(STAMP_RUN)
	@echo "potionpi is installed in $(VENV). Try it: make run (make sim: simulated devices)."
	@echo "On a Raspberry Pi, run it as a service: sudo $(BIN)/potionpi install"

# The table this machine has: real devices on a Pi, simulated (and said so) elsewhere.
run: $(STAMP_RUN)
	$(BIN)/potionpi run $(ARGS)

sim: $(STAMP_RUN)
	$(BIN)/potionpi run --sim $(ARGS)

test: $(STAMP_TEST)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The quick lane: no browser, no slow test, every property test at a tenth of its examples
# (tests/sizes.py); under 2 minutes on a 2-core machine. `make test` stays whole. Two
# workers per core: without a browser most tests wait on the disk (every action is
# committed), a socket or a thread as often as they compute.
# On a slow machine scale the per-test timeouts: POTIONPI_TIMEOUT_SCALE=4 make test (a Pi Zero 2 W).
QUICK_ARGS ?= -n $(shell echo $$(( 2 * $$(nproc 2>/dev/null || echo 1) ))) --dist loadgroup
test-quick: $(STAMP_TEST)
	POTIONPI_EXAMPLES=$${POTIONPI_EXAMPLES:-0.1} $(BIN)/python -m pytest $(QUICK_ARGS) -q -m "not browser and not slow"

# Every bench but the proof suite (a few minutes in all), then one table of the targets,
# each beside its baseline from the same run (docs/performance.md says how to read it).
bench: $(STAMP_TEST)
	$(BIN)/python bench/run_all.py

# Only the benches whose rows are issue 26's targets (start-up, memory, drop -> streams,
# downloads, messages, the page), with the same table: for a busy machine or a Pi.
bench-quick: $(STAMP_TEST)
	$(BIN)/python bench/run_all.py --quick

# The proof suite at full scale (issue 15: kill -9 cycles, races, fuzzing; ~15 minutes)
bench-proof: $(STAMP_TEST)
	$(BIN)/python bench/bench_proof.py

# Host: controller and web_ui as CPython 3.11, every function annotated (config in pyproject.toml).
# Firmware: its modules by their names on the Pico, against the RP2040 MicroPython
# stubs and MicroPython's own standard library (config in firmware/mypy.ini).
lint: $(STAMP_TEST) $(STAMP_STUBS)
	@status=0; \
	$(BIN)/python -m mypy || status=1; \
	MYPYPATH=firmware:$(MP_STUBS) $(BIN)/python -m mypy --config-file firmware/mypy.ini \
	    --custom-typeshed-dir $(MP_STUBS) $(addprefix -m ,$(FIRMWARE_MODULES)) || status=1; \
	exit $$status

# The SD-card image for the Raspberry Pi 3, 4 and Zero 2 W (image/build.sh, minutes; its
# root steps go through sudo). Downloads are cached in root's ~/.cache/potionpi-image. `make image-test` boots it in
# QEMU and checks it from outside (image/test_image.py, minutes); neither is in `make test`.
IMAGE_OUT ?= build/image
# the venv as the invoking user, the root's parts through sudo (the card comes back theirs)
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
image: $(STAMP_RUN)
	$(SUDO) env $(if $(IMAGE_CACHE),IMAGE_CACHE=$(IMAGE_CACHE)) image/build.sh $(IMAGE_OUT)

image-test: $(STAMP_TEST)
	$(BIN)/python -m pytest -p no:cacheprovider -o testpaths=image -n 0 --timeout 3600 \
	    image/test_image.py --image-dir $(IMAGE_OUT) $(ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache test-output
