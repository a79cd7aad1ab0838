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
written (``devguide.census``); the site's "Validation report" page and the
per-page badges are rendered from it.

Twins run once: parity holds the two languages of a page to the same blocks,
code, marks and expected outputs, so when both pages are collected each block of
the default language runs and its identical twin is recorded with its result
(``ran_with`` in the census). ``--each-language`` runs both.

Under pytest-xdist (``-n``) the blocks are spread over the workers; the
controller gathers every result, the collected ids and the outputs to rewrite
from the workers' reports, and alone writes the census and the pages. The run's
state lives in a ``RunState`` registered on the config, not in module globals.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from devguide import census, config, running, sandbox, summary
from devguide.apicheck import unresolved_torch_attributes
from devguide.blocks import Block, page_blocks
from devguide.config import LANGUAGES, REPO, DocsError, rel
from devguide.marks import DEVICE_MARKS, MARKS
from devguide.parity import twin_problems

UPDATED_OUTPUT = "docs_updated_output"  # user property: the output --update-outputs writes
TWIN = "docs_twin"  # user property: (page, line) of an identical block that this run stands for
CPU_SECONDS = "docs_cpu_seconds"  # user property: CPU time of the block's process and its children
REUSED = "docs_reused"  # user property: the earlier passed result this run stands on (--reuse-unchanged)
REUSE_KEY = "docs_reuse_key"  # user property: (census.reuse_key, census.output_sha) of a result that stands
STATE = pytest.StashKey["RunState"]()
SITE_TEST_PREFIX = "tests/site/test_site.py"  # a passing one means this run built the site (and its notebooks)


def is_xdist_worker(config_) -> bool:
    return hasattr(config_, "workerinput")


def cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


DEVICE_NAMES = {"cuda": "CUDA", "mps": "MPS", "xpu": "XPU"}


@dataclass(eq=False)  # registered as a plugin object: hashed by identity
class RunState:
    """What a run gathers: results by (page, line), collected blocks, outputs to rewrite."""

    results: dict[tuple[str, int], dict] = field(default_factory=dict)
    collected: set[tuple[str, int]] = field(default_factory=set)
    pending_outputs: dict[tuple[str, int], str] = field(default_factory=dict)
    site_built: bool = False
    guard: sandbox.RepoGuard | None = None
    reusable: dict[str, dict] | None = None  # --reuse-unchanged: census.reusable_results, loaded once

    # ---- hooks (registered as a plugin object, so they reach this state)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids):
        """Controller under xdist: the items were collected in the workers."""
        self.collected.update(key for key in map(_key, ids) if key is not None)

    def pytest_runtest_logreport(self, report):
        if report.nodeid.startswith(SITE_TEST_PREFIX) and report.when == "call" and report.passed:
            self.site_built = True
        key = _key(report.nodeid)
        if key is None:
            return
        twins = [tuple(value) for name, value in report.user_properties if name == TWIN]
        if report.when == "call":
            for name, value in report.user_properties:
                if name == UPDATED_OUTPUT:
                    for where in (key, *twins):
                        self.pending_outputs[where] = value
        entry = self.results.setdefault(key, {"status": "passed", "seconds": 0.0})
        entry["seconds"] = round(entry["seconds"] + report.duration, 3)
        for name, value in report.user_properties if report.when == "call" else ():
            if name == CPU_SECONDS:  # the call's report only: teardown's carries the same list
                entry["cpu_seconds"] = round(entry.get("cpu_seconds", 0.0) + value, 3)
            elif name == REUSE_KEY:
                entry["reuse_key"], entry["output_sha"] = value
            elif name == REUSED:
                entry.update(value)
        if report.failed:
            entry["status"] = "failed"
        elif report.skipped:
            entry["status"] = "skipped"
            # (path, line, reason); a list once it has crossed from an xdist worker
            reason = report.longrepr[2] if isinstance(report.longrepr, (tuple, list)) else ""
            entry["skip_reason"] = reason.removeprefix("Skipped: ")
        for twin in twins:
            self.collected.add(twin)
            self.results[twin] = dict(entry, seconds=0.0, ran_with=f"{key[0]}:{key[1]}")
            for name in ("cpu_seconds", "reuse_key", "output_sha"):
                self.results[twin].pop(name, None)

    def complete_run(self) -> bool:
        """Did this run collect every runnable block of every page, and run them?
        (``--collect-only`` collects every block and runs none: its census would
        overwrite the last run's results with nothing.)"""
        runnable = census.runnable_keys()
        return bool(self.collected) and runnable <= self.collected and bool(runnable & self.results.keys())

    def write_pending_outputs(self, reporter) -> None:
        """--update-outputs: rewrite each page from the bottom up, so that a longer or
        shorter output does not shift the fences still to be written."""
        for page in sorted({page for page, _ in self.pending_outputs}):
            blocks = {b.line: b for b in page_blocks(REPO / page)}
            for line in sorted((line for p, line in self.pending_outputs if p == page), reverse=True):
                block = blocks[line]
                fence = running.write_output(block, self.pending_outputs[page, line])
                if reporter:
                    reporter.write_line(f"updated the expected output at {page}:{fence.line}")

    def pytest_sessionfinish(self, session, exitstatus):
        if is_xdist_worker(session.config):
            return  # the controller has every worker's results: it writes
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        self.write_pending_outputs(reporter)
        if self.complete_run():
            census.drop_stale_outputs()
            try:
                data = census.build(self.results, site_built=self.site_built)
                path = census.write(data, Path(session.config.getoption("census")))
                if reporter:
                    reporter.write_line(f"census with results written to {rel(path)}")
                # make test's census (the default path, pinned torch on CPU): its summary is
                # kept in the repository for builds without a test run (devguide.summary)
                if path.resolve() == config.VALIDATION_JSON.resolve() and summary.records(data):
                    if summary.write_if_changed(data) and reporter:
                        reporter.write_line(f"results changed: {rel(summary.PATH)} rewritten (commit it with the pages)")
            except DocsError:
                pass  # the census test reports it
        if config.require_cuda():
            skipped = sorted(
                f"{page}:{line}"
                for (page, line), r in self.results.items()
                if r["status"] == "skipped" and r.get("skip_reason", "").startswith(MARKS["cuda"])
            )
            if skipped:
                if reporter:
                    reporter.write_sep("=", "REQUIRE_CUDA=1: CUDA-only blocks were skipped", red=True)
                    for where in skipped:
                        reporter.write_line(f"  {where}")
                session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter, exitstatus, config):
        if is_xdist_worker(config):
            return
        reused = [r for r in self.results.values() if "reused_from" in r and "ran_with" not in r]
        if reused:
            ran = sum(1 for r in self.results.values() if r["status"] in ("passed", "failed") and "ran_with" not in r)
            terminalreporter.write_line(
                f"{len(reused)} of {ran} blocks were not run again: unchanged (code, expected output, torch, "
                f"packages, snippets/, harness, environment) since they passed in an earlier run "
                f"({config.getoption('census')}); `make test-all` (or pytest without --reuse-unchanged) runs every block"
            )
        shared = sum(1 for r in self.results.values() if "ran_with" in r)
        if shared:
            terminalreporter.write_line(
                f"{shared} blocks of the other language are identical to their twins (code, marks, "
                "expected output) and count with the twin's run; --each-language runs them too"
            )


def _key(nodeid: str):
    page, sep, name = nodeid.partition("::line ")
    if not sep or not name.isdigit() or not page.startswith("docs/"):
        return None
    return page, int(name)


def state(config_) -> RunState:
    return config_.stash[STATE]


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
        default=str(config.VALIDATION_JSON),
        help="where a complete run writes the census with each block's result "
        "(default build/validation.json, which the site shows)",
    )
    group.addoption(
        "--reuse-unchanged",
        action="store_true",
        help="do not run again a block that passed in the run recorded in the census (--census) "
        "with the same code, expected output and environment (torch, packages, snippets/, "
        "harness, environment variables: devguide.census.reuse_key); make test uses it",
    )
    group.addoption(
        "--each-language",
        action="store_true",
        help="run the other language's twin of every block too, even where its code, marks and "
        "expected output are identical (by default it runs once)",
    )


def pytest_configure(config):
    for name, meaning in MARKS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")
    config.stash[STATE] = RunState()
    config.pluginmanager.register(config.stash[STATE], "devguide-run-state")


def pytest_sessionstart(session):
    named = config.named_torch()
    if named and config.torch_version() != named:
        import torch

        pytest.exit(
            f"DOCS_TORCH={named} asks for a run with torch {named}, but this interpreter has torch "
            f"{torch.__version__} ({rel(torch.__file__)}). Run `make test-torch TORCH={named}`: it "
            "installs that version into a venv of its own.",
            returncode=4,
        )
    if not config.any_torch() and config.torch_version() != config.pinned_torch():
        import torch

        pytest.exit(
            f"The pages are validated with the pinned torch {config.pinned_torch()} (pyproject.toml), "
            f"but this interpreter has torch {torch.__version__} ({rel(torch.__file__)}). "
            "Run `make test` (it installs the pinned version into .venv), or `make test-cuda` "
            "to validate with this interpreter's own torch (DOCS_TORCH=any; the census records "
            "its version).",
            returncode=4,
        )
    if config.require_cuda() and not cuda_available():
        import torch

        pytest.exit(
            "REQUIRE_CUDA=1 but torch.cuda.is_available() is False "
            f"(torch {torch.__version__}, CUDA build: {torch.version.cuda}). This run must "
            "execute the CUDA-only blocks: run it on a machine with an NVIDIA GPU and a CUDA "
            "build of torch, or unset REQUIRE_CUDA to skip them.",
            returncode=3,
        )
    if _runs_blocks(session.config):
        running.default_zygote().launch()  # it imports torch while pytest collects


def _runs_blocks(config_) -> bool:
    """Will this process run blocks? Then its block runner is started before
    collection. Not in pytest-xdist's controller (its workers run the tests), not
    with --collect-only, not for paths outside docs/, and not with
    --reuse-unchanged (a warm make test may run none)."""
    if (config_.getoption("collectonly") or config_.getoption("reuse_unchanged")
            or config_.pluginmanager.hasplugin("dsession")):
        return False
    for arg in config_.args:
        path = (config_.invocation_params.dir / arg.split("::")[0]).resolve()
        if path == config.DOCS or config.DOCS in path.parents or path in config.DOCS.parents:
            return True
    return False


def pytest_collect_file(file_path: Path, parent):
    if file_path.suffix == ".md" and any(file_path.is_relative_to(config.DOCS / lang) for lang in LANGUAGES):
        return DocsPage.from_parent(parent, path=file_path)
    return None


class DocsPage(pytest.File):
    """A Markdown page; its python and bash blocks are the items, plus its twin check."""

    def collect(self):
        try:
            blocks = page_blocks(self.path)
        except DocsError as exc:
            raise self.CollectError(str(exc)) from None
        for block in blocks:
            item = DocsBlock.from_parent(self, name=f"line {block.line}", block=block)
            for mark in block.marks:
                if mark.name != "skip":  # an excused block is skipped in runtest, at its page line
                    item.add_marker(mark)
            yield item
        yield TwinCheck.from_parent(self, name="twin")


class TwinCheck(pytest.Item):
    """Running one page checks its twin too: it exists, with the same code and anchors."""

    def runtest(self):
        problems = twin_problems(self.path)
        if problems:
            raise DocsError("\n".join(problems))

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, DocsError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, "twin"


class DocsBlock(pytest.Item):
    """One fenced block (with its continuations), run as the reader would run it."""

    def __init__(self, *, block: Block, **kwargs):
        super().__init__(**kwargs)
        self.block = block
        self.twins: list[Block] = []  # identical blocks this run stands for
        state(self.config).collected.add((rel(block.page), block.line))

    def runtest(self):
        block = self.block
        for mark in block.marks:
            if mark.name == "skip":
                raise pytest.skip.Exception(mark.kwargs["reason"], _use_item_location=True)
        for kind in DEVICE_MARKS:
            if kind in block.mark_names and not config.device_available(kind):
                self._check_without_device(kind)
                # reported at the page line, like a skip mark
                raise pytest.skip.Exception(
                    f"{MARKS[kind]}; compiled and API-checked here", _use_item_location=True
                )
        if "pinned" in block.mark_names and config.torch_version() != config.pinned_torch():
            raise pytest.skip.Exception(
                f"shows the pinned torch {config.pinned_torch()}; this run uses torch "
                f"{config.torch_version()} (DOCS_TORCH={'any' if not config.named_torch() else config.named_torch()})",
                _use_item_location=True,
            )
        run = state(self.config)
        key = census.reuse_key(block, sandbox.block_limits())
        if self._reuse(run, key):
            return
        try:
            output = self._run(run)
        except Exception:
            census.remember_failure(key)  # an earlier pass of this very block is not reused any more
            raise
        # the key of a result that stands for its code and expected output: not where
        # --update-outputs has just rewritten an expected output that did not match
        if UPDATED_OUTPUT not in (name for name, _ in self.user_properties):
            self.user_properties.append((REUSE_KEY, (key, census.output_sha(output))))

    def _run(self, run: RunState) -> str:
        """Run the block; check what it printed; return it."""
        block = self.block
        # Where the kernel has Landlock, a block cannot write into the repository at
        # all; elsewhere the guard notices and restores what it changed.
        if not sandbox.landlock_abi() and run.guard is None:
            run.guard = sandbox.RepoGuard(REPO)
        guard = None if sandbox.landlock_abi() else run.guard
        if guard:
            guard.before()
        try:
            stats = {}
            output = running.run_block(block, stats=stats)
            if stats.get("cpu_seconds") is not None:
                self.user_properties.append((CPU_SECONDS, stats["cpu_seconds"]))
        finally:
            changed = guard.after() if guard else []
        if changed:
            raise running.BlockFailure(
                f"{block.where}: the repository changed while this block ran; the harness put "
                f"it back. Blocks run in a temporary folder with a copy of snippets/: write "
                f"only there. Changed: {', '.join(changed)}"
                + ("" if not is_xdist_worker(self.config) else
                   " (with several pytest workers another block may have been running at the "
                   "same time: -n0 names the block for sure)")
            )
        for same in (block, *self.twins):
            census.save_output(same, output)
        try:
            running.check_output(block, output)
        except running.BlockFailure:
            if not self.config.getoption("update_outputs") or block.output_fence is None:
                raise
            # written at the end of the run, bottom-up, by the controller
            self.user_properties.append((UPDATED_OUTPUT, output))
        return output

    def _reuse(self, run: RunState, key: str) -> bool:
        """--reuse-unchanged: stand on the census's passed result of this very block
        (same reuse key) instead of running it; its printed output is kept where
        this run would have written it."""
        if not self.config.getoption("reuse_unchanged") or self.config.getoption("update_outputs"):
            return False
        if run.reusable is None:
            run.reusable = census.reusable_results(Path(self.config.getoption("census")))
        earlier = run.reusable.get(key)
        if earlier is None:
            return False
        # what it printed, kept under its page line of then; another block may have
        # written that file since (a run of one page, a block that moved): then, and
        # where the file is gone, it runs again
        kept = config.outputs_dir() / census.output_name(earlier["page"], earlier["line"])
        output = kept.read_text(encoding="utf-8") if kept.exists() else ""
        if census.output_sha(output) != earlier["output_sha"]:
            return False
        for same in (self.block, *self.twins):
            census.save_output(same, output)
        self.user_properties.append((REUSE_KEY, (key, earlier["output_sha"])))
        self.user_properties.append((REUSED, {
            "reused_from": earlier["reused_from"],
            "seconds": earlier.get("seconds", 0.0),
            **({"cpu_seconds": earlier["cpu_seconds"]} if "cpu_seconds" in earlier else {}),
        }))
        return True

    def _check_without_device(self, kind: str):
        """Where the device is missing: bash syntax, or compile and resolve torch names."""
        block = self.block
        if block.language == "bash":
            done = subprocess.run(["bash", "-n", "-c", block.code], capture_output=True, text=True)
            if done.returncode:
                raise running.BlockFailure(f"{block.where}: bash syntax error\n{done.stderr}")
            return
        running.compiled(block)
        missing = unresolved_torch_attributes(block)
        if missing:
            raise running.BlockFailure(
                f"{block.where}: {DEVICE_NAMES[kind]}-only block uses names that do not exist in torch "
                f"{__import__('torch').__version__}:\n  " + "\n  ".join(missing)
            )

    def repr_failure(self, excinfo):
        twins = "".join(
            f"\n(this run also stands for its identical twin {t.where}; --each-language runs it separately)"
            for t in self.twins
        )
        if isinstance(excinfo.value, (running.BlockFailure, DocsError)):
            return str(excinfo.value) + twins
        return str(super().repr_failure(excinfo)) + twins

    def reportinfo(self):
        return self.path, self.block.line - 1, f"line {self.block.line}"


def identical_twins(blocks: dict[str, list]) -> list[tuple]:
    """(runs, twin) pairs: the blocks of a non-default-language page that are
    identical, one by one and all of them, to those of its default-language twin.
    ``blocks`` maps ``docs/<lang>/<path>`` to that page's blocks (or anything with
    a ``.block``), in page order."""

    def block(b):
        return getattr(b, "block", b)

    default = LANGUAGES[0]
    pairs = []
    for page, own in blocks.items():
        lang, _, rest = page.removeprefix("docs/").partition("/")
        if lang == default:
            continue
        runs = blocks.get(f"docs/{default}/{rest}", [])
        if len(runs) == len(own) and all(
            census.signature(block(a)) == census.signature(block(b)) for a, b in zip(runs, own, strict=True)
        ):
            pairs += zip(runs, own, strict=True)
        # otherwise both run (and the parity check says where they differ)
    return pairs


def pytest_collection_modifyitems(session, config, items):
    """Run a block once for both languages when its twin is identical (see above)."""
    if config.getoption("each_language"):
        return
    pages: dict[str, list[DocsBlock]] = {}
    for item in items:
        if isinstance(item, DocsBlock):
            pages.setdefault(rel(item.block.page), []).append(item)
    twins_run = set()
    for runs, twin in identical_twins(pages):
        runs.twins.append(twin.block)
        runs.user_properties.append((TWIN, (rel(twin.block.page), twin.block.line)))
        twins_run.add(twin)
    if twins_run:
        config.hook.pytest_deselected(items=[i for i in items if i in twins_run])
        items[:] = [i for i in items if i not in twins_run]
    # The harness's own tests before the blocks (the blocks' order is set below), so
    # that a slow one-test module is not what a worker runs while the other has
    # finished; the offline copy is built in the background after the site: its
    # tests go last, so that the others run while it builds instead of waiting for it.
    items.sort(key=lambda i: (i.nodeid.startswith(OFFLINE_TESTS), not i.nodeid.startswith("tests/")))
    if is_xdist_worker(config):  # the order the workers collect is the order of the work
        longest_blocks_first(items)


def longest_blocks_first(items) -> None:
    """Blocks in the order of the time they took in the last run, longest first
    (the xdist scheduler hands out one-block units in this order: a 10 s torchrun
    block handed out last leaves the other worker idle at the end). Every worker
    reads the same census, so every worker collects the same order; blocks the
    census does not know keep their place after the known ones; other items stay put."""
    last = census.load(prune=False)
    if last is None:
        return
    took = {(f["page"], f["line"]): f.get("seconds", 0.0) for f in last["fences"]}
    blocks = [i for i in items if isinstance(i, DocsBlock)]
    order = sorted(blocks, key=lambda i: -took.get((rel(i.block.page), i.block.line), 0.0))
    slots = iter(order)
    items[:] = [next(slots) if isinstance(i, DocsBlock) else i for i in items]


# --------------------------------------------------------------------------- scheduling under xdist

# Tests of the built site share one build (tests/site/conftest.py: the first worker
# that needs it builds it, the others wait). Three units of work, handed out first:
# the pages in Chromium, the search, and the rest (links, reader features, the
# offline copy), so that a run whose blocks are reused (--reuse-unchanged) is not
# one worker's site tier long.
SITE_TIER = "tests/site/"
SITE_UNITS = {"tests/site/test_browser.py": "site: pages in Chromium", "tests/site/test_search.py": "site: search"}
OFFLINE_TESTS = "tests/site/test_offline.py"
# Pages whose blocks measure time, bandwidth or memory: each such page runs in
# one worker, block after block (on a GPU the other workers still run small blocks
# beside them: the timing blocks' margins are made for a busy GPU; the GPU job's
# default -n0 gives the memory blocks the device to themselves).
TOGETHER_PAGES = tuple(f"docs/{lang}/{part}/" for lang in LANGUAGES for part in ("async", "performance"))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Each block and test is its own unit of work, except the site tier (three units,
    handed out first: LoadScopeScheduling sends the largest units first) and the
    timing pages (one unit each). Not --dist loadgroup: with pytest 9.2 it silently
    stops grouping (pytest-dev/pytest-xdist#1386)."""
    if config.getvalue("dist") != "load":
        return None  # another --dist asked for explicitly
    from xdist.scheduler import LoadScopeScheduling

    class SiteTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            if nodeid.startswith(SITE_TIER):
                return SITE_UNITS.get(nodeid.split("::")[0], "site")
            if nodeid.startswith(TOGETHER_PAGES + ("tests/",)):
                # a timing page's blocks, or a test module (its module fixtures run once)
                return nodeid.split("::")[0]
            return nodeid

    return SiteTogether(config, log)
