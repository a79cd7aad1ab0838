"""``--cpu-seconds FILE``: the CPU time of a run, by family of checks (``make bench``).

Each pytest process (xdist's controller and every worker) measures its own
process tree around each test: its own CPU time, what it has reaped from its
children (``RUSAGE_CHILDREN``), and the CPU time of every live descendant with
what each has reaped from its own (the block runner and its forks, Chromium,
a notebook kernel, a background build). A test's share is the difference
before and after it; what falls between tests (collection, start and end) is
counted apart. A descendant that leaves the tree without being reaped (a
daemon adopted by init) takes its time with it: the numbers are a floor.

Under pytest-xdist the controller counts only itself (its descendants are the
workers, each counting its own tree); workers write their part beside FILE; the
controller (or the only process) adds its own and writes FILE:
``{"wall": s, "processes": n, "families": {family: s}, "total": s, "slowest": {test: s}}``
(the ``SLOWEST`` tests that took the most, a module's first test with its module's fixtures).
Off unless asked for: reading the process tree around every test costs time of its own.
"""

from __future__ import annotations

import json
import resource
import time
from collections import defaultdict
from pathlib import Path

import psutil
import pytest

OUTSIDE_TESTS = "between tests (collection, start, end)"
SLOWEST = 25


def family(nodeid: str) -> str:
    """The family a test belongs to: the blocks, the twin checks, tests/unit,
    tests/content, or the module of a site test."""
    path, _, name = nodeid.partition("::")
    if path.startswith("docs/"):
        return "blocks (docs/)" if name.startswith("line ") else "twin checks (docs/)"
    parts = path.split("/")
    if parts[:2] == ["tests", "site"]:
        return "tests/site/" + parts[-1].removesuffix(".py")
    return "/".join(parts[:2]) if len(parts) > 2 else path


def tree_cpu(process: psutil.Process, own_only: bool = False) -> float:
    """CPU seconds of this process, its reaped children and its live descendants (with
    theirs); with ``own_only``, of this process alone."""
    own, reaped = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    total = own.ru_utime + own.ru_stime
    if own_only:
        return total
    total += reaped.ru_utime + reaped.ru_stime
    for child in process.children(recursive=True):
        try:
            t = child.cpu_times()
        except psutil.Error:
            continue  # ended meanwhile: its parent's count has it once reaped
        total += t.user + t.system + t.children_user + t.children_system
    return total


class CpuSeconds:
    """Registered by the pytest plugin when ``--cpu-seconds`` is given."""

    def __init__(self, config_, path: Path):
        self.config, self.path = config_, path
        self.process = psutil.Process()
        self.worker = getattr(config_, "workerinput", {}).get("workerid", "")
        self.families: dict[str, float] = defaultdict(float)
        self.tests: dict[str, float] = {}
        self.own_only = False
        self.start = tree_cpu(self.process)
        self.started = time.monotonic()

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session):
        # xdist's controller (its plugin is registered by now): its descendants are the
        # workers, which count their own trees
        if self.config.pluginmanager.hasplugin("dsession"):
            self.own_only = True
            self.start = tree_cpu(self.process, own_only=True)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        before = tree_cpu(self.process, self.own_only)
        yield
        spent = tree_cpu(self.process, self.own_only) - before
        self.families[family(item.nodeid)] += spent
        self.tests[item.nodeid] = spent

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session):
        total = tree_cpu(self.process, self.own_only) - self.start
        families = dict(self.families)
        families[OUTSIDE_TESTS] = families.get(OUTSIDE_TESTS, 0.0) + total - sum(self.families.values())
        if self.worker:
            part = self.path.with_name(f"{self.path.name}.{self.worker}")
            part.write_text(json.dumps({"families": families, "tests": slowest(self.tests)}), encoding="utf-8")
            return
        merged: dict[str, float] = defaultdict(float)
        tests = dict(self.tests)
        processes = 1
        for part in sorted(self.path.parent.glob(f"{self.path.name}.gw*")):
            processes += 1
            data = json.loads(part.read_text(encoding="utf-8"))
            for name, seconds in data["families"].items():
                merged[name] += seconds
            tests |= data["tests"]
            part.unlink()
        for name, seconds in families.items():
            merged[name] += seconds
        self.path.write_text(json.dumps({
            "wall": round(time.monotonic() - self.started, 1), "processes": processes,
            "families": {k: round(v, 1) for k, v in sorted(merged.items(), key=lambda kv: -kv[1])},
            "total": round(sum(merged.values()), 1),
            "slowest": {k: round(v, 1) for k, v in slowest(tests).items()},
        }, indent=1) + "\n", encoding="utf-8")


def slowest(tests: dict[str, float]) -> dict[str, float]:
    return dict(sorted(tests.items(), key=lambda kv: -kv[1])[:SLOWEST])


def register(config_) -> None:
    path = config_.getoption("cpu_seconds")
    if path:
        path = Path(path).resolve()
        path.parent.mkdir(parents=True, exist_ok=True)
        if not hasattr(config_, "workerinput"):
            for stale in path.parent.glob(f"{path.name}.gw*"):
                stale.unlink()
        config_.pluginmanager.register(CpuSeconds(config_, path), "devguide-cpu-seconds")


