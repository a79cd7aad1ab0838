# Two commands for a fresh Linux box with Python 3.11:
#   make serve   set up, build and serve the site on http://127.0.0.1:8000/
#   make test    set up and run the full validation (blocks, census, parity, site)
# Readers without make: see README.md for the pip/mkdocs/pytest equivalents.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
export NO_MKDOCS_2_WARNING := 1

.PHONY: setup browser axe serve build offline pdf test test-all test-a11y test-blocks test-cuda test-portable test-cuda-build test-torch bench lint typecheck lock clean deploy-rehearsal

KERNEL_CONFIG := $(VENV)/etc/ipython/ipython_kernel_config.py

setup: $(STAMP) $(KERNEL_CONFIG)

# Re-installs when pyproject.toml (the pinned dependencies) changes. pip shows each
# package as it goes (about 1 min on 2 cores from a warm pip cache, several from none).
$(STAMP): pyproject.toml tests/requirements/lock.txt
	@$(PYTHON) -c 'import sys; assert sys.version_info[:2] >= (3, 11), "Python 3.11+ required, found " + sys.version' 
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "make setup: installing the pinned dependencies into $(VENV) (torch, MkDocs, pytest, Playwright; about a minute, pip's progress below)"
	$(PY) -m pip install --progress-bar on --disable-pip-version-check -c tests/requirements/lock.txt -e ".[site,test,lint,browser]"
	touch $@

# The notebook kernel's "running over TCP without encryption" warning, dropped
# (devguide/dev/ipython_kernel_config.py says why).
$(KERNEL_CONFIG): devguide/dev/ipython_kernel_config.py | $(STAMP)
	mkdir -p $(@D) && cp $< $@

serve: setup
	$(PY) -m mkdocs serve --dev-addr 127.0.0.1:8000

build: setup
	$(PY) -m mkdocs build --strict

# A copy of the site that works from a folder (file://), zipped for download.
# The shim comes from the npm registry's tarball, checksum pinned (devguide.dev.vendor; no npm needed).
SHIM := build/vendor/iframe-worker/shim/index.js
$(SHIM): devguide/dev/vendor.py | setup
	$(PY) -m devguide.dev.vendor iframe-worker
	touch $@

# The release job's deploy (.ci/deploy: mike, /<pinned>/ and /<newest>/ = latest)
# rehearsed in a throw-away clone of HEAD with this checkout's censuses and offline
# copy: gh-pages is committed there, never here, and nothing is pushed.
REHEARSAL := build/deploy-rehearsal
deploy-rehearsal: setup offline pdf
	$(PY) -m pip install --quiet --disable-pip-version-check -c tests/requirements/lock.txt -e ".[deploy]"
	rm -rf $(REHEARSAL) && git clone --quiet . $(REHEARSAL)
	mkdir -p $(REHEARSAL)/build/artifacts
	# this checkout's census when make test wrote one; otherwise the results recorded in .ci/ stand
	for f in build/validation*.json; do if [ -e "$$f" ]; then cp "$$f" $(REHEARSAL)/build/; fi; done
	cp build/artifacts/pytorch-device-guide-offline.zip $(REHEARSAL)/build/artifacts/
	cp -r build/artifacts/pdf $(REHEARSAL)/build/artifacts/
	ln -s $(CURDIR)/$(VENV) $(REHEARSAL)/$(VENV)
	cd $(REHEARSAL) && git config user.name rehearsal && git config user.email rehearsal@localhost && DEVGUIDE_ROOT=$(CURDIR)/$(REHEARSAL) bash .ci/deploy
	git -C $(REHEARSAL) show gh-pages:versions.json

offline: setup $(SHIM)
	OFFLINE=true IFRAME_WORKER_SHIM=$(SHIM) $(PY) -m mkdocs build --strict -d build/offline
	mkdir -p build/artifacts && rm -f build/artifacts/pytorch-device-guide-offline.zip
	cd build && $(CURDIR)/$(PY) -m zipfile -c artifacts/pytorch-device-guide-offline.zip offline/

# The whole guide as a PDF per language (build/artifacts/pdf/), printed by the
# Chromium the site tests drive from the offline build's print pages
# (devguide/mkdocs_plugin/reader/pdf.py). The release job publishes them with the site (.ci/deploy).
pdf: offline browser
	$(PY) -m devguide pdf build/offline build/artifacts/pdf

# The Chromium the site tests drive: found, or installed (apt as root, else
# Playwright's download), or one message that says what to run.
browser: setup
	$(PY) -m devguide.dev.browser

# axe-core, the accessibility engine the browser tests inject into pages, from
# the npm registry's tarball with its checksum pinned (devguide/dev/vendor.py;
# no npm needed; NPM_CONFIG_REGISTRY names a mirror).
AXE := build/vendor/axe-core/axe.min.js
$(AXE): devguide/dev/vendor.py | setup
	$(PY) -m devguide.dev.vendor axe-core
	touch $@

axe: $(AXE)

# PYTEST_ARGS: extra pytest options, e.g. PYTEST_ARGS=-n0 (one process; the GPU workflow).
# A block that passed in the last complete run (build/validation.json) and has not
# changed since -- its code and expected output, torch and every installed package,
# snippets/, the harness, the environment (devguide.census.file.reuse_key) -- is not run
# again, and neither are two long re-runs of unchanged work: the plain pytest-codeblocks
# run of six pages and the real-material search benchmark, each keyed by what it reads
# (tests/content/test_plain_codeblocks.py, tests/site/test_search.py). The other tests
# outside docs/ run again when anything changed; after an edit of pages only, all but the
# harness's own tests and those that name only other pages (devguide/pytest_plugin/reuse.py).
# Where CI is set (the workflows) and with `make test-all`, everything runs.
REUSE ?= $(if $(CI),,--reuse-unchanged)
test: setup browser $(AXE)
	$(PY) -m pytest $(REUSE) $(PYTEST_ARGS)

test-all: REUSE :=
test-all: test

# Every page of both languages in Chromium with axe-core, light and dark: no
# serious or critical violation (make test checks a sample). A few minutes.
test-a11y: setup browser $(AXE)
	$(PY) -m pytest tests/site/a11y_all.py -n0 $(PYTEST_ARGS)

# Every block with the interpreter's own torch, whatever its version: a GPU
# machine's preinstalled CUDA build, often another 2.x and offline. Only the
# small pure-Python test dependencies are added (tests/requirements/any-torch.txt,
# into $(ANY_SITE), from the folder WHEELS when there is no index); the census
# records the torch, CUDA and GPU it ran with. REQUIRE_CUDA=1 fails without CUDA
# and when any CUDA-only block was skipped. One process (-n0) by default, so the
# timing blocks have the GPU to themselves: CUDA_PYTEST_ARGS overrides it.
SYSTEM_PYTHON ?= python3
ANY_SITE := .venv-any-torch
CUDA_PYTEST_ARGS ?= -n0
WHEELS ?=
# The project itself (devguide, with its pytest plugin's entry point) is installed
# there too, built with the setuptools that any-torch.txt names.
$(ANY_SITE)/.installed: tests/requirements/any-torch.txt pyproject.toml $(shell find devguide -name '*.py' -o -name '*.json')
	@$(SYSTEM_PYTHON) -c 'import torch' || { echo "make test-cuda: $(SYSTEM_PYTHON) has no torch; name the interpreter that has it: make test-cuda SYSTEM_PYTHON=/path/to/python"; exit 1; }
	@$(SYSTEM_PYTHON) -c 'import psutil' || { echo "make test-cuda: $(SYSTEM_PYTHON) has no psutil (the harness finds and measures a block's processes with it): $(SYSTEM_PYTHON) -m pip install psutil, or its wheel from a machine with an index"; exit 1; }
	rm -rf $(ANY_SITE)
	$(SYSTEM_PYTHON) -m pip install --quiet --disable-pip-version-check --no-deps --target $(ANY_SITE) \
	  $(if $(WHEELS),--no-index --find-links $(WHEELS)) -r tests/requirements/any-torch.txt .
	rm -rf build/lib build/bdist.* *.egg-info
	touch $@

# The machine's own allocator and TF32 settings would change what the memory and
# precision blocks measure: the run starts without them.
test-cuda: $(ANY_SITE)/.installed
	env -u PYTORCH_CUDA_ALLOC_CONF -u PYTORCH_ALLOC_CONF TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=0 \
	PYTHONPATH=$(CURDIR)/$(ANY_SITE) DOCS_TORCH=any $(SYSTEM_PYTHON) -m pytest \
	  docs tests/content/test_census.py tests/content/test_parity.py -p no:cacheprovider $(CUDA_PYTEST_ARGS) $(PYTEST_ARGS)

# The blocks only (and the harness's own tests): no site build, no browser.
# What the other runners of the CI matrix (ARM, macOS, other Pythons) run.
test-blocks: setup
	$(PY) -m pytest docs tests/unit tests/content --census build/validation-blocks.json $(PYTEST_ARGS)

# Every block of both languages again, on the lowest common CPU: generic ATen
# kernels, oneDNN limited to SSE4.1, one thread. A printed output that depends on
# the CPU's instruction set or on the thread count fails here (.ci/run runs it).
PORTABLE_ENV := ATEN_CPU_CAPABILITY=default ONEDNN_MAX_CPU_ISA=SSE41 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
test-portable: setup
	$(PORTABLE_ENV) $(PY) -m pytest docs --each-language --census build/validation-portable.json $(PYTEST_ARGS)

# The configuration most readers have: PyPI's default Linux wheel of torch is
# the CUDA build, here on a machine without a GPU (a download of several GB,
# into its own venv, out of the default make test; CI runs it as a job).
TORCH_PIN := $(shell sed -n 's/.*"torch==\([0-9.]*\)".*/\1/p' pyproject.toml)
CUDA_BUILD_VENV := .venv-cuda-build
$(CUDA_BUILD_VENV)/.installed: pyproject.toml tests/requirements/lock.txt
	test -x $(CUDA_BUILD_VENV)/bin/python || $(PYTHON) -m venv $(CUDA_BUILD_VENV)
	$(CUDA_BUILD_VENV)/bin/python -m pip install --isolated --quiet --disable-pip-version-check \
	  --index-url https://pypi.org/simple "torch==$(TORCH_PIN)"
	$(CUDA_BUILD_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -c tests/requirements/lock.txt -e ".[test]"
	$(CUDA_BUILD_VENV)/bin/python -c 'import torch; assert torch.version.cuda, "expected the CUDA build of torch, found " + torch.__version__'
	touch $@

test-cuda-build: $(CUDA_BUILD_VENV)/.installed
	$(CUDA_BUILD_VENV)/bin/python -m pytest docs --census build/validation-cuda-build.json $(PYTEST_ARGS)

# Every block again with a second torch, the newest release (pyproject.toml
# [tool.devguide] newest-torch; TORCH=2.16.0rc1 names another, as the weekly
# workflow does), in a venv of its own (.venv-torch-2.15): not part of make test
# or .ci/run; CI runs it as a job. torch comes from TORCH_INDEX (PyPI by default:
# on Linux the CUDA build, about 2.7 GB of downloads and 5.3 GB installed; CI
# names PyTorch's CPU index), everything else from the lock. That one pip call
# reads no pip configuration file (PIP_CONFIG_FILE=/dev/null) and no PIP_*
# variable (--isolated): a machine-wide constraint on torch, as some images set
# in /etc/pip.conf, would refuse the newer release. The run validates that torch
# and no other (DOCS_TORCH=<version>); its census goes to
# build/validation-torch-<version>.json and its outputs beside it, and the site
# shows it next to the pinned run (a column per torch version in the report,
# every version a page's blocks passed on in its validated line).
TORCH_NEWEST := $(shell sed -n 's/^newest-torch = "\([0-9a-z.]*\)".*/\1/p' pyproject.toml)
TORCH ?= $(TORCH_NEWEST)
TORCH_MINOR = $(word 1,$(subst ., ,$(TORCH))).$(word 2,$(subst ., ,$(TORCH)))
TORCH_VENV = .venv-torch-$(TORCH_MINOR)
TORCH_INDEX ?= https://pypi.org/simple
TORCH_EXTRA_INDEX ?=
TORCH_PYTEST_ARGS ?=
$(TORCH_VENV)/.installed-$(TORCH): pyproject.toml tests/requirements/lock.txt
	test -x $(TORCH_VENV)/bin/python || $(PYTHON) -m venv $(TORCH_VENV)
	PIP_CONFIG_FILE=/dev/null $(TORCH_VENV)/bin/python -m pip install --isolated --quiet --disable-pip-version-check \
	  --index-url $(TORCH_INDEX) $(if $(TORCH_EXTRA_INDEX),--extra-index-url $(TORCH_EXTRA_INDEX)) \
	  $(if $(findstring rc,$(TORCH))$(findstring dev,$(TORCH)),--pre) "torch==$(TORCH)"
	grep -v '^torch==' tests/requirements/lock.txt > $(TORCH_VENV)/constraints.txt
	$(TORCH_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -c $(TORCH_VENV)/constraints.txt \
	  $$($(TORCH_VENV)/bin/python -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
	    print(*(d for d in p["dependencies"] + p["optional-dependencies"]["test"] if not d.startswith("torch==")))')
	$(TORCH_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	$(TORCH_VENV)/bin/python -c 'import torch; v = torch.__version__.split("+")[0]; \
	  assert v == "$(TORCH)", f"expected torch $(TORCH), found {torch.__version__}"'
	touch $@

test-torch: $(TORCH_VENV)/.installed-$(TORCH)
	DOCS_TORCH=$(TORCH) $(TORCH_VENV)/bin/python -m pytest docs tests/content/test_census.py tests/content/test_parity.py \
	  --census build/validation-torch-$(TORCH).json $(TORCH_PYTEST_ARGS) $(PYTEST_ARGS)

# Regenerate the lock (the whole dependency tree, pinned) after changing pyproject.toml.
lock:
	rm -rf .venv-lock && $(PYTHON) -m venv .venv-lock
	.venv-lock/bin/python -m pip install --quiet --disable-pip-version-check -e ".[site,test,lint,browser,deploy]"
	{ echo "# The whole dependency tree, pinned: make setup installs with this file as constraints."; \
	  echo "# Regenerate after changing pyproject.toml: make lock (a fresh venv, then pip freeze)."; \
	  echo "# Local version labels (+cpu) are dropped so that the same file serves every platform."; \
	  .venv-lock/bin/python -m pip freeze --exclude-editable | grep -v pytorch-device-guide | sed 's/+[a-z0-9.]*$$//'; \
	} > tests/requirements/lock.txt
	rm -rf .venv-lock

# The budgets (every block run ≤ 90 s of pytest, warm make test ≤ 30 s, one page
# pair ≤ 3 s), measured and said met or missed, then where the time goes.
# BENCH_ARGS=--budgets measures only the budgets.
BENCH_ARGS ?=
bench: setup
	$(PY) -m devguide bench $(BENCH_ARGS)

lint: setup
	$(PY) -m ruff check .
	$(PY) -m devguide.source.lint
	$(MAKE) typecheck

# mypy on the package, with pyproject.toml's [tool.mypy] (also a test of make test)
typecheck: setup
	$(PY) -m mypy --cache-dir .cache/mypy

clean:
	rm -rf build .cache .pytest_cache .ruff_cache
