"""The pytest items: each Markdown page is a file, its python and bash blocks are
items (``DocsBlock``), and its ``twin`` item checks the page's other language.

Test ids name the page and line: ``docs/zh/getting-started/index.md::line 42``.
A block is run as the reader would run it (``devguide.run.zygote_client``), skipped at its
page line when its mark says so, or -- where its device is missing -- compiled
and API-checked (``devguide.pytest_plugin.apicheck``) and skipped; with ``--reuse-unchanged``
an earlier passed result of the very same block stands instead. Identical twins
run once (``run_twins_once``): the default language's block stands for its twin.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from devguide import paths
from devguide.census import file as census
from devguide.paths import LANGUAGES, REPO, DocsError, rel
from devguide.pytest_plugin.apicheck import unresolved_torch_attributes
from devguide.pytest_plugin.state import (
    CPU_SECONDS,
    REUSE_KEY,
    REUSED,
    TWIN,
    UPDATED_OUTPUT,
    RunState,
    is_xdist_worker,
    state,
)
from devguide.run import sandbox, zygote_client
from devguide.source.blocks import Block, page_blocks
from devguide.source.marks import DEVICE_MARKS, MARKS
from devguide.source.parity import pair_name, twin_problems

DEVICE_NAMES = {"cuda": "CUDA", "mps": "MPS", "xpu": "XPU"}
SHOWN_OUTPUT = "block output"  # the report section --show-output fills


class DocsPage(pytest.File):
    """A Markdown page; its python and bash blocks are the items, plus its twin check."""

    def collect(self):
        try:
            blocks = page_blocks(self.path)
        except DocsError as exc:
            # the page fails, at its page line; every other page is collected and runs
            # (a collection error would interrupt the whole session)
            yield PageProblem.from_parent(self, name="page", error=exc)
            return
        for block in blocks:
            item = DocsBlock.from_parent(self, name=f"line {block.line}", block=block)
            for mark in block.marks:
                if mark.name != "skip":  # an excused block is skipped in runtest, at its page line
                    item.add_marker(mark)
            yield item
        yield TwinCheck.from_parent(self, name="twin")


class PageProblem(pytest.Item):
    """A page whose fences cannot be read (a fence never closed, a dangling marker…):
    it fails with the page line of each problem, and its blocks are not run."""

    def __init__(self, *, error: DocsError, **kwargs):
        super().__init__(**kwargs)
        self.error = error

    def runtest(self):
        raise self.error

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, DocsError):
            return f"{excinfo.value}\n\n(the page's blocks are not run until it can be read)"
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, (self.error.line or 1) - 1, "page"


class TwinCheck(pytest.Item):
    """Running one page checks its twin too: it exists, with the same code and anchors."""

    def runtest(self):
        problems = twin_problems(self.path)
        if problems:
            raise DocsError(rel(self.path), None, "\n".join(problems), problems)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, DocsError):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

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
            if kind in block.mark_names and not paths.device_available(kind):
                self._check_without_device(kind)
                # reported at the page line, like a skip mark
                raise pytest.skip.Exception(
                    f"{MARKS[kind]}; compiled and API-checked here", _use_item_location=True
                )
        if "pinned" in block.mark_names and paths.torch_version() != paths.pinned_torch():
            raise pytest.skip.Exception(
                f"shows the pinned torch {paths.pinned_torch()}; this run uses torch "
                f"{paths.torch_version()} (DOCS_TORCH={'any' if not paths.named_torch() else paths.named_torch()})",
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
        # Where the kernel has Landlock, a block cannot write the repository's contents,
        # but it can change their metadata (mode, times, extended attributes, chattr
        # flags: issue 39, H14); the guard notices and restores what it changed (there
        # only metadata: an edit of a page while the run goes on is the author's).
        if run.guard is None:
            run.guard = sandbox.RepoGuard(REPO, contents=not sandbox.landlock_abi())
        guard = run.guard
        if guard:
            guard.before()
        try:
            stats: dict = {}
            output = zygote_client.run_block(block, stats=stats)
            if stats.get("cpu_seconds") is not None:
                self.user_properties.append((CPU_SECONDS, stats["cpu_seconds"]))
        finally:
            changed = guard.after() if guard else []
        if changed:
            raise zygote_client.BlockFailure(
                f"{block.where}: the repository changed while this block ran (contents, or metadata: "
                f"mode, times, extended attributes, chattr flags); the harness put it back. Blocks run "
                f"in a temporary folder with a copy of snippets/: write and change files only there. "
                f"Changed: {', '.join(changed)}"
                + ("" if not is_xdist_worker(self.config) else
                   " (with several pytest workers another block may have been running at the "
                   "same time: -n0 names the block for sure)")
            )
        for same in (block, *self.twins):
            census.save_output(same, output)
        try:
            zygote_client.check_output(block, output)
        except zygote_client.BlockFailure:
            if not self.config.getoption("update_outputs") or block.output_fence is None:
                raise
            # written at the end of the run, bottom-up, by the controller
            self.user_properties.append((UPDATED_OUTPUT, output))
        self._show(output)
        return output

    def _show(self, output: str) -> None:
        """--show-output: what the block printed, for the end of the run
        (``devguide.pytest_plugin.terminal.show_outputs``; a report section travels
        from an xdist worker to the controller)."""
        if self.config.getoption("show_output"):
            # (pytest drops an empty section: a block that printed nothing says so)
            self.add_report_section("call", SHOWN_OUTPUT, output or "(printed nothing)")

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
        kept = paths.outputs_dir() / census.output_name(earlier["page"], earlier["line"])
        output = kept.read_text(encoding="utf-8") if kept.exists() else ""
        if census.output_sha(output) != earlier["output_sha"]:
            return False
        for same in (self.block, *self.twins):
            census.save_output(same, output)
        self._show(output)
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
                raise zygote_client.BlockFailure(f"{block.where}: bash syntax error\n{done.stderr}")
            return
        zygote_client.compiled(block)
        missing = unresolved_torch_attributes(block)
        if missing:
            raise zygote_client.BlockFailure(
                f"{block.where}: {DEVICE_NAMES[kind]}-only block uses names that do not exist in torch "
                f"{__import__('torch').__version__}:\n  " + "\n  ".join(missing)
            )

    def repr_failure(self, excinfo, style=None):
        twins = "".join(
            f"\n(this run also stands for its identical twin {t.where}; --each-language runs it separately)"
            for t in self.twins
        )
        if isinstance(excinfo.value, (zygote_client.BlockFailure, DocsError)):
            return zygote_client.printable(str(excinfo.value) + twins)
        return zygote_client.printable(str(super().repr_failure(excinfo, style)) + twins)

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
    pairs: list = []
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


def run_twins_once(config_, items) -> None:
    """Run a block once for both languages when its twin is identical: the twin is
    deselected, and the block it is identical to stands for it."""
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
        config_.hook.pytest_deselected(items=[i for i in items if i in twins_run])
        items[:] = [i for i in items if i not in twins_run]


def one_twin_check_per_pair(config_, items) -> None:
    """One message per page pair: where both pages of a pair are collected, the default
    language's ``twin`` item checks the pair and the other's is deselected; so is a test
    marked ``twin_check(name)`` (tests/content/test_parity.py) for a pair whose ``twin``
    item runs. Without this, one wrong character was reported three times."""
    checks: dict[str, list[TwinCheck]] = {}
    for item in items:
        if isinstance(item, TwinCheck) and (name := pair_name(item.path)):
            checks.setdefault(name, []).append(item)
    dropped = []
    for found in checks.values():
        found.sort(key=lambda i: LANGUAGES.index(rel(i.path).split("/")[1]) if rel(i.path).count("/") > 1 else 0)
        dropped += found[1:]
    for item in items:
        mark = item.get_closest_marker("twin_check")
        if mark and not isinstance(item, TwinCheck) and mark.args and mark.args[0] in checks:
            dropped.append(item)
    if dropped:
        gone = set(map(id, dropped))
        config_.hook.pytest_deselected(items=dropped)
        items[:] = [i for i in items if id(i) not in gone]
