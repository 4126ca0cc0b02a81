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

.PHONY: venv test lab lab-check bench mutation clean

venv: $(STAMP)

$(STAMP): pyproject.toml tools/register_kernel.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e '.[viz,spark,connect,dev]'
	$(BIN)/python tools/register_kernel.py
	touch $@

# Two workers (pytest-xdist): the chapters' run, their exercises and the book's site keep to one, in
# that order (tests/conftest.py), the other tests share both. TEST_WORKERS=0: one process.
TEST_WORKERS ?= 2

test: venv chromium
	$(BIN)/python -m pytest -q -m 'not wheelhouse' -n $(TEST_WORKERS) tests

lab: venv
	$(BIN)/jupyter lab $(LAB_FLAGS) notebooks/

# Every chapter as a new user runs it: in a real JupyterLab, offline, in headless Chromium (Run All,
# no errors, every chart drawn, each live explorer redraws when its slider moves); screenshots in
# build/screenshots/lab/. CI parameters; LAB_CHECK_FLAGS=--full for the full-size chapters.
lab-check: venv chromium
	$(BIN)/python tools/lab_check.py $(LAB_CHECK_FLAGS)

# Mutation testing of the models (tools/mutation.py): `SAMPLE=0` checks every mutant (hours),
# `ONLY=kafkasim.coordinator` some modules; the report lands in build/mutation/report.md.
mutation: venv
	$(BIN)/python tools/mutation.py $(if $(SAMPLE),--sample $(SAMPLE)) $(if $(ONLY),--only $(ONLY)) $(if $(RESUME),--resume $(filter survived,$(RESUME))) $(if $(ALONE),--alone $(ALONE))

bench: venv
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) build book/_build book/_vendor .pytest_cache .hypothesis *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

# --- The book (book/README.md) ----------------------------------------------------------------
# `make book`: execute the chapters with papermill (full size; up-to-date copies in build/executed/
# are reused), then build the site into book/_build/html with Jupyter Book; warnings fail it.
# `make book-check`: open every page of that site in headless Chromium, offline (screenshots in
# build/screenshots/book/). `make test` checks a CI-sized build the same way (tests/test_site.py).
CHROMIUM ?= /usr/bin/chromium
export CHROMIUM  # read by tools/site_check.py

.PHONY: book book-check chromium

book: venv
	$(BIN)/python tools/book.py

book-check: book chromium
	$(BIN)/python tools/site_check.py book/_build/html build/screenshots/book

# Debian's chromium, installed when missing (needs root: apt-get).
chromium:
	@if [ -x "$(CHROMIUM)" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing Debian's chromium for the book's browser check"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; \
	else \
		echo "The book's browser check needs Chromium at $(CHROMIUM). Install it as root:" >&2; \
		echo "    sudo apt-get install chromium     (Debian/Ubuntu)" >&2; \
		echo "or point make at another Chromium/Chrome binary: make test CHROMIUM=/path/to/chrome" >&2; \
		exit 1; \
	fi

# --- The course kit (tools/course.py) -----------------------------------------------------------
# `make course`: build/course/ (student edition without solutions, instructor edition executed at
# full size, instructor guide, README) and the archive build/kafkasim-course-<version>.zip, which
# also holds the book's site and the wheelhouse.
# `make wheelhouse`: every wheel a student needs on this platform, in build/wheelhouse/, for an
# offline classroom (`make wheelhouse SPARK=1` adds PySpark, ~450 MB, for the Spark chapter).
# `make test-course`: installs from that wheelhouse into a fresh venv with pip kept offline (slow;
# .ci/run runs it after `make test`).
SPARK ?= 0
.PHONY: course wheelhouse test-course

course: book wheelhouse
	$(BIN)/python tools/course.py kit

wheelhouse: venv
	$(BIN)/python tools/course.py wheelhouse $(if $(filter 1,$(SPARK)),--spark)

test-course: wheelhouse
	$(BIN)/python -m pytest -q -m wheelhouse tests/test_course.py
