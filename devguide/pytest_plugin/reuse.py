"""The tests outside docs/ that need not run again (``--reuse-unchanged``).

A block is reused when its own code, outputs and environment are unchanged
(``census.reuse_key``). The other tests -- the harness's (tests/unit), the pages'
(tests/content) and the built site's (tests/site: the strict build, Chromium,
axe, search, the offline copy, the downloads) -- read the whole repository, so
what they see is recorded in parts (``repo_parts``): every file git sees (tracked,
or untracked and not ignored) by its hash; torch, the installed packages, the
environment variables and the harness (``census.environment_fingerprint``) with
Chromium; and the results the site shows (the censuses in build/). A run in which
every one of them passed, with nothing deselected, records those parts and their
ids in pytest's cache (``.pytest_cache``, key ``devguide/tests-passed``); the next
``make test`` compares:

* nothing changed: they are reported passed without running them or their
  fixtures (so the site is not built again);
* only pages changed (``docs/<lang>/….md`` or a notebook page's ``.py``, none
  added or removed; the censuses and their committed summary may differ, the pages'
  blocks wrote them), or only the censuses: a **page edit** (``page_edit``). The harness, the packages and the
  site's scripts are as they were: the site is built and every test runs, except
  one that names pages and none of the edited ones -- by a parameter
  (``docs/en/x.md``), or, in tests/unit (the harness's tests, on pages of their
  own or real pages they name) and in a test marked ``named_pages``, in its code
  or the module constants it reads (a test there that names no page stands on its
  pass); the
  real-material search benchmark scores again the questions and messages the
  edited pages answer or ranked in the top three (tests/site/test_search.py);
* anything else changed: they all run.

``make test-all`` and CI (no ``--reuse-unchanged``) always run everything, and so
does a run without pytest's cache (``-p no:cacheprovider``). A run in which one of
them failed empties the record.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import re
import subprocess
import types
from typing import Literal

import pytest
from _pytest.reports import TestReport

from devguide import paths
from devguide.census import file as census
from devguide.census import summary
from devguide.dev.browser import chromium_identity

RECORD = "devguide/tests-passed"  # the key in pytest's cache
REUSED = "docs_tier_reused"  # user property of a test reported passed without running
NAMED_PAGES = "named_pages"  # the marker (registered by the plugin)
NAMED_PAGES_MEANING = (
    "checks the site's scripts, styles or hooks on the pages it names (in its parameters, its code or the "
    "module constants it reads): after an edit of other pages only, make test stands on its last pass")
# a page source: docs/<lang>/<path>.md, or a notebook page's jupytext .py
PAGE_FILE = re.compile(rf"docs/(?:{'|'.join(paths.LANGUAGES)})/(?P<stem>[\w./-]+?)\.(?:md|py)\b")


def repo_parts() -> dict | None:
    """Everything the tests outside docs/ can see, in three parts; None where git cannot list the files."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=paths.REPO,
                                capture_output=True, check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    files = {}
    for name in sorted(n for n in listed.split(b"\0") if n):
        path = paths.REPO / os.fsdecode(name)
        if path.is_file() and not path.is_symlink():
            files[os.fsdecode(name)] = hashlib.sha256(path.read_bytes()).hexdigest()
    # what the site shows besides the repository: the censuses of earlier runs (their
    # results, not their times) and a GPU run's artifact
    results = hashlib.sha256()
    for path in sorted(paths.BUILD.glob("validation*.json")) + sorted((paths.BUILD / "gpu").rglob("*")):
        if path.is_file():
            results.update(path.name.encode() + b"\0" + _results_of(path))
    environment = f"{census.environment_fingerprint(())} {chromium_identity()}"
    return {"environment": environment, "files": files, "results": results.hexdigest()}


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


def page_edit(before: dict, now: dict) -> frozenset[str] | None:
    """The stems (``devices/moving``, ``index``) of the pages edited between two
    records' parts, where nothing but pages (and the censuses) changed; None otherwise."""
    if before.get("environment") != now["environment"] or not isinstance(before.get("files"), dict):
        return None
    recorded_summary = summary.PATH.relative_to(paths.REPO).as_posix()  # the censuses' summary that a green run writes
    old, new = ({k: v for k, v in files.items() if k != recorded_summary} for files in (before["files"], now["files"]))
    if old.keys() != new.keys():
        return None  # a file added or removed (a new page changes the navigation of every page)
    stems = set()
    for name in (n for n in new if new[n] != old[n]):
        match = PAGE_FILE.fullmatch(name)
        if not match:
            return None
        stems.add(match["stem"])
    return frozenset(stems)


def page_address(stem: str) -> str:
    """A page's address under its language's root: ``devices/moving/``; an index
    page's is its folder's (``reference/errors/``), the home page's is empty."""
    folder = stem.removesuffix("index")
    return folder if folder != stem else stem + "/"


def page_pattern(stems) -> re.Pattern | None:
    """Where a test's id, code or constants name one of these pages: its source
    (``docs/zh/devices/moving.md``, ``devices/moving.md``) or address (``devices/moving/``,
    ``/en/devices/moving/#anchor``), or its last part as a folder or file (``moving/``,
    ``cuda-runtime/``: more tests run, never fewer); an index page also by its folder's
    address and the home page by ``/`` or ``/en/`` alone."""
    forms = []
    for stem in sorted(stems):
        folder = stem.removesuffix("index").rstrip("/")
        if stem == "index":
            forms.append(r"(?<![\w.-])/(?:en/)?(?=['\"#\]-])")
        elif folder != stem:  # <folder>/index
            forms.append(rf"(?<![\w.-]){re.escape(folder)}(?:/index\b|/?(?![\w./-]))")
        else:  # its whole path, or its last part as tests name error pages ("cuda-runtime/")
            last = stem.rsplit("/", 1)[-1]
            forms.append(rf"(?<![\w.-]){re.escape(stem)}(?![\w-])|(?<![\w.-]){re.escape(last)}(?=/|\.md\b)")
    return re.compile("|".join(forms)) if forms else None


def _named_in_parameters(nodeid: str) -> set[str] | None:
    """The pages a test id's parameters name by their source path, or None where they name none."""
    _, _, params = nodeid.partition("[")
    stems = {m["stem"] for m in PAGE_FILE.finditer(params)}
    return stems or None


@functools.cache
def _code_and_constants(function) -> str:
    """A test function's source and the values of the module constants it reads."""
    try:
        text = inspect.getsource(function)
    except (OSError, TypeError):
        return ""
    names, codes = set(), [function.__code__]
    while codes:  # the names its comprehensions and lambdas read too
        code = codes.pop()
        names.update(code.co_names)
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    for name in sorted(names):
        value = function.__globals__.get(name)
        if isinstance(value, (str, list, tuple, dict, set, frozenset)):
            text += "\n" + repr(value)
    return text


def edit_affects(item, stems: frozenset[str]) -> bool:
    """After an edit of these pages only: does this test outside docs/ run again?"""
    named = _named_in_parameters(item.nodeid)
    if named is not None:
        return bool(named & stems)
    # the harness's own tests check it on pages of their own, or on the real pages they name
    if not item.nodeid.startswith("tests/unit/") and item.get_closest_marker(NAMED_PAGES) is None:
        return True
    pattern = page_pattern(stems)
    if pattern is None:
        return False
    function = getattr(item, "function", None)
    return bool(pattern.search(item.nodeid) or (function and pattern.search(_code_and_constants(function))))


def _whole_selection(config_) -> bool:
    """All the tests, as make test runs them: no paths, -k, -m, --deselect or --lf."""
    option = config_.option
    return (not config_.args or list(config_.args) == list(config_.getini("testpaths"))) and not (
        getattr(option, "keyword", "") or getattr(option, "markexpr", "") or getattr(option, "deselect", None)
        or getattr(option, "lf", False) or getattr(option, "failedfirst", False)
    )


def _outside_docs(nodeid: str) -> bool:
    return not nodeid.startswith("docs/")


def tier_reuse(config_) -> TierReuse | None:
    return config_.pluginmanager.get_plugin("devguide-tier-reuse")


def edited_pages(config_) -> frozenset[str] | None:
    """The stems of the pages edited since the recorded pass, in a page-edit run; None in any other run."""
    plugin = tier_reuse(config_)
    return plugin.edited if plugin else None


def will_run(item) -> bool:
    """Will this test run in this session (not reported passed from the record)?"""
    plugin = tier_reuse(item.config)
    return plugin is None or not plugin.reuses(item)


class TierReuse:
    """Registered by the pytest plugin; active in every process, each doing its part."""

    def __init__(self, config_):
        self.config = config_
        self.cache = getattr(config_, "cache", None)  # None with -p no:cacheprovider: nothing reused or recorded
        self.reuse = bool(config_.getoption("reuse_unchanged")) and not config_.getoption("update_outputs")
        self.parts: dict | None = None
        self.recorded: set[str] = set()
        self.edited: frozenset[str] | None = None  # a page edit: the stems of the edited pages
        self.passed: set[str] = set()
        self.failed = False
        self.reused = 0

    def pytest_sessionstart(self, session):
        if self.cache is None or not (self.reuse or _whole_selection(self.config)):
            return  # a run of some paths (one page pair) neither reuses nor records: no key
        self.parts = repo_parts()
        record = self.cache.get(RECORD, None) if self.reuse else None
        if self.parts is None or not isinstance(record, dict) or not isinstance(record.get("parts"), dict) \
                or not _whole_selection(self.config):
            return
        before = record["parts"]
        if before == self.parts:
            self.recorded = set(record.get("passed", []))
            return
        edited = page_edit(before, self.parts)
        if edited is not None:
            self.recorded, self.edited = set(record.get("passed", [])), edited

    def reuses(self, item) -> bool:
        if item.nodeid not in self.recorded or not _outside_docs(item.nodeid):
            return False
        return self.edited is None or not edit_affects(item, self.edited)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        if not self.reuses(item):
            return None
        hook = item.ihook
        hook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        for when in ("setup", "call", "teardown"):
            props = [(REUSED, True)] if when == "call" else []
            outcome: Literal["passed", "failed"] = "passed"
            longrepr = None
            if when == "teardown":
                # what a test that ran before set up (its module's fixtures) and the next one
                # does not need is finished here, as after a test that runs
                try:
                    item.session._setupstate.teardown_exact(nextitem)
                except Exception as exc:  # noqa: BLE001 - reported as that teardown's failure
                    outcome, longrepr = "failed", f"tearing down after {item.nodeid}: {type(exc).__name__}: {exc}"
            report = TestReport(item.nodeid, item.location, {}, outcome, longrepr, when, user_properties=props)
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
        if self.parts and _whole_selection(self.config) and self.passed:
            self.cache.set(RECORD, {"parts": self.parts, "passed": sorted(self.passed)})

    def pytest_terminal_summary(self, terminalreporter):
        if not self.reused or hasattr(self.config, "workerinput"):
            return
        if self.edited is None:
            why = "nothing changed (files, packages, environment, Chromium, results) since they all passed"
        else:
            pages = ", ".join(sorted(self.edited)) or "none (the censuses only)"
            why = (f"only pages changed since they all passed (edited: {pages}), and these tests name none of them "
                   "(tests/unit, the named_pages tests, tests with a page parameter)")
        terminalreporter.write_line(
            f"{self.reused} tests outside docs/ were not run again: {why} (pytest's cache: {RECORD}); "
            "`make test-all` runs them")
