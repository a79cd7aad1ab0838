"""The executable-docs harness: find, check and run the code on every page.

Extraction is pytest-codeblocks' (``extract_from_buffer``); ``--8<--`` includes
are expanded by pymdownx.snippets' own preprocessor. What this module adds:

* ``scan_fences`` / ``census`` -- every fence on a page, including the ones
  pytest-codeblocks would silently ignore, classified as run / CUDA-only /
  excused / output / display, or reported as a problem;
* ``page_blocks`` -- the blocks to run, each with a map from its code lines back
  to the page (or snippet) line they came from, so failures name that line;
* ``run_python`` / ``run_bash`` -- execution with ``__name__ == "__main__"``,
  a private working directory and deprecation warnings as errors;
* ``reset_global_state`` -- default dtype/device, grad mode, seeds, … between
  blocks, so order never changes a result;
* ``unresolved_torch_attributes`` -- the API check of CUDA-only blocks on CPU.
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import importlib
import io
import linecache
import os
import random
import re
import subprocess
import sys
import tempfile
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import markdown
import pytest
from pytest_codeblocks.main import CodeBlock, extract_from_buffer

REPO = Path(__file__).resolve().parent.parent
LANGUAGES = ("zh", "en")
# Fence languages the harness executes.
EXECUTED = {"python", "bash"}
# Fence languages that show something and are never run (program output, config).
DISPLAY = {"text", "json", "yaml", "toml", "ini", "diff", "html", "markdown"}
# Marks allowed in an HTML comment right before a fence.
MARKS = {
    "cuda": "needs a CUDA device: runs in the GPU workflow (REQUIRE_CUDA=1)",
    "skip": "excused: never run; the reason is shown in the validation report",
    "pinned": "shows the pinned torch version (pyproject.toml): checked in the pinned run "
    "(make test); a run with another torch (make test-cuda) skips it",
}
# An expected output for other torch versions, below the block's usual one:
#   <!--docs:expected-output torch==2.11.*-->
VARIANT = re.compile(r"^\s*docs:expected-output\b(?P<rest>.*)$")
SNIPPET_LINE = re.compile(r"^\s*-{1,}8<-{1,}\s")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,}|~{3,})(?P<info>.*)$")
COMMENT = re.compile(r"^\s*<!--(?P<body>.*)-->\s*$")
BLOCK_TIMEOUT = 600


class DocsError(Exception):
    """A problem in a page, reported as ``path:line: message``."""


def rel(path: Path) -> str:
    path = Path(path).resolve()
    try:
        return path.relative_to(REPO).as_posix()
    except ValueError:
        return path.as_posix()


# --------------------------------------------------------------------------- fences


@dataclass
class Fence:
    """One fenced block as it stands in the page source."""

    page: Path
    line: int  # 1-based line of the opening fence
    end: int  # line of the closing fence
    ticks: str
    info: str
    comments: list[str]  # bodies of the HTML comments right above it
    code: str

    @property
    def language(self) -> str:
        # exactly what pytest-codeblocks compares: "``` python" is not "python"
        return self.info.rstrip()

    @property
    def marks(self) -> list[str]:
        return [c.strip() for c in self.comments if c.strip().startswith("pytest.mark.")]

    @property
    def keywords(self) -> list[str]:
        found = []
        for c in self.comments:
            m = re.match(r"[-\s]*pytest-codeblocks:(.*)", c)
            if m:
                found.append(m.group(1).strip("- "))
        return found

    @property
    def variant(self) -> str | None:
        """The torch version specifier of a ``<!--docs:expected-output torch…-->`` fence."""
        for c in self.comments:
            m = VARIANT.match(c)
            if m:
                return m.group("rest").strip()
        return None

    @property
    def where(self) -> str:
        return f"{rel(self.page)}:{self.line}"


def torch_specifier(text: str, where: str):
    """``torch==2.11.*`` → a SpecifierSet; a clear error otherwise."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    spec = text.removeprefix("torch").strip()
    try:
        if not text.startswith("torch") or not spec:
            raise InvalidSpecifier(text)
        return SpecifierSet(spec)
    except InvalidSpecifier:
        raise DocsError(
            f"{where}: cannot read <!--docs:expected-output {text}-->: name the torch versions "
            "this output is for, e.g. <!--docs:expected-output torch==2.11.*-->"
        ) from None


def torch_version() -> str:
    """The installed torch's version without its local label (2.13.0+cpu → 2.13.0)."""
    import torch

    return torch.__version__.split("+")[0]


def scan_fences(page: Path) -> list[Fence]:
    """Every fenced block of a Markdown page, whatever its fence or info string."""
    lines = Path(page).read_text(encoding="utf-8").splitlines()
    fences, comments, i = [], [], 0
    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if not m:
            c = COMMENT.match(line)
            if c:
                comments.append(c.group("body"))
            elif line.strip():
                comments = []
            i += 1
            continue
        ticks, indent = m.group("ticks"), m.group("indent")
        j = i + 1
        body = []
        while j < len(lines):
            close = FENCE.match(lines[j])
            if (
                close
                and close.group("ticks")[0] == ticks[0]
                and len(close.group("ticks")) >= len(ticks)
                and not close.group("info").strip()
            ):
                break
            body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        else:
            raise DocsError(
                f"{rel(page)}:{i + 1}: fence {ticks}{m.group('info')} is never closed: "
                f"add a closing {ticks} line"
            )
        code = "\n".join(body) + ("\n" if body else "")
        fences.append(Fence(Path(page), i + 1, j + 1, ticks, m.group("info"), comments, code))
        comments = []
        i = j + 1
    return fences


@dataclass
class CensusEntry:
    page: str
    line: int
    language: str
    kind: str  # python | bash | cuda | excused | output | display | continued
    reason: str = ""
    problem: str = ""

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "problem"}


def mark_name(mark: str) -> str:
    return mark.removeprefix("pytest.mark.").split("(", 1)[0]


def eval_mark(mark: str, where: str):
    """Evaluate ``pytest.mark.…`` from a comment, allowing only our marks."""
    name = mark_name(mark)
    if name not in MARKS:
        allowed = ", ".join(f"pytest.mark.{m}" for m in MARKS)
        raise DocsError(f"{where}: unknown mark <!--{mark}-->: use one of {allowed}")
    try:
        value = eval(mark, {"pytest": pytest})  # same evaluation as pytest-codeblocks
    except Exception as exc:  # noqa: BLE001 - reported with the page line
        raise DocsError(f"{where}: cannot read <!--{mark}-->: {exc}") from None
    if name == "skip" and not str(value.kwargs.get("reason") or "").strip():
        raise DocsError(
            f'{where}: an excused block needs a reason: <!--pytest.mark.skip(reason="…")-->'
        )
    return value


def census(page: Path) -> list[CensusEntry]:
    """Classify every fence of a page; entries with ``problem`` set fail the census."""
    entries = []
    text = Path(page).read_text(encoding="utf-8")
    first = text.splitlines()[0].strip() if text.strip() else ""
    fences = scan_fences(page)
    previous = None  # the last fence that is not an expected output
    has_output = False  # whether `previous` has its expected output yet
    for f in fences:
        e = CensusEntry(rel(f.page), f.line, f.language or "(none)", "")
        is_output = any(k.startswith("expected-output") for k in f.keywords)
        variant = f.variant
        runnable = previous is not None and previous.ticks[0] == "`" and previous.language in EXECUTED
        excuse = None
        try:
            for mark in f.marks:
                value = eval_mark(mark, f.where)
                if value.name == "skip":
                    excuse = value.kwargs["reason"]
        except DocsError as exc:
            e.problem = str(exc)
        keywords = f.keywords
        if "skipfile" in first:
            e.problem = (
                f"{f.where}: <!--pytest-codeblocks:skipfile--> hides every block of the page; "
                f'excuse blocks one by one with <!--pytest.mark.skip(reason="…")-->'
            )
        elif e.problem:
            pass
        elif is_output or variant is not None:
            e.kind = "output"
            what = "<!--pytest-codeblocks:expected-output-->" if is_output else f"<!--docs:expected-output {variant}-->"
            if f.ticks[0] != "`" or f.language != "text":
                e.problem = (
                    f"{f.where}: the expected output after {what} "
                    f"must be a ```text fence (found {f.ticks}{f.info})"
                )
            elif not runnable:
                e.problem = (
                    f"{f.where}: {what} follows "
                    + (f"the {previous.language or 'plain'} fence at line {previous.line}, which never runs"
                       if previous else "no block")
                    + ", so this output would never be compared: put it directly after the "
                    "```python or ```bash block whose output it is"
                )
            elif variant is not None and not has_output:
                e.problem = (
                    f"{f.where}: {what} needs the block's usual output first: put a "
                    "<!--pytest-codeblocks:expected-output--> fence (the pinned torch's output) above it"
                )
            elif variant is not None:
                try:
                    torch_specifier(variant, f.where)
                except DocsError as exc:
                    e.problem = str(exc)
        elif excuse is not None:
            e.kind, e.reason = "excused", excuse
        elif f.ticks[0] == "`" and f.language in EXECUTED:
            if "cont" in keywords:
                e.kind = "continued"
            elif any(mark_name(m) == "cuda" for m in f.marks):
                e.kind, e.reason = "cuda", MARKS["cuda"]
            else:
                e.kind = f.language
        elif f.ticks[0] == "`" and f.language in DISPLAY:
            e.kind = "display"
        else:
            word = f.language.split()[0] if f.language.strip() else ""
            hint = {
                "py": "write ```python",
                "python": "write exactly ```python: nothing before or after the language "
                "(titles, attributes and spaces make pytest-codeblocks skip the block)",
                "sh": "write ```bash",
                "": "give the fence a language: ```python, ```bash, or ```text for output",
            }.get(word, f"use ```python or ```bash, or ```text to show output ({sorted(DISPLAY)})")
            if f.ticks[0] == "~":
                hint = "use a backtick fence ``` (pytest-codeblocks does not read ~~~ fences)"
            e.kind = "ignored"
            e.problem = (
                f"{f.where}: fence {f.ticks}{f.info} would be silently ignored by the harness: "
                f'{hint}; or excuse it with <!--pytest.mark.skip(reason="…")--> on the line above'
            )
        entries.append(e)
        if e.kind == "output":
            has_output = True
        elif e.kind != "continued":
            previous, has_output = f, False
    for f in scan_outside_fences_for_snippets(page, fences):
        entries.append(f)
    return entries


def scan_outside_fences_for_snippets(page: Path, fences: list[Fence]) -> list[CensusEntry]:
    """Includes outside fences would hide fences from the census: refuse them."""
    inside = set()
    for f in fences:
        inside.update(range(f.line, f.end + 1))
    found = []
    for n, line in enumerate(Path(page).read_text(encoding="utf-8").splitlines(), 1):
        if n not in inside and SNIPPET_LINE.match(line):
            found.append(
                CensusEntry(
                    rel(page),
                    n,
                    "snippet",
                    "ignored",
                    problem=f"{rel(page)}:{n}: --8<-- include outside a code fence: include "
                    "code inside a ```python or ```bash fence so the harness sees it",
                )
            )
    return found


def pages(docs: Path | None = None) -> list[Path]:
    """Markdown pages of both languages."""
    docs = docs or REPO / "docs"
    return sorted(p for lang in LANGUAGES for p in (docs / lang).rglob("*.md"))


def notebooks(docs: Path | None = None) -> list[Path]:
    """jupytext percent-format notebooks (``.py``) of both languages."""
    docs = docs or REPO / "docs"
    return sorted(p for lang in LANGUAGES for p in (docs / lang).rglob("*.py"))


def notebook_code_cells(path: Path) -> list[str]:
    import jupytext

    nb = jupytext.read(path)
    return [c.source for c in nb.cells if c.cell_type == "code"]


# --------------------------------------------------------------------------- blocks


_snippets = None


def expand_snippet_line(line: str, where: str) -> list[str]:
    """Expand one ``--8<--`` line with pymdownx.snippets' own preprocessor."""
    global _snippets
    if _snippets is None:
        md = markdown.Markdown(
            extensions=["pymdownx.snippets"],
            extension_configs={
                "pymdownx.snippets": {"base_path": [str(REPO)], "check_paths": True}
            },
        )
        _snippets = md.preprocessors["snippet"]
    try:
        return _snippets.run([line])
    except Exception as exc:  # SnippetMissingError and friends
        raise DocsError(
            f"{where}: {exc}; snippet paths are relative to the repository root "
            "(e.g. --8<-- \"snippets/topic/what_it_does.py\")"
        ) from None


@dataclass
class Block:
    """A runnable block: code, where each of its lines comes from, and its marks."""

    page: Path
    line: int
    language: str
    code: str
    line_map: list[tuple[str, int]]
    marks: list = field(default_factory=list)
    expected_output: str | None = None
    ignore_whitespace: bool = False
    output_fence: Fence | None = None
    # outputs for other torch versions: (specifier text, expected output, fence)
    variants: list[tuple[str, str, Fence]] = field(default_factory=list)

    def expected_for(self, version: str) -> tuple[str | None, Fence | None]:
        """The expected output (and its fence) for this torch version."""
        for spec, text, fence in self.variants:
            if torch_specifier(spec, f"{rel(self.page)}:{fence.line}").contains(version):
                return text, fence
        return self.expected_output, self.output_fence

    @property
    def where(self) -> str:
        return f"{rel(self.page)}:{self.line}"

    @property
    def mark_names(self) -> set[str]:
        return {m.name for m in self.marks}


def page_blocks(page: Path) -> list[Block]:
    """The python and bash blocks of a page, as pytest-codeblocks extracts them."""
    fences = scan_fences(page)
    by_line = {f.line: f for f in fences}
    with open(page, encoding="utf-8") as handle:
        extracted: list[CodeBlock] = extract_from_buffer(handle)
    # continuation pieces and output fences, in page order, for the line maps
    pieces: dict[int, list[Fence]] = {}
    outputs: dict[int, Fence] = {}
    variants: dict[int, list[tuple[str, str, Fence]]] = {}
    owner = None
    for f in fences:
        if f.ticks[0] != "`":
            continue
        kw = f.keywords
        if "cont" in kw and owner is not None:
            pieces[owner.line].append(f)
        elif any(k.startswith("expected-output") for k in kw) and owner is not None:
            outputs[owner.line] = f
        elif f.variant is not None and owner is not None:
            torch_specifier(f.variant, f.where)
            variants.setdefault(owner.line, []).append((f.variant, f.code, f))
        else:
            owner = f
            pieces[f.line] = [f]
    blocks = []
    for cb in extracted:
        if cb.syntax not in EXECUTED:
            continue
        where = f"{rel(page)}:{cb.lineno}"
        fence = by_line.get(cb.lineno)
        if fence is None:  # pragma: no cover - both parsers read the same fences
            raise DocsError(f"{where}: fence not found by the census scanner")
        if sorted(cb.marks) != sorted(fence.marks):
            raise DocsError(
                f"{where}: a mark comment is separated from its fence by text: put "
                "<!--pytest.mark.…--> comments directly above the fence they mark"
            )
        marks = [eval_mark(m, where) for m in cb.marks]
        code, line_map = [], []
        for piece in pieces[cb.lineno]:
            for n, text in enumerate(piece.code.splitlines(), piece.line + 1):
                if SNIPPET_LINE.match(text):
                    source = text.split("8<", 1)[1].strip(" -\"'")
                    expanded = expand_snippet_line(text, f"{rel(page)}:{n}")
                    for k, included in enumerate(expanded, 1):
                        code.append(included)
                        line_map.append((source.split(":", 1)[0], k))
                else:
                    code.append(text)
                    line_map.append((rel(page), n))
        blocks.append(
            Block(
                page=Path(page),
                line=cb.lineno,
                language=cb.syntax,
                code="\n".join(code) + "\n",
                line_map=line_map,
                marks=marks,
                expected_output=cb.expected_output,
                ignore_whitespace=cb.expected_output_ignore_whitespace,
                output_fence=outputs.get(cb.lineno),
                variants=variants.get(cb.lineno, []),
            )
        )
    return blocks


# --------------------------------------------------------------------------- running


class BlockFailure(Exception):
    """A block failed; the message is ready to show to the reader."""


def reset_global_state() -> None:
    """Undo what a block may have changed in torch's (and Python's) global state."""
    import numpy as np
    import torch

    torch.set_default_dtype(torch.float32)
    torch.set_default_device(None)
    torch.set_grad_enabled(True)
    torch.autograd.set_detect_anomaly(False)
    torch.use_deterministic_algorithms(False)
    torch.set_printoptions(profile="default", sci_mode=None)
    torch.manual_seed(0)
    random.seed(0)
    np.random.seed(0)
    if torch.cuda.is_available():
        torch.cuda.set_sync_debug_mode(0)
        torch.cuda.synchronize()


@contextlib.contextmanager
def block_sandbox():
    """A private working directory (with ``snippets/`` reachable), restored env."""
    old_cwd, old_env, old_argv = os.getcwd(), dict(os.environ), sys.argv[:]
    with tempfile.TemporaryDirectory(prefix="docs-block-") as tmp:
        os.symlink(REPO / "snippets", Path(tmp) / "snippets")
        os.chdir(tmp)
        try:
            yield Path(tmp)
        finally:
            os.chdir(old_cwd)
            os.environ.clear()
            os.environ.update(old_env)
            sys.argv = old_argv


def numbered(block: Block) -> str:
    width = max(len(f"{p}:{n}") for p, n in block.line_map) if block.line_map else 0
    return "\n".join(
        f"  {f'{p}:{n}':>{width}} | {text}"
        for (p, n), text in zip(block.line_map, block.code.splitlines(), strict=False)
    )


def compiled(block: Block):
    """Compile a python block; syntax errors name the page line."""
    filename = f"<{block.where}>"
    linecache.cache[filename] = (len(block.code), None, block.code.splitlines(True), filename)
    try:
        return compile(block.code, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        p, n = block.line_map[(exc.lineno or 1) - 1] if block.line_map else (rel(block.page), block.line)
        raise BlockFailure(f"{p}:{n}: SyntaxError: {exc.msg}\n\n{numbered(block)}") from None


def page_traceback(block: Block, exc: BaseException) -> str:
    """The traceback with the block's frames shown at their page lines."""
    filename = f"<{block.where}>"
    lines = ["Traceback (page lines first; library frames after):"]
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename and frame.lineno:
            p, n = block.line_map[frame.lineno - 1]
            lines.append(f"  {p}:{n}  {frame.line}")
        elif frame.filename != __file__:
            lines.append(f"  {frame.filename}:{frame.lineno}  {frame.line or ''}")
    lines.append("".join(traceback.format_exception_only(type(exc), exc)).rstrip())
    return "\n".join(lines)


def run_python(block: Block) -> str:
    """Run a python block as ``__main__``; return what it printed."""
    code = compiled(block)
    out = io.StringIO()
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    with block_sandbox(), contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        warnings.simplefilter("error", FutureWarning)
        sys.argv = [rel(block.page)]
        reset_global_state()
        try:
            exec(code, namespace)
        except BaseException as exc:  # noqa: BLE001 - reported with page lines
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise BlockFailure(
                f"{block.where}: python block failed\n\n{numbered(block)}\n\n"
                f"{page_traceback(block, exc)}\n\nprinted before the failure:\n{out.getvalue()}"
            ) from None
        finally:
            reset_global_state()
    return out.getvalue()


def run_bash(block: Block) -> str:
    """Run a bash block with ``set -euo pipefail``, the venv's tools first on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONWARNINGS"] = "error::DeprecationWarning,error::FutureWarning"
    with block_sandbox() as tmp:
        try:
            done = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", block.code],
                cwd=tmp,
                env=env,
                capture_output=True,
                text=True,
                timeout=BLOCK_TIMEOUT,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise BlockFailure(
                f"{block.where}: bash block ran longer than {BLOCK_TIMEOUT} s\n\n{numbered(block)}"
            ) from None
    if done.returncode != 0:
        raise BlockFailure(
            f"{block.where}: bash block exited with status {done.returncode}\n\n"
            f"{numbered(block)}\n\nstdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
        )
    return done.stdout


def check_output(block: Block, actual: str) -> None:
    """Compare printed output with the page's expected-output fence."""
    expected, fence = block.expected_for(torch_version())
    if expected is None:
        return
    same = (
        re.sub(r"\s+", "", expected) == re.sub(r"\s+", "", actual)
        if block.ignore_whitespace
        else expected == actual
    )
    if same:
        return
    at = f"{rel(block.page)}:{fence.line}" if fence else block.where
    which = "" if fence is block.output_fence else f" (the output for torch {fence.variant})"
    diff = "\n".join(
        difflib.unified_diff(
            expected.splitlines(), actual.splitlines(), "expected (page)", "actual", lineterm=""
        )
    )
    raise BlockFailure(
        f"{block.where}: printed output differs from the expected output at {at}{which}\n\n"
        f"{diff}\n\nIf the new output is right, update the ```text fence at {at} and its twin "
        f"in the other language, or run: python -m pytest {rel(block.page)} --update-outputs"
    )


def write_output(block: Block, actual: str) -> None:
    """Replace the body of the block's expected-output fence (for this torch) with ``actual``."""
    _, fence = block.expected_for(torch_version())
    lines = block.page.read_text(encoding="utf-8").splitlines(True)
    opening = lines[fence.line - 1]
    indent = opening[: len(opening) - len(opening.lstrip())]
    body = [indent + line if line.strip() else line for line in actual.splitlines(True)]
    if body and not body[-1].endswith("\n"):
        body[-1] += "\n"
    lines[fence.line : fence.end - 1] = body
    block.page.write_text("".join(lines), encoding="utf-8")


# --------------------------------------------------------------------------- API check


def unresolved_torch_attributes(block: Block) -> list[str]:
    """``torch.…`` attribute paths in a block that the installed torch lacks (or deprecates).

    Catches ``torch.cuda.event`` or ``torch.cuda.amp.autocast`` in CUDA-only
    blocks on a machine where those blocks cannot run. Aliases from
    ``import torch.nn as nn`` and ``from torch import cuda`` are followed.
    """
    tree = ast.parse(block.code)
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "torch" or a.name.startswith("torch."):
                    aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else "torch"
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "torch":
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    missing = []
    deprecated = {
        "torch.cuda.amp.autocast": "torch.amp.autocast('cuda')",
        "torch.cuda.amp.GradScaler": "torch.amp.GradScaler('cuda')",
        "torch.cuda.amp.custom_fwd": "torch.amp.custom_fwd(device_type='cuda')",
        "torch.cuda.amp.custom_bwd": "torch.amp.custom_bwd(device_type='cuda')",
        "torch.nn.utils.clip_grad_norm": "torch.nn.utils.clip_grad_norm_",
        "torch.cuda.FloatTensor": "torch.tensor(..., device='cuda')",
        "torch.autograd.Variable": "a plain tensor",
    }

    def chain(node):
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in aliases:
            return aliases[node.id].split(".") + parts[::-1]
        return None

    seen = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Attribute, ast.Name)):
            path = chain(node)
            if not path or tuple(path) in seen:
                continue
            seen.add(tuple(path))
            dotted = ".".join(path)
            if dotted in deprecated:
                p, n = block.line_map[node.lineno - 1]
                missing.append(f"{p}:{n}: {dotted} is deprecated: use {deprecated[dotted]}")
                continue
            obj = importlib.import_module(path[0])
            for i, part in enumerate(path[1:], 1):
                if hasattr(obj, part):
                    obj = getattr(obj, part)
                    continue
                if isinstance(obj, type(sys)):
                    try:
                        obj = importlib.import_module(".".join(path[: i + 1]))
                        continue
                    except ImportError:
                        pass
                p, n = block.line_map[node.lineno - 1]
                missing.append(f"{p}:{n}: {'.'.join(path[: i + 1])} does not exist in torch")
                break
    return sorted(set(missing))


# --------------------------------------------------------------------------- headings


HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{\s*#([\w-]+)[^}]*\})?\s*#*\s*$")


def heading_anchors(page: Path) -> list[tuple[int, str, str]]:
    """(line, level + title, anchor) of every heading outside fences."""
    from markdown.extensions.toc import slugify

    inside = set()
    for f in scan_fences(page):
        inside.update(range(f.line, f.end + 1))
    found = []
    for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if n in inside:
            continue
        m = HEADING.match(line)
        if m:
            anchor = m.group(3) or slugify(m.group(2), "-")
            found.append((n, m.group(1), anchor))
    return found
