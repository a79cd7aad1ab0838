"""The executable-docs harness: find, check and run the code on every page.

Extraction is pytest-codeblocks' (``extract_from_buffer``); ``--8<--`` includes
are expanded by pymdownx.snippets' own preprocessor. What this module adds:

* ``scan_fences`` / ``census`` -- every fence on a page, including the ones
  pytest-codeblocks would silently ignore, classified as run / CUDA-only /
  excused / output / display, or reported as a problem;
* ``page_blocks`` -- the blocks to run, each with a map from its code lines back
  to the page (or snippet) line they came from, so failures name that line;
* ``run_block`` -- execution in a process of its own (tests/runner.py) with
  ``__name__ == "__main__"``, a private working directory, a time limit and
  deprecation warnings as errors, turned into failures that name page lines;
* ``comment_problems`` -- marks and keywords are honoured or refused, never ignored;
* ``twin_problems`` / ``parity_problems`` -- the two languages of a page agree;
* ``unresolved_torch_attributes`` -- the API check of CUDA-only blocks on CPU.
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import importlib
import json
import linecache
import os
import re
import shutil
import signal
import sys
import tempfile
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import markdown
import pytest
from pytest_codeblocks.main import CodeBlock, extract_from_buffer

from tests import runner

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
    "timeout": "a time limit in seconds other than the default (tests/runner.py DEFAULT_TIMEOUT)",
    "pinned": "shows the pinned torch version (pyproject.toml): checked in the pinned run "
    "(make test); a run with another torch (make test-cuda) skips it",
}
# An expected output for other torch versions, below the block's usual one:
#   <!--docs:expected-output torch==2.11.*-->
VARIANT = re.compile(r"^\s*docs:expected-output\b(?P<rest>.*)$")
SNIPPET_LINE = re.compile(r"^\s*-{1,}8<-{1,}\s")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,}|~{3,})(?P<info>.*)$")
COMMENT = re.compile(r"^\s*<!--(?P<body>.*)-->\s*$")


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


# HTML comments right above a fence that are not marks but look like one (a typo,
# a space, a missing prefix) would silently change nothing: they are refused.
LOOKS_LIKE_A_MARK = re.compile(r"(?i)pytest|codeblocks|mark|skip|cuda|expect|output|\bcont\b|timeout|pinned|^\s*docs\s*:")
PLAIN_COMMENTS = {"gpu-output", "validation-report"}  # markers the site's hooks replace
VALID_FORMS = (
    "<!--pytest.mark.cuda-->",
    '<!--pytest.mark.skip(reason="why it is not run")-->',
    "<!--pytest.mark.timeout(600)-->",
    "<!--pytest.mark.pinned-->",
    "<!--pytest-codeblocks:expected-output-->",
    "<!--pytest-codeblocks:expected-output-ignore-whitespace-->",
    "<!--pytest-codeblocks:cont-->",
    "<!--docs:expected-output torch==2.11.*-->",
)


def comment_problems(fence: Fence) -> list[str]:
    """What is wrong with the comments right above a fence (empty when nothing is)."""
    problems = []
    for body in fence.comments:
        text = body.strip()
        if text in PLAIN_COMMENTS or not LOOKS_LIKE_A_MARK.search(text):
            continue
        if re.fullmatch(r"pytest\.mark\.\w+(\(.*\))?", text, re.S):
            try:
                eval_mark(text, fence.where)
            except DocsError as exc:
                problems.append(str(exc))
            continue
        m = re.fullmatch(r"[-\s]*pytest-codeblocks:(.*)", text)
        if m:
            keyword = m.group(1).strip("- ")
            if keyword in ("expected-output", "expected-output-ignore-whitespace", "cont"):
                continue
            hint = {
                "skip": 'an excused block needs a reason: <!--pytest.mark.skip(reason="…")-->',
                "skipfile": 'excuse blocks one by one with <!--pytest.mark.skip(reason="…")-->',
            }.get(keyword.split("(")[0], "")
            problems.append(
                f"{fence.where}: <!--{text}--> is not a keyword the harness honours"
                + (f": {hint}" if hint else "")
                + f"; write one of: {', '.join(VALID_FORMS)}"
            )
            continue
        if VARIANT.match(text):
            continue
        squeezed = re.sub(r"\s+", "", text).replace("pytest-mark", "pytest.mark").replace("_", "-")
        guess = difflib.get_close_matches(f"<!--{squeezed}-->", VALID_FORMS, n=1, cutoff=0.5)
        problems.append(
            f"{fence.where}: the comment <!--{body}--> above this fence looks like a mark or keyword "
            f"but is none, so it would change nothing"
            + (f": did you mean {guess[0]}?" if guess else "")
            + f" The harness honours: {', '.join(VALID_FORMS)}"
        )
    return problems


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
        comment_errors = comment_problems(f)
        if comment_errors:
            e.problem = "\n".join(comment_errors)
        try:
            for mark in f.marks:
                value = eval_mark(mark, f.where)
                if value.name == "skip":
                    excuse = value.kwargs["reason"]
        except DocsError as exc:
            e.problem = e.problem or str(exc)
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

    @classmethod
    def from_job(cls, job: dict) -> Block:
        """The block a runner job was made from (in the block's process)."""
        return cls(Path(job["page"]), job["line"], job["language"], job["code"],
                   [tuple(x) for x in job["line_map"]])

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
    problems = [e.problem for e in census(page) if e.problem]
    if problems:
        raise DocsError("\n".join(problems))
    fences = scan_fences(page)
    by_line = {f.line: f for f in fences}
    with open(page, encoding="utf-8") as handle:
        try:
            extracted: list[CodeBlock] = extract_from_buffer(handle)
        except RuntimeError as exc:  # pytest-codeblocks' parser; the census catches most first
            raise DocsError(f"{rel(page)}:1: {exc}") from None
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
        if sorted(m.strip() for m in cb.marks) != sorted(fence.marks):
            raise DocsError(
                f"{where}: a mark comment is separated from its fence by text: put "
                "<!--pytest.mark.…--> comments directly above the fence they mark"
            )
        marks = [eval_mark(m.strip(), where) for m in cb.marks]
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


@contextlib.contextmanager
def block_sandbox():
    """A private working directory holding a *copy* of ``snippets/`` (so a block
    that writes there changes nothing in the repository), and a folder beside it
    for the runner's files, out of the block's sight."""
    with tempfile.TemporaryDirectory(prefix="docs-block-") as tmp:
        work, files = Path(tmp) / "work", Path(tmp) / "runner"
        shutil.copytree(REPO / "snippets", work / "snippets")
        files.mkdir()
        yield work, files


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
        elif frame.filename not in (__file__, runner.__file__):
            lines.append(f"  {frame.filename}:{frame.lineno}  {frame.line or ''}")
    lines.append("".join(traceback.format_exception_only(type(exc), exc)).rstrip())
    return "\n".join(lines)


TAIL_LINES, TAIL_CHARS = 40, 4000


def tail(text: str) -> str:
    """The end of a long output, as a failure shows it."""
    lines = text.splitlines()
    cut = "\n".join(lines[-TAIL_LINES:])[-TAIL_CHARS:]
    if len(cut) < len(text.rstrip("\n")):
        return f"[… {len(text)} characters in all; the last {len(cut)}:]\n{cut}"
    return cut


def block_timeout(block: Block) -> float:
    for mark in block.marks:
        if mark.name == "timeout":
            return float(mark.args[0])
    return runner.DEFAULT_TIMEOUT


def run_block(block: Block, zygote: runner.Zygote | None = None) -> str:
    """Run a python or bash block in a process of its own (tests/runner.py);
    return what it printed, or raise BlockFailure with page lines."""
    zygote = zygote or runner.default_zygote()
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    if block.language == "bash":
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        env["PYTHONWARNINGS"] = "error::DeprecationWarning,error::FutureWarning"
    timeout = block_timeout(block)
    with block_sandbox() as (work, files):
        job = {
            "where": block.where,
            "language": block.language,
            "code": block.code,
            "filename": f"<{block.where}>",
            "line_map": block.line_map,
            "page": str(block.page),
            "line": block.line,
            "argv0": rel(block.page),
            "cwd": str(work),
            "env": env,
            "stdout": str(files / "stdout"),
            "stderr": str(files / "stderr"),
            "result": str(files / "result.json"),
            "timeout": timeout,
            "memory": runner.memory_limit(),
            # Landlock: the block cannot write beneath the repository (else RepoGuard restores)
            "protect": str(REPO) if runner.landlock_abi() else None,
        }
        if block.language == "python":
            compiled(block)  # a syntax error is reported here, at its page line
        reply = zygote.run(job)
        raw = Path(job["stdout"]).read_bytes() if Path(job["stdout"]).exists() else b""
        err = Path(job["stderr"]).read_bytes().decode("utf-8", "backslashreplace") if Path(job["stderr"]).exists() else ""
        result = Path(job["result"])
        result = json.loads(result.read_text(encoding="utf-8")) if result.exists() else None
    try:
        printed = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        printed = None
        bad = f"{block.where}: the block printed bytes that are not UTF-8 (at byte {exc.start}: {raw[exc.start:exc.start + 8]!r}): print text, decode bytes first (bytes.decode()), or write binary data to a file"
    streams = f"\n\nlast lines printed:\n{tail(raw.decode('utf-8', 'backslashreplace'))}" + (f"\n\nstderr:\n{tail(err)}" if err.strip() else "")
    if reply.get("runner_died"):
        raise BlockFailure(f"{block.where}: the block runner (python -m tests.runner) died while running this block\n\n{numbered(block)}{streams}")
    if reply["timed_out"]:
        raise BlockFailure(
            f"{block.where}: {block.language} block ran longer than its limit of {timeout:g} s and was stopped "
            f"with everything it started. A block that needs longer says so on the line above its fence: "
            f"<!--pytest.mark.timeout({int(timeout) * 5})-->\n\n{numbered(block)}{streams}"
        )
    if reply["over_memory"]:
        raise BlockFailure(
            f"{block.where}: the block used more than {job['memory'] / 2**30:.1f} GiB of memory and was stopped "
            f"(the limit for one block: 60 % of this machine's memory over the pytest workers; "
            f"DOCS_BLOCK_MEMORY_GB sets it)\n\n{numbered(block)}{streams}"
        )
    if block.language == "bash":
        if reply["exit"] != 0:
            how = f"exited with status {reply['exit']}" if reply["signal"] is None else f"was killed by {_signal_name(reply['signal'])}"
            raise BlockFailure(f"{block.where}: bash block {how}\n\n{numbered(block)}{streams}")
    elif result is None:
        how = f"exit status {reply['exit']}" if reply["signal"] is None else _signal_name(reply["signal"])
        raise BlockFailure(
            f"{block.where}: the block's process ended before the block did ({how}). A block must run to "
            f"its end: os._exit(), a crash or the out-of-memory killer end it early\n\n{numbered(block)}{streams}"
        )
    elif result["status"] == "failed":
        message = result["message"]
        if "PermissionError" in message and str(REPO) in message:
            message += "\n\n(blocks may not write into the repository: they run in a temporary folder with a copy of snippets/; write there)"
        if "MemoryError" in message or "can't allocate memory" in message:
            message += f"\n\n(a block may allocate at most {job['memory'] / 2**30:.1f} GiB here; DOCS_BLOCK_MEMORY_GB sets it)"
        raise BlockFailure(f"{message}\n\nprinted before the failure:\n{tail(raw.decode('utf-8', 'backslashreplace'))}" + (f"\n\nstderr:\n{tail(err)}" if err.strip() else ""))
    if printed is None:
        raise BlockFailure(f"{bad}\n\n{numbered(block)}")
    return printed


def _signal_name(number: int) -> str:
    try:
        return f"signal {number} ({signal.Signals(number).name})"
    except ValueError:
        return f"signal {number}"


def run_python(block: Block) -> str:
    assert block.language == "python"
    return run_block(block)


def run_bash(block: Block) -> str:
    assert block.language == "bash"
    return run_block(block)


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
    which = "" if fence is block.output_fence else f" (the output for {fence.variant})"
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


# --------------------------------------------------------------------------- parity




def twins(docs: Path | None = None):
    """(zh, en) path pairs, and the pages that miss their twin."""
    docs = docs or REPO / "docs"
    found = {}
    for lang in LANGUAGES:
        root = docs / lang
        for p in [*root.rglob("*.md"), *root.rglob("*.py")]:
            found.setdefault(p.relative_to(root), {})[lang] = p
    pairs, missing = [], []
    for relpath, langs in sorted(found.items()):
        if set(langs) == set(LANGUAGES):
            pairs.append((langs["zh"], langs["en"]))
        for lang in LANGUAGES:
            if lang not in langs:
                (have,) = langs.values()
                missing.append(
                    f"{rel(have)}:1: has no twin docs/{lang}/{relpath.as_posix()}: "
                    "write the page in both languages (same code, translated prose)"
                )
    return pairs, missing


def code_sequence(page):
    """What must be identical across languages: runnable code, marks, outputs."""
    seq = []
    for f in scan_fences(page):
        if f.language in EXECUTED or f.keywords or f.variant is not None:
            seq.append((f.line, f.language, sorted(f.marks), [*f.keywords, f.variant], f.code))
    return seq


def parity_problems(zh, en):
    problems = []
    if zh.suffix == ".py":
        a, b = notebook_code_cells(zh), notebook_code_cells(en)
        if a != b:
            diff = "\n".join(difflib.unified_diff("\n\n".join(a).splitlines(), "\n\n".join(b).splitlines(), rel(zh), rel(en), lineterm=""))
            problems.append(f"{rel(zh)}: notebook code cells differ from {rel(en)}:\n{diff}")
        return problems
    a, b = code_sequence(zh), code_sequence(en)
    for i in range(max(len(a), len(b))):
        if i >= len(a) or i >= len(b):
            extra, page = (b[i], en) if i >= len(a) else (a[i], zh)
            problems.append(f"{rel(page)}:{extra[0]}: block has no counterpart in the other language")
            continue
        (la, *ka), (lb, *kb) = a[i], b[i]
        if ka != kb:
            diff = "\n".join(difflib.unified_diff(ka[-1].splitlines(), kb[-1].splitlines(), f"{rel(zh)}:{la}", f"{rel(en)}:{lb}", lineterm=""))
            problems.append(
                f"{rel(zh)}:{la} differs from {rel(en)}:{lb} "
                f"(language/marks/keywords/code must be identical):\n"
                f"  zh: {ka[0]} {ka[1]} {ka[2]}\n  en: {kb[0]} {kb[1]} {kb[2]}\n{diff}"
            )
            break
    ha = [(h[1], h[2]) for h in heading_anchors(zh)]
    hb = [(h[1], h[2]) for h in heading_anchors(en)]
    if ha != hb:
        za = {h[2]: h[0] for h in heading_anchors(zh)}
        for (lvl, anchor), line in zip(ha, [h[0] for h in heading_anchors(zh)], strict=False):
            if (lvl, anchor) not in hb:
                problems.append(f"{rel(zh)}:{line}: heading anchor #{anchor} ({lvl}) is not in {rel(en)}")
        for lvl, anchor in hb:
            if anchor not in za:
                problems.append(f"{rel(en)}: heading anchor #{anchor} ({lvl}) is not in {rel(zh)}")
        if not problems:
            problems.append(f"{rel(zh)}: headings are in a different order than in {rel(en)}")
        problems.append("give every heading the same explicit anchor in both languages: ## 标题 { #english-anchor }")
    return problems


def twin_problems(page: Path) -> list[str]:
    """One page's parity check: its twin exists, with the same code, outputs and anchors."""
    page = Path(page).resolve()
    lang, _, rest = rel(page).removeprefix("docs/").partition("/")
    other = [x for x in LANGUAGES if x != lang]
    if lang not in LANGUAGES or not other:
        return []
    twin = REPO / "docs" / other[0] / rest
    if not twin.exists():
        return [
            f"{rel(page)}:1: has no twin docs/{other[0]}/{rest}: "
            "write the page in both languages (same code, translated prose)"
        ]
    zh, en = (page, twin) if lang == LANGUAGES[0] else (twin, page)
    return parity_problems(zh, en)
