"""pytest plugin: every python and bash block of every page is a test.

Loaded by its entry point (``pytest11`` in pyproject.toml; ``-p no:devguide``
turns it off). Test ids name the page and
line: ``docs/zh/getting-started/index.md::line 42``; each page also has a
``twin`` item (its other-language twin exists and agrees). Marks come from HTML
comments right above a fence (see CONTRIBUTING.md):

* ``<!--pytest.mark.cuda-->`` -- needs CUDA. Without a GPU the block is compiled,
  its ``torch.…`` names are checked against the installed torch, and it is
  skipped with that reason. ``REQUIRE_CUDA=1`` makes a run without CUDA stop at
  once and a run that skipped any such block fail at the end.
* ``<!--pytest.mark.mps-->``, ``<!--pytest.mark.xpu-->`` -- need an Apple-silicon
  GPU (MPS) or an Intel GPU (XPU). Handled like ``cuda`` where that device is
  missing -- which is on every CI machine: the census counts them apart and the
  validation report says how many no CI machine has executed.
* ``<!--pytest.mark.skip(reason="…")-->`` -- excused, never run; the reason goes
  to the validation report. ``timeout(N)`` and ``pinned``: see CONTRIBUTING.

At the end of a run over all pages the census with each block's result is
written (``devguide.census.file``); the site's "Validation report" page and the
per-page badges are rendered from it.

Twins run once: parity holds the two languages of a page to the same blocks,
code, marks and expected outputs, so when both pages are collected each block of
the default language runs and its identical twin is recorded with its result
(``ran_with`` in the census). ``--each-language`` runs both.

Under pytest-xdist (``-n``) the blocks are spread over the workers; the
controller gathers every result, the collected ids and the outputs to rewrite
from the workers' reports, and alone writes the census and the pages. The run's
state lives in a ``RunState`` registered on the config, not in module globals.

This module holds the plugin's hooks; the work is done in ``devguide.pytest_plugin.page_items``
(the pages, blocks and twin checks as pytest items), ``devguide.pytest_plugin.state`` (the
results gathered, the census written) and ``devguide.pytest_plugin.scheduling`` (the order and
the units of work under xdist).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from devguide import paths
from devguide.census import torch_facts
from devguide.paths import LANGUAGES, rel
from devguide.pytest_plugin import cpu_seconds, page_items, reuse, scheduling, terminal
from devguide.pytest_plugin.state import STATE, RunState
from devguide.run import limit, sandbox, zygote_client
from devguide.source.marks import MARKS

# --------------------------------------------------------------------------- hooks


def pytest_addoption(parser):
    group = parser.getgroup("docs", "executable docs")
    group.addoption(
        "--update-outputs",
        action="store_true",
        help="rewrite a page's expected-output fences with the output its blocks print",
    )
    group.addoption(
        "--census",
        default=str(paths.VALIDATION_JSON),
        help="where a complete run writes the census with each block's result "
        "(default build/validation.json, which the site shows)",
    )
    group.addoption(
        "--reuse-unchanged",
        action="store_true",
        help="do not run again a block that passed in the run recorded in the census (--census) "
        "with the same code, expected output and environment (torch, packages, snippets/, "
        "harness, environment variables: devguide.census.file.reuse_key); make test uses it",
    )
    group.addoption(
        "--show-output",
        action="store_true",
        help="at the end of the run, print what each passing block printed, under its page line "
        "(a failing block shows it in its failure; every output is also saved in build/artifacts/outputs/)",
    )
    group.addoption(
        "--cpu-seconds",
        metavar="FILE",
        help="write the run's CPU time by family of checks (blocks, twin checks, tests/unit, tests/content, "
        "each site module) and its wall time to FILE, as JSON (make bench; devguide.pytest_plugin.cpu_seconds)",
    )
    group.addoption(
        "--each-language",
        action="store_true",
        help="run the other language's twin of every block too, even where its code (comments aside), marks and "
        "expected output are identical (by default it runs once)",
    )


def pytest_configure(config):
    for name, meaning in MARKS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")
    config.addinivalue_line("markers", f"{reuse.NAMED_PAGES}: {reuse.NAMED_PAGES_MEANING}")
    config.addinivalue_line("markers", "twin_check(name): the parity check of the page pair docs/<lang>/<name>; "
                            "left out of a run whose twin items check that pair")
    config.stash[STATE] = RunState()
    config.pluginmanager.register(config.stash[STATE], "devguide-run-state")
    # the tests outside docs/: run again only when something changed (devguide.pytest_plugin.reuse)
    config.pluginmanager.register(reuse.TierReuse(config), "devguide-tier-reuse")
    cpu_seconds.register(config)


def pytest_sessionstart(session):
    named = paths.named_torch()
    if named and paths.torch_version() != named:
        import torch

        pytest.exit(
            f"DOCS_TORCH={named} asks for a run with torch {named}, but this interpreter has torch "
            f"{torch.__version__} ({rel(torch.__file__)}). Run `make test-torch TORCH={named}`: it "
            "installs that version into a venv of its own.",
            returncode=4,
        )
    if not paths.any_torch() and paths.torch_version() != paths.pinned_torch():
        import torch

        pytest.exit(
            f"The pages are validated with the pinned torch {paths.pinned_torch()} (pyproject.toml), "
            f"but this interpreter has torch {torch.__version__} ({rel(torch.__file__)}). "
            "Run `make test` (it installs the pinned version into .venv), or `make test-cuda` "
            "to validate with this interpreter's own torch (DOCS_TORCH=any; the census records "
            "its version).",
            returncode=4,
        )
    if paths.require_cuda() and not paths.device_available("cuda"):
        import torch

        pytest.exit(
            "REQUIRE_CUDA=1 but torch.cuda.is_available() is False "
            f"(torch {torch.__version__}, CUDA build: {torch.version.cuda}). This run must "
            "execute the CUDA-only blocks: run it on a machine with an NVIDIA GPU and a CUDA "
            "build of torch, or unset REQUIRE_CUDA to skip them.",
            returncode=3,
        )
    worker = getattr(session.config, "workerinput", {}).get("workerid", "")
    if not worker and _runs_blocks(session.config):
        # sandboxes that earlier runs left (a killed pytest; chattr +i where this is not root):
        # removed once, here; what cannot be removed is named at the end, never a failure
        left = sandbox.sweep_stale()
        sandbox.mark_swept()
        if left:
            session.config.stash[STATE].notes.append(
                "sandboxes of earlier runs that could not be removed (remove them as root, after "
                "chattr -R -ia where a flag is set):\n" + "\n".join(f"  {x}" for x in left[:20])
                + (f"\n  … and {len(left) - 20} more" if len(left) > 20 else ""))
    limit.arm(zygote_client.default_zygote(), session.config, worker)  # the whole run's own time limit
    if _runs_blocks(session.config):
        zygote_client.default_zygote().launch()  # it imports torch while pytest collects
    if _touches_docs(session.config):
        # torch's version and devices, for the blocks' keys and marks (in xdist's
        # controller: for the census it writes at the end)
        torch_facts.launch()


def _runs_blocks(config_) -> bool:
    """Will this process run blocks? Then its block runner is started before
    collection. Not in pytest-xdist's controller (its workers run the tests), not
    with --collect-only, not for paths outside docs/, and not with
    --reuse-unchanged (a warm make test may run none)."""
    return not config_.getoption("reuse_unchanged") and _reads_blocks(config_)


def _reads_blocks(config_) -> bool:
    """Will this process go through blocks (run them, or find their results reused)?
    Not in pytest-xdist's controller, not with --collect-only, not for paths outside docs/."""
    return not config_.pluginmanager.hasplugin("dsession") and _touches_docs(config_)


def _touches_docs(config_) -> bool:
    """Does this run collect pages (not --collect-only)? xdist's controller included."""
    if config_.getoption("collectonly"):
        return False
    for arg in config_.args:
        path = (config_.invocation_params.dir / arg.split("::")[0]).resolve()
        if path == paths.DOCS or paths.DOCS in path.parents or path in paths.DOCS.parents:
            return True
    return False


def pytest_collect_file(file_path: Path, parent):
    if file_path.suffix == ".md" and any(file_path.is_relative_to(paths.DOCS / lang) for lang in LANGUAGES):
        return page_items.DocsPage.from_parent(parent, path=file_path)
    return None


def pytest_collection_modifyitems(session, config, items):
    """One parity message per page pair; run a block once for both languages when its
    twin is identical (see above), then put the items in the order their work is best
    handed out in."""
    page_items.one_twin_check_per_pair(config, items)
    if config.getoption("each_language"):
        return
    page_items.run_twins_once(config, items)
    scheduling.order_items(config, items)


@pytest.hookimpl(optionalhook=True)
def pytest_handlecrashitem(crashitem, report, sched):
    """Under pytest-xdist: a worker died in a block (killed by it, or by the
    out-of-memory killer): that block fails, by its page line (``devguide.pytest_plugin.scheduling``)."""
    scheduling.crash_report(crashitem, report)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Under pytest-xdist: the units of work (``devguide.pytest_plugin.scheduling``)."""
    return scheduling.make_scheduler(config, log)


def pytest_terminal_summary(terminalreporter):
    """--show-output: what the passing blocks printed; skipped tests one line per reason
    (``devguide.pytest_plugin.terminal``), above pytest's short summary."""
    if not hasattr(terminalreporter.config, "workerinput"):
        if terminalreporter.config.getoption("show_output"):
            terminal.show_outputs(terminalreporter)
        terminal.report_skips(terminalreporter)
