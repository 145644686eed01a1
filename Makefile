# potionpi — `make run` plays on simulated devices, `make test` runs everything.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP_RUN  := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test

.PHONY: run test bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall only when the project description changes. `make run` needs only the
# runtime (plus the GPIO libraries on a Pi); `make test` adds the test tools.
$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[pi]'
	touch $(STAMP_RUN)

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[pi,test]'
	touch $(STAMP_TEST) $(STAMP_RUN)

run: $(STAMP_RUN)
	$(BIN)/potionpi run --sim $(ARGS)

test: $(STAMP_TEST)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(STAMP_TEST)
	@for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

lint: $(STAMP_TEST)
	$(BIN)/python -m compileall -q controller web_ui firmware

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache test-output
