# bmlab — the companion's two everyday commands are `make lab` and `make test`.
# Everything is installed into .venv from the pins in requirements.lock.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.bmlab-installed
PORT   ?= 8888
# make present has a port of its own, so that make lab can run beside it
VOILA_PORT ?= 8866
# nbval needs the inline backend: never let an exported Agg backend leak into notebook runs.
unexport MPLBACKEND

# Variations of the notebook run that are safe on every machine (CONTRIBUTING, "Portable
# outputs"): one BLAS/OpenMP thread, numpy's AVX-512 paths off. OPENBLAS_CORETYPE is never touched.
PORTABLE_ENV := OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 NPY_DISABLE_CPU_FEATURES="AVX512_ICL AVX512_SPR X86_V4"

.PHONY: help venv lab test test-fast test-browser test-portable test-wheel test-floors lint notebooks figures benchmarks mutation lock present site clean

help:
	@echo "make lab           set up .venv and open JupyterLab on notebooks/"
	@echo "make test          set up .venv and run the whole suite (lint, unit, notebooks, browser)"
	@echo "make test-fast     lint + unit tests only"
	@echo "make test-browser  only the JupyterLab-in-Chromium tests"
	@echo "make test-portable the notebooks under strict nbval with one thread and no AVX-512"
	@echo "make test-wheel    install the built wheel in a fresh venv and run notebooks from elsewhere"
	@echo "make test-floors   the wheel with the oldest supported dependencies runs every notebook"
	@echo "make notebooks     re-execute every notebook in place (clean, reproducible outputs)"
	@echo "make figures       regenerate recorded results (benchmarks/) and figures"
	@echo "make benchmarks    run the speed benchmarks and print their tables"
	@echo "make mutation      plant known mistakes in bmlab's core; the unit tests must catch them"
	@echo "make present       serve the widget dashboards (dashboards/) for projection with Voila"
	@echo "make site          build an offline static HTML site of the executed notebooks in site/"
	@echo "make lock          re-resolve requirements.lock and environment.yml (needs network)"

venv: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	$(PY) -m pip install --quiet --no-deps -e .
	# the JupyterLab extension the wheel installs as data files (an editable install does not)
	rm -rf $(VENV)/share/jupyter/labextensions/bmlab-links
	mkdir -p $(VENV)/share/jupyter/labextensions
	ln -s $(CURDIR)/labextension $(VENV)/share/jupyter/labextensions/bmlab-links
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (bmlab)" >/dev/null
	touch $(STAMP)

lab: $(STAMP)
	$(VENV)/bin/jupyter lab --allow-root --notebook-dir=notebooks --ServerApp.port=$(PORT)

# ruff format --check: the line budgets of tests/test_api.py count formatted code.
lint: $(STAMP)
	$(VENV)/bin/ruff check bmlab bmlab_present dashboards tests benchmarks tools notebooks/*.py $(wildcard notebooks/solutions/*.py) conftest.py
	$(VENV)/bin/ruff format --check bmlab bmlab_present dashboards tests benchmarks tools

# conftest.py supplies the nbval options: `pytest notebooks` needs no flags. Two workers
# (pytest-xdist) share the files; --dist loadfile keeps a notebook's cells, in order, in one
# kernel on one worker, and a test file's servers on one worker.
test: $(STAMP) lint
	$(PY) -m pytest tests notebooks -m "not wheel and not floors" -n 2 --dist loadfile

test-portable: $(STAMP)
	$(PORTABLE_ENV) $(PY) -m pytest notebooks

test-fast: $(STAMP) lint
	$(PY) -m pytest tests -m "not browser and not wheel and not floors"

# Builds the wheel, installs it into a fresh venv from the lock and runs notebooks 02, 05, 05b
# from a foreign folder (about 1 minute; run by .ci/run after make test).
test-wheel: $(STAMP)
	$(PY) -m pytest tests -m wheel

# The wheel in a fresh venv with exactly requirements-floors.txt (pyproject's floors) runs every
# notebook and worked solution from a foreign folder: no error, no warning, outputs not compared
# (CONTRIBUTING, "Supported versions"; run by .ci/run after make test-wheel).
test-floors: $(STAMP)
	$(PY) -m pytest tests -m floors

test-browser: $(STAMP)
	$(PY) -m pytest tests -m browser

# The only targets that write figures/ (save_figure is a no-op unless BMLAB_SAVE_FIGURES=1).
notebooks: $(STAMP)
	BMLAB_SAVE_FIGURES=1 $(PY) -m tools execute notebooks/*.ipynb $(wildcard notebooks/solutions/*.ipynb)

figures: $(STAMP)
	$(PY) benchmarks/record_all.py
	$(MAKE) notebooks

benchmarks: $(STAMP)
	$(PY) benchmarks/bench_glauber.py
	$(PY) benchmarks/bench_log_partition.py
	$(PY) benchmarks/bench_ais.py
	$(PY) benchmarks/bench_phases.py
	$(PY) benchmarks/bench_spherical.py
	$(PY) benchmarks/bench_widgets.py
	$(PY) benchmarks/bench_browser_latency.py
	$(PY) benchmarks/bench_notebooks.py
	$(PY) benchmarks/bench_class.py

# Not part of `make test` (about 5 minutes on 2 idle cores): see CONTRIBUTING, "Mutation check".
mutation: $(STAMP)
	$(PY) tests/mutation/run.py

present: $(STAMP)
	@echo "Open http://127.0.0.1:$(VOILA_PORT)/ and pick a dashboard (one per notebook)."
	$(PY) -m tools present --port=$(VOILA_PORT) dashboards

site: $(STAMP)
	$(PY) -m tools site site

lock:
	$(PY) -m pip install --quiet uv
	$(VENV)/bin/uv pip compile pyproject.toml --extra lab --extra test --python-version 3.11 --python-platform x86_64-manylinux_2_28 \
	    --no-header --annotation-style line -o requirements.lock
	$(PY) -m tools env-yml > environment.yml

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build *.egg-info
