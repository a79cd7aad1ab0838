"""Scheduling under pytest-xdist: the order of the items and the units of work.

Each block and test is its own unit of work, except the site tier (three units,
handed out first) and the timing pages (one unit each, ``TOGETHER_PAGES``); the
blocks are handed out longest first, by the time they took in the last run.
"""

from __future__ import annotations

from devguide.census import file as census
from devguide.paths import LANGUAGES, rel
from devguide.pytest_plugin.page_items import DocsBlock
from devguide.pytest_plugin.state import is_xdist_worker

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


def order_items(config_, items) -> None:
    """The harness's own tests before the blocks (the blocks' order is set below), so
    that a slow one-test module is not what a worker runs while the other has
    finished; the offline copy is built in the background after the site: its
    tests go last, so that the others run while it builds instead of waiting for it."""
    items.sort(key=lambda i: (i.nodeid.startswith(OFFLINE_TESTS), not i.nodeid.startswith("tests/")))
    if is_xdist_worker(config_):  # the order the workers collect is the order of the work
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


def make_scheduler(config, log):
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

        def remove_node(self, node):
            """A worker that died (killed by a block, or by the out-of-memory killer)
            or finished. LoadScopeScheduling put the whole unit back, the item it died
            in included (to kill the next worker the same way), and a replacement
            worker was then never given work: the run hung. Here the item it died in
            is done (xdist reports it failed: ``crash_report``); the rest of its unit
            goes back to the queue, for the other workers and the replacement."""
            workload = self.assigned_work.pop(node)
            pending = [(scope, nodeid) for scope, unit in workload.items() for nodeid, done in unit.items() if not done]
            if not pending:
                return None
            scope, crashitem = pending[0]
            workload[scope][crashitem] = True
            for scope, unit in workload.items():
                if not all(unit.values()):
                    self.workqueue[scope] = {nodeid: done for nodeid, done in unit.items() if not done}
            for other in self.assigned_work:
                self._reschedule(other)
            return crashitem

        def add_node_collection(self, node, collection):
            """A replacement worker's collection: the same items, maybe in another
            order (the work is sent by each worker's own indices), is accepted."""
            if self.collection_is_completed and self.collection is not None and sorted(collection) == sorted(self.collection):
                self.registered_collections[node] = list(collection)
                return
            super().add_node_collection(node, collection)

    return SiteTogether(config, log)


def crash_report(crashitem: str, report) -> None:
    """The failure of the item a pytest worker died in, named by its page line and
    saying what to do (xdist's own: "worker 'gw0' crashed while running …")."""
    page, _, name = crashitem.partition("::")
    where = f"{page}:{name.removeprefix('line ')}" if name.startswith("line ") else crashitem
    report.longrepr = (
        f"{where}: the pytest worker running this block died ({report.longrepr}): the block killed "
        "it, or the out-of-memory killer did. The run goes on without it. A block must not signal "
        "its parent processes; if it needs much memory, make it smaller, or run the page alone to "
        f"see: .venv/bin/python -m pytest -n0 {page}"
    )

