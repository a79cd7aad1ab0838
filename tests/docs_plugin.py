"""pytest plugin: every python and bash block of every page is a test.

Loaded with ``-p tests.docs_plugin`` (pyproject.toml). Test ids name the page
and line: ``docs/zh/getting-started/index.md::line 42``. Marks come from HTML
comments right above a fence (see CONTRIBUTING.md):

* ``<!--pytest.mark.cuda-->`` -- needs CUDA. Without a GPU the block is compiled,
  its ``torch.…`` names are checked against the installed torch, and it is
  skipped with that reason. ``REQUIRE_CUDA=1`` makes a run without CUDA stop at
  once and a run that skipped any such block fail at the end.
* ``<!--pytest.mark.skip(reason="…")-->`` -- excused, never run; the reason goes
  to the validation report.

At the end of a run over all pages the census with each block's result is
written to ``build/validation.json``; the site's "Validation report" page and
the per-page badges are rendered from it.

Twins run once: the parity test (tests/test_parity.py) holds the two languages
of a page to the same blocks, code, marks and expected outputs, so when both
pages are collected each Chinese block runs and its identical English twin is
recorded with its result (``ran_with`` in the census) instead of running the
same code a second time. ``--each-language`` runs both; a page collected without
its twin always runs its own blocks.

Runs under pytest-xdist (``-n``, see pyproject.toml): the blocks are spread over
the workers; the controller gathers every result, the collected ids and the
outputs to rewrite from the workers' reports, and alone writes the census and
the pages.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from pathlib import Path

import pytest

from tests import harness, runner

VALIDATION_JSON = harness.REPO / "build" / "validation.json"
OUTPUTS = harness.REPO / "build" / "artifacts" / "outputs"
RESULTS: dict[tuple[str, int], dict] = {}
COLLECTED: set[tuple[str, int]] = set()
PENDING_OUTPUTS: dict[tuple[str, int], str] = {}  # --update-outputs: (page, line) -> printed
UPDATED_OUTPUT = "docs_updated_output"  # user property carrying it to the controller
TWIN = "docs_twin"
REPO_GUARD = pytest.StashKey["runner.RepoGuard"]()  # user property: (page, line) of an identical block that this run stands for


def is_xdist_worker(config) -> bool:
    return hasattr(config, "workerinput")


def require_cuda() -> bool:
    return os.environ.get("REQUIRE_CUDA", "") not in ("", "0")


def any_torch() -> bool:
    """``DOCS_TORCH=any`` (make test-cuda): run with the interpreter's own torch,
    whatever its version; otherwise the installed torch must be the pinned one."""
    return os.environ.get("DOCS_TORCH", "") == "any"


def pinned_torch() -> str:
    """The torch version pyproject.toml pins (``torch==2.13.0`` → ``2.13.0``)."""
    import tomllib

    deps = tomllib.loads((harness.REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "dependencies"
    ]
    (pin,) = [d.split("==", 1)[1].strip() for d in deps if d.replace(" ", "").startswith("torch==")]
    return pin


def cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


def pytest_addoption(parser):
    group = parser.getgroup("docs", "executable docs")
    group.addoption(
        "--update-outputs",
        action="store_true",
        help="rewrite a page's expected-output fences with the output its blocks print",
    )
    group.addoption(
        "--census",
        default=str(VALIDATION_JSON),
        help="where a complete run writes the census with each block's result "
        "(default build/validation.json, which the site shows)",
    )
    group.addoption(
        "--each-language",
        action="store_true",
        help="run the English twin of every block too, even where its code, marks and "
        "expected output are identical to the Chinese block's (by default it runs once)",
    )


def pytest_configure(config):
    for name, meaning in harness.MARKS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")


def pytest_sessionstart(session):
    if not any_torch() and harness.torch_version() != pinned_torch():
        import torch

        pytest.exit(
            f"The pages are validated with the pinned torch {pinned_torch()} (pyproject.toml), "
            f"but this interpreter has torch {torch.__version__} ({harness.rel(torch.__file__)}). "
            "Run `make test` (it installs the pinned version into .venv), or `make test-cuda` "
            "to validate with this interpreter's own torch (DOCS_TORCH=any; the census records "
            "its version).",
            returncode=4,
        )
    if require_cuda() and not cuda_available():
        import torch

        pytest.exit(
            "REQUIRE_CUDA=1 but torch.cuda.is_available() is False "
            f"(torch {torch.__version__}, CUDA build: {torch.version.cuda}). This run must "
            "execute the CUDA-only blocks: run it on a machine with an NVIDIA GPU and a CUDA "
            "build of torch, or unset REQUIRE_CUDA to skip them.",
            returncode=3,
        )


def pytest_collect_file(file_path: Path, parent):
    docs = harness.REPO / "docs"
    if file_path.suffix == ".md" and any(
        file_path.is_relative_to(docs / lang) for lang in harness.LANGUAGES
    ):
        return DocsPage.from_parent(parent, path=file_path)
    return None


class DocsPage(pytest.File):
    """A Markdown page; its python and bash blocks are the items."""

    def collect(self):
        try:
            blocks = harness.page_blocks(self.path)
        except harness.DocsError as exc:
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
        problems = harness.twin_problems(self.path)
        if problems:
            raise harness.DocsError("\n".join(problems))

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, harness.DocsError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, "twin"


class DocsBlock(pytest.Item):
    """One fenced block (with its continuations), run as the reader would run it."""

    def __init__(self, *, block: harness.Block, **kwargs):
        super().__init__(**kwargs)
        self.block = block
        self.twins: list[harness.Block] = []  # identical blocks this run stands for
        COLLECTED.add((harness.rel(block.page), block.line))

    def runtest(self):
        block = self.block
        for mark in block.marks:
            if mark.name == "skip":
                raise pytest.skip.Exception(mark.kwargs["reason"], _use_item_location=True)
        if "cuda" in block.mark_names and not cuda_available():
            self._check_without_cuda()
            # reported at the page line, like a skip mark
            raise pytest.skip.Exception(
                f"{harness.MARKS['cuda']}; compiled and API-checked here",
                _use_item_location=True,
            )
        if "pinned" in block.mark_names and harness.torch_version() != pinned_torch():
            raise pytest.skip.Exception(
                f"shows the pinned torch {pinned_torch()}; this run uses torch "
                f"{harness.torch_version()} (DOCS_TORCH=any)",
                _use_item_location=True,
            )
        # Where the kernel has Landlock, a block cannot write into the repository at
        # all; elsewhere the guard notices and restores what it changed.
        guard = None if runner.landlock_abi() else self.config.stash.setdefault(REPO_GUARD, runner.RepoGuard(harness.REPO))
        if guard:
            guard.before()
        try:
            output = harness.run_block(block)
        finally:
            changed = guard.after() if guard else []
        if changed:
            raise harness.BlockFailure(
                f"{block.where}: the repository changed while this block ran; the harness put "
                f"it back. Blocks run in a temporary folder with a copy of snippets/: write "
                f"only there. Changed: {', '.join(changed)}"
                + ("" if not is_xdist_worker(self.config) else
                   " (with several pytest workers another block may have been running at the "
                   "same time: -n0 names the block for sure)")
            )
        for same in (block, *self.twins):
            save_output(same, output)
        try:
            harness.check_output(block, output)
        except harness.BlockFailure:
            if not self.config.getoption("update_outputs") or block.output_fence is None:
                raise
            # written at the end of the run, bottom-up, by the controller
            self.user_properties.append((UPDATED_OUTPUT, output))

    def _check_without_cuda(self):
        block = self.block
        if block.language == "bash":
            done = subprocess.run(["bash", "-n", "-c", block.code], capture_output=True, text=True)
            if done.returncode:
                raise harness.BlockFailure(f"{block.where}: bash syntax error\n{done.stderr}")
            return
        harness.compiled(block)
        missing = harness.unresolved_torch_attributes(block)
        if missing:
            raise harness.BlockFailure(
                f"{block.where}: CUDA-only block uses names that do not exist in torch "
                f"{__import__('torch').__version__}:\n  " + "\n  ".join(missing)
            )

    def repr_failure(self, excinfo):
        twins = "".join(
            f"\n(this run also stands for its identical twin {t.where}; --each-language runs it separately)"
            for t in self.twins
        )
        if isinstance(excinfo.value, (harness.BlockFailure, harness.DocsError)):
            return str(excinfo.value) + twins
        return str(super().repr_failure(excinfo)) + twins

    def reportinfo(self):
        return self.path, self.block.line - 1, f"line {self.block.line}"


def signature(block: harness.Block):
    """What makes two blocks the same test: code, language, marks, expected output."""
    marks = sorted((m.name, repr(m.args), repr(sorted(m.kwargs.items()))) for m in block.marks)
    variants = [(spec, text) for spec, text, _ in block.variants]
    return block.language, block.code, marks, block.expected_output, block.ignore_whitespace, variants


def identical_twins(blocks: dict[str, list]) -> list[tuple]:
    """(runs, twin) pairs: the blocks of a non-default-language page that are
    identical, one by one and all of them, to those of its default-language twin.
    ``blocks`` maps ``docs/<lang>/<path>`` to that page's blocks (or anything with
    a ``.block``), in page order."""
    def block(b):
        return getattr(b, "block", b)

    default = harness.LANGUAGES[0]
    pairs = []
    for page, own in blocks.items():
        lang, _, rest = page.removeprefix("docs/").partition("/")
        if lang == default:
            continue
        runs = blocks.get(f"docs/{default}/{rest}", [])
        if len(runs) == len(own) and all(
            signature(block(a)) == signature(block(b)) for a, b in zip(runs, own, strict=True)
        ):
            pairs += zip(runs, own, strict=True)
        # otherwise both run (and the parity test says where they differ)
    return pairs


def pytest_collection_modifyitems(session, config, items):
    """Run a block once for both languages when its twin is identical (see above)."""
    if config.getoption("each_language"):
        return
    pages: dict[str, list[DocsBlock]] = {}
    for item in items:
        if isinstance(item, DocsBlock):
            pages.setdefault(harness.rel(item.block.page), []).append(item)
    twins_run = set()
    for runs, twin in identical_twins(pages):
        runs.twins.append(twin.block)
        runs.user_properties.append((TWIN, (harness.rel(twin.block.page), twin.block.line)))
        twins_run.add(twin)
    if twins_run:
        config.hook.pytest_deselected(items=[i for i in items if i in twins_run])
        items[:] = [i for i in items if i not in twins_run]


def save_output(block: harness.Block, output: str) -> None:
    """Keep what a block printed: the GPU workflow uploads these (e.g. bandwidths)."""
    path = OUTPUTS / output_name(harness.rel(block.page), block.line)
    if not output:
        path.unlink(missing_ok=True)
        return
    OUTPUTS.mkdir(parents=True, exist_ok=True)
    path.write_text(output, encoding="utf-8")


def output_name(page: str, line: int) -> str:
    return f"{page.replace('/', '__')}__{line}.txt"


def drop_stale_outputs() -> None:
    """After a complete run: outputs of blocks that no longer exist go."""
    if not OUTPUTS.is_dir():
        return
    keep = {output_name(page, line) for page, line in runnable_keys()}
    for path in OUTPUTS.glob("*.txt"):
        if path.name not in keep:
            path.unlink()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """Controller under xdist: the items were collected in the workers."""
    COLLECTED.update(key for key in map(_key, ids) if key is not None)


SITE_BUILT: list[bool] = []  # the site (and with it every notebook) was built in this run


def pytest_runtest_logreport(report):
    if report.nodeid.startswith("tests/test_site.py") and report.when == "call" and report.passed:
        SITE_BUILT[:] = [True]
    key = _key(report.nodeid)
    if key is None:
        return
    twins = [tuple(value) for name, value in report.user_properties if name == TWIN]
    if report.when == "call":
        for name, value in report.user_properties:
            if name == UPDATED_OUTPUT:
                for where in (key, *twins):
                    PENDING_OUTPUTS[where] = value
    entry = RESULTS.setdefault(key, {"status": "passed", "seconds": 0.0})
    entry["seconds"] = round(entry["seconds"] + report.duration, 3)
    if report.failed:
        entry["status"] = "failed"
    elif report.skipped:
        entry["status"] = "skipped"
        # (path, line, reason); a list once it has crossed from an xdist worker
        reason = report.longrepr[2] if isinstance(report.longrepr, (tuple, list)) else ""
        entry["skip_reason"] = reason.removeprefix("Skipped: ")
    for twin in twins:
        COLLECTED.add(twin)
        RESULTS[twin] = dict(entry, seconds=0.0, ran_with=f"{key[0]}:{key[1]}")


def _key(nodeid: str):
    page, sep, name = nodeid.partition("::line ")
    if not sep or not name.isdigit() or not page.startswith("docs/"):
        return None
    return page, int(name)


def machine() -> dict:
    import torch

    info = {
        "torch": torch.__version__,
        "python": platform.python_version(),
        "accelerator": "cuda" if torch.cuda.is_available() else "cpu",
        # "pinned": the torch of pyproject.toml (make test); "any": the interpreter's own (make test-cuda)
        "torch_mode": "any" if any_torch() else "pinned",
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
    }
    if torch.cuda.is_available():
        info["cuda"] = torch.version.cuda
        info["gpus"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    return info


def block_sha(block: harness.Block) -> str:
    """What a result is valid for: the code after includes, its marks and outputs.
    A census from another run (the GPU workflow's) counts for a block only while
    this matches."""
    import hashlib

    return hashlib.sha256(repr(signature(block)).encode("utf-8")).hexdigest()[:16]


def validation_data() -> dict:
    """Census of every fence of every page and notebook, with this run's results."""
    info = machine()
    fences = []
    for page in harness.pages():
        try:
            shas = {b.line: block_sha(b) for b in harness.page_blocks(page)}
        except harness.DocsError:
            shas = {}  # the census test reports it
        for entry in harness.census(page):
            row = entry.as_dict()
            if entry.line in shas:
                row["sha"] = shas[entry.line]
            result = RESULTS.get((row["page"], row["line"]))
            if result:
                row.update(result)
                ran = result["status"] in ("passed", "failed")
                row["executed_on"] = info["accelerator"] if ran else None
            fences.append(row)
    for nb in harness.notebooks():
        for n, _ in enumerate(harness.notebook_code_cells(nb), 1):
            fences.append(
                {
                    "page": harness.rel(nb),
                    "line": n,
                    "language": "python",
                    "kind": "notebook",
                    "reason": "code cell executed by mkdocs-jupyter during the site build",
                    # only a run that built the site executed the notebooks
                    "executed_on": info["accelerator"] if SITE_BUILT else None,
                    "status": "build" if SITE_BUILT else "not run",
                }
            )
    return {
        "generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": info,
        "fences": fences,
    }


def runnable_keys() -> set[tuple[str, int]]:
    return {
        (e.page, e.line)
        for page in harness.pages()
        for e in harness.census(page)
        if e.kind in ("python", "bash", "cuda", "excused") and e.language in harness.EXECUTED
    }


def write_validation_json(path: Path = VALIDATION_JSON) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(validation_data(), ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def complete_run() -> bool:
    """Did this run collect every runnable block of every page?"""
    return bool(COLLECTED) and runnable_keys() <= COLLECTED


def write_pending_outputs(reporter) -> None:
    """--update-outputs: rewrite each page from the bottom up, so that a longer or
    shorter output does not shift the fences still to be written."""
    for page in sorted({page for page, _ in PENDING_OUTPUTS}):
        blocks = {b.line: b for b in harness.page_blocks(harness.REPO / page)}
        for line in sorted((line for p, line in PENDING_OUTPUTS if p == page), reverse=True):
            block = blocks[line]
            harness.write_output(block, PENDING_OUTPUTS[page, line])
            if reporter:
                reporter.write_line(f"updated the expected output at {page}:{block.output_fence.line}")


def pytest_sessionfinish(session, exitstatus):
    if is_xdist_worker(session.config):
        return  # the controller has every worker's results: it writes
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    write_pending_outputs(reporter)
    if complete_run():
        drop_stale_outputs()
        try:
            path = write_validation_json(Path(session.config.getoption("census")))
            if reporter:
                reporter.write_line(f"census with results written to {harness.rel(path)}")
        except harness.DocsError:
            pass  # the census test reports it
    if require_cuda():
        skipped = sorted(
            f"{page}:{line}"
            for (page, line), r in RESULTS.items()
            if r["status"] == "skipped" and r.get("skip_reason", "").startswith(harness.MARKS["cuda"])
        )
        if skipped:
            if reporter:
                reporter.write_sep("=", "REQUIRE_CUDA=1: CUDA-only blocks were skipped", red=True)
                for where in skipped:
                    reporter.write_line(f"  {where}")
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if is_xdist_worker(config):
        return
    shared = sum(1 for r in RESULTS.values() if "ran_with" in r)
    if shared:
        terminalreporter.write_line(
            f"{shared} English blocks are identical to their Chinese twins (code, marks, "
            "expected output) and count with the twin's run; --each-language runs them too"
        )
