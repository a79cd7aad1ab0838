# Two commands for a fresh Linux box with Python 3.11:
#   make serve   set up, build and serve the site on http://127.0.0.1:8000/
#   make test    set up and run the full validation (blocks, census, parity, site)
# Readers without make: see README.md for the pip/mkdocs/pytest equivalents.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
export NO_MKDOCS_2_WARNING := 1

.PHONY: setup serve build offline test bench lint clean

setup: $(STAMP)

# Re-installs when pyproject.toml (the pinned dependencies) changes.
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info[:2] >= (3, 11), "Python 3.11+ required, found " + sys.version' 
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[browser]"
	touch $@

serve: setup
	$(PY) -m mkdocs serve --dev-addr 127.0.0.1:8000

build: setup
	$(PY) -m mkdocs build --strict

# A copy of the site that works from a folder (file://), zipped for download.
SHIM := build/vendor/iframe-worker/shim/index.js
$(SHIM):
	mkdir -p build/vendor && cd build/vendor && npm pack --silent iframe-worker@1.0.4 >/dev/null
	mkdir -p build/vendor/iframe-worker && tar -xzf build/vendor/iframe-worker-1.0.4.tgz -C build/vendor/iframe-worker --strip-components=1

offline: setup $(SHIM)
	OFFLINE=true IFRAME_WORKER_SHIM=$(SHIM) $(PY) -m mkdocs build --strict -d build/offline
	mkdir -p build/artifacts && rm -f build/artifacts/pytorch-device-guide-offline.zip
	cd build && $(CURDIR)/$(PY) -m zipfile -c artifacts/pytorch-device-guide-offline.zip offline/

# PYTEST_ARGS: extra pytest options, e.g. PYTEST_ARGS=-n0 (one process; the GPU workflow)
test: setup
	$(PY) -m pytest $(PYTEST_ARGS)

bench: setup
	$(PY) -m tests.bench

lint: setup
	$(PY) -m ruff check .

clean:
	rm -rf build .cache .pytest_cache .ruff_cache
