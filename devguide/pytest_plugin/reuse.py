"""The tests outside docs/ that need not run again (``--reuse-unchanged``).

A block is reused when its own code, outputs and environment are unchanged
(``census.reuse_key``). The other tests -- the harness's (tests/unit), the pages'
(tests/content) and the built site's (tests/site: the strict build, Chromium,
axe, search, the offline copy, the downloads) -- read the whole repository, so
they are reused only when nothing at all changed (``repo_key``): every file git
sees (tracked, or untracked and not ignored), torch, the installed packages, the
environment variables and the harness (``census.environment_fingerprint``),
Chromium, and the results the site shows (the censuses in build/). A run in
which every one of them passed, with nothing deselected, records that key and
their ids in pytest's cache (``.pytest_cache``, key ``devguide/tests-passed``);
the next ``make test`` with the same key reports them passed without running them
or their fixtures (so the site is not built again). Any change, anywhere, runs
them all; ``make test-all`` and CI (no ``--reuse-unchanged``) always do, and so
does a run without pytest's cache (``-p no:cacheprovider``). A run in which one of
them failed empties the record.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess

import pytest
from _pytest.reports import TestReport

from devguide import paths
from devguide.census import file as census
from devguide.dev.browser import chromium_identity

RECORD = "devguide/tests-passed"  # the key in pytest's cache
REUSED = "docs_tier_reused"  # user property of a test reported passed without running


def repo_key() -> str | None:
    """Everything the tests outside docs/ can see, hashed; None where git cannot list the files."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=paths.REPO,
                                capture_output=True, check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    digest = hashlib.sha256(census.environment_fingerprint(()).encode())
    for name in sorted(n for n in listed.split(b"\0") if n):
        path = paths.REPO / os.fsdecode(name)
        if path.is_file() and not path.is_symlink():
            digest.update(name + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    # what the site shows besides the repository: the censuses of earlier runs (their
    # results, not their times) and a GPU run's artifact
    for path in sorted(paths.BUILD.glob("validation*.json")) + sorted((paths.BUILD / "gpu").rglob("*")):
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + _results_of(path))
    digest.update(chromium_identity().encode())
    return digest.hexdigest()


def _results_of(path) -> bytes:
    """A census's results without its times; any other file as it is."""
    raw = path.read_bytes()
    try:
        data = json.loads(raw)
        rows = sorted((f.get("page"), f.get("line"), f.get("kind"), f.get("sha"), f.get("status"))
                      for f in data["fences"])
        return repr((data.get("machine"), rows)).encode()
    except (ValueError, KeyError, TypeError, AttributeError):
        return raw


def _whole_selection(config_) -> bool:
    """All the tests, as make test runs them: no paths, -k, -m, --deselect or --lf."""
    option = config_.option
    return (not config_.args or list(config_.args) == list(config_.getini("testpaths"))) and not (
        getattr(option, "keyword", "") or getattr(option, "markexpr", "") or getattr(option, "deselect", None)
        or getattr(option, "lf", False) or getattr(option, "failedfirst", False)
    )


def _outside_docs(nodeid: str) -> bool:
    return not nodeid.startswith("docs/")


class TierReuse:
    """Registered by the pytest plugin; active in every process, each doing its part."""

    def __init__(self, config_):
        self.config = config_
        self.cache = getattr(config_, "cache", None)  # None with -p no:cacheprovider: nothing reused or recorded
        self.reuse = bool(config_.getoption("reuse_unchanged")) and not config_.getoption("update_outputs")
        self.key: str | None = None
        self.recorded: set[str] = set()
        self.passed: set[str] = set()
        self.failed = False
        self.reused = 0

    def pytest_sessionstart(self, session):
        if self.cache is None or not (self.reuse or _whole_selection(self.config)):
            return  # a run of some paths (one page pair) neither reuses nor records: no key
        self.key = repo_key()
        record = self.cache.get(RECORD, None) if self.reuse and self.key else None
        if isinstance(record, dict) and record.get("key") == self.key:
            self.recorded = set(record.get("passed", []))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        if item.nodeid not in self.recorded or not _outside_docs(item.nodeid):
            return None
        hook = item.ihook
        hook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        for when in ("setup", "call", "teardown"):
            props = [(REUSED, True)] if when == "call" else []
            report = TestReport(item.nodeid, item.location, {}, "passed", None, when, user_properties=props)
            hook.pytest_runtest_logreport(report=report)
        hook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True

    def pytest_runtest_logreport(self, report):
        if hasattr(self.config, "workerinput") or not _outside_docs(report.nodeid):
            return  # the controller (or the one process) keeps the tally
        if report.failed:
            self.failed = True
        elif report.when == "call" and report.passed:
            self.passed.add(report.nodeid)
            self.reused += any(name == REUSED for name, _ in report.user_properties)

    def pytest_sessionfinish(self, session, exitstatus):
        if hasattr(self.config, "workerinput"):
            return
        if self.cache is None:
            return
        if self.failed or exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            if self.failed:
                self.cache.set(RECORD, {})
            return
        if self.key and _whole_selection(self.config) and self.passed:
            self.cache.set(RECORD, {"key": self.key, "passed": sorted(self.passed)})

    def pytest_terminal_summary(self, terminalreporter):
        if self.reused and not hasattr(self.config, "workerinput"):
            terminalreporter.write_line(
                f"{self.reused} tests outside docs/ were not run again: nothing changed (files, packages, "
                f"environment, Chromium, results) since they all passed (pytest's cache: {RECORD}); "
                "`make test-all` runs them"
            )
