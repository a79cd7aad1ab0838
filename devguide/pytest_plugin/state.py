"""The run's state, gathered by the pytest plugin, and the census written from it.

A ``RunState`` is registered on the pytest config (``state(config)``), not kept
in module globals: it gathers every block's result by (page, line) from the
reports (under pytest-xdist the controller gets them from the workers' reports,
with the collected ids and the outputs to rewrite), and at the end of a run that
collected and ran every block the controller alone writes the census
(``devguide.census.file``), the recorded summary (``devguide.census.summary``) and, with
``--update-outputs``, the pages' expected outputs. Items pass what the
controller needs in their ``user_properties``, under the names below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from devguide import paths
from devguide.census import file as census
from devguide.census import summary
from devguide.paths import REPO, DocsError, rel
from devguide.run import sandbox, zygote_client
from devguide.source.blocks import page_blocks
from devguide.source.marks import MARKS

UPDATED_OUTPUT = "docs_updated_output"  # user property: the output --update-outputs writes
TWIN = "docs_twin"  # user property: (page, line) of an identical block that this run stands for
CPU_SECONDS = "docs_cpu_seconds"  # user property: CPU time of the block's process and its children
REUSED = "docs_reused"  # user property: the earlier passed result this run stands on (--reuse-unchanged)
REUSE_KEY = "docs_reuse_key"  # user property: (census.reuse_key, census.output_sha) of a result that stands
STATE = pytest.StashKey["RunState"]()
SITE_TEST_PREFIX = "tests/site/test_site.py"  # a passing one means this run built the site (and its notebooks)


def is_xdist_worker(config_) -> bool:
    return hasattr(config_, "workerinput")


@dataclass(eq=False)  # registered as a plugin object: hashed by identity
class RunState:
    """What a run gathers: results by (page, line), collected blocks, outputs to rewrite."""

    results: dict[tuple[str, int], dict] = field(default_factory=dict)
    collected: set[tuple[str, int]] = field(default_factory=set)
    pending_outputs: dict[tuple[str, int], str] = field(default_factory=dict)
    site_built: bool = False
    guard: sandbox.RepoGuard | None = None
    reusable: dict[str, dict] | None = None  # --reuse-unchanged: census.reusable_results, loaded once
    # what the end of the run has to say (the census written, outputs updated): printed by
    # pytest_terminal_summary, each on a line of its own (pytest_sessionfinish would write
    # them onto the last progress line)
    notes: list[str] = field(default_factory=list)

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
        try:
            if census.a_page_left_out({page for page, _ in self.collected}):
                return False
            runnable = census.runnable_keys()
        except DocsError:
            return False  # a page that cannot be read: its own item fails (collection.PageProblem)
        return bool(self.collected) and runnable <= self.collected and bool(runnable & self.results.keys())

    def write_pending_outputs(self) -> None:
        """--update-outputs: rewrite each page from the bottom up, so that a longer or
        shorter output does not shift the fences still to be written."""
        for page in sorted({page for page, _ in self.pending_outputs}):
            blocks = {b.line: b for b in page_blocks(REPO / page)}
            for line in sorted((line for p, line in self.pending_outputs if p == page), reverse=True):
                block = blocks[line]
                fence = zygote_client.write_output(block, self.pending_outputs[page, line])
                self.notes.append(f"updated the expected output at {page}:{fence.line}")

    def pytest_sessionfinish(self, session, exitstatus):
        if is_xdist_worker(session.config):
            return  # the controller has every worker's results: it writes
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        self.write_pending_outputs()
        if self.complete_run():
            census.drop_stale_outputs()
            try:
                data = census.build(self.results, site_built=self.site_built)
                path = census.write(data, Path(session.config.getoption("census")))
                self.notes.append(f"census with results written to {rel(path)}")
                # make test's census (the default path, pinned torch on CPU): its summary is
                # kept in the repository for builds without a test run (devguide.census.summary)
                if path.resolve() == paths.VALIDATION_JSON.resolve() and summary.records(data):
                    self.record_summary(data, exitstatus)
            except DocsError:
                pass  # the census test reports it
        if paths.require_cuda():
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

    def record_summary(self, data: dict, exitstatus) -> None:
        """The committed summary records a green run only: a run that failed (a block, a
        site test, the build) leaves it as it is, so that it never has to be reverted."""
        if exitstatus != pytest.ExitCode.OK or any(r["status"] == "failed" for r in self.results.values()):
            if summary.from_census(data)["results"] != (summary.load() or {}).get("results"):
                self.notes.append(f"{rel(summary.PATH)} left as it is: this run failed (a green run records its results)")
        elif summary.write_if_changed(data):
            self.notes.append(f"results changed: {rel(summary.PATH)} rewritten (commit it with the pages)")

    def pytest_terminal_summary(self, terminalreporter, exitstatus, config):
        if is_xdist_worker(config):
            return
        for note in self.notes:
            terminalreporter.write_line(note)
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
                f"{shared} blocks of the other language are identical to their twins (code without comments, "
                "marks, expected output) and count with the twin's run; --each-language runs them too"
            )


def _key(nodeid: str):
    page, sep, name = nodeid.partition("::line ")
    if not sep or not name.isdigit() or not page.startswith("docs/"):
        return None
    return page, int(name)


def state(config_) -> RunState:
    return config_.stash[STATE]

