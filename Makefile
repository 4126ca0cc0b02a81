# Two commands on a fresh machine (Python 3.11 and Java 17): `make lab` and `make test`.
# Both create the virtual environment first if needed.

VENV   ?= .venv
PYTHON ?= python3.11
BIN    := $(VENV)/bin
# The stamp records the last successful install: the venv is rebuilt only when
# pyproject.toml (or the kernel registration) changes, not on every `make test`.
STAMP  := $(VENV)/.installed

# `make lab NO_BROWSER=1` on a remote machine or in a container.
LAB_FLAGS := $(if $(filter 1,$(NO_BROWSER)),--no-browser)
# Jupyter refuses to start as root unless told; containers and CI machines often are root.
LAB_FLAGS += $(if $(filter 0,$(shell id -u)),--allow-root)

.PHONY: venv test lab bench clean

venv: $(STAMP)

$(STAMP): pyproject.toml tools/register_kernel.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e '.[viz,spark,dev]'
	$(BIN)/python tools/register_kernel.py
	touch $@

test: venv
	$(BIN)/python -m pytest -q tests

lab: venv
	$(BIN)/jupyter lab $(LAB_FLAGS) notebooks/

bench: venv
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) build book/_build .pytest_cache .hypothesis *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
