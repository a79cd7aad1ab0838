"""Pages and their fences: the only parser.

pytest-codeblocks stays the extractor of the blocks (``page_blocks`` calls its
``extract_from_buffer``, as the design requires); what this module adds:

* ``scan_fences`` -- every fence of a page, whatever its fence or info string,
  with the HTML comments right above it;
* ``classify`` -- each fence as run / CUDA-, MPS- or XPU-only / excused / output / display, or a
  problem that names the page line and what to write (pytest-codeblocks would
  silently skip ```` ```py ````, ``~~~python`` and friends; this catches them);
* ``comment_problems`` -- a comment above a fence is a mark or keyword, or refused;
* ``page_blocks`` -- the runnable blocks, each with a map from its code lines to
  the page (or snippet) line they came from, so failures name that line;
* ``heading_anchors``, ``pages``, ``notebooks``.
"""

from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import markdown
import pytest
from pytest_codeblocks.main import CodeBlock, extract_from_buffer

from devguide.config import LANGUAGES, REPO, DocsError, rel

# Fence languages the harness executes.
EXECUTED = {"python", "bash"}
# Fence languages that show something and are never run (program output, config).
DISPLAY = {"text", "json", "yaml", "toml", "ini", "diff", "html", "markdown"}
# Marks allowed in an HTML comment right before a fence.
MARKS = {
    "cuda": "needs a CUDA device: runs in the GPU workflow (REQUIRE_CUDA=1)",
    "mps": "needs an Apple-silicon MPS device: no CI machine runs it",
    "xpu": "needs an Intel GPU (XPU device): no CI machine runs it",
    "skip": "excused: never run; the reason is shown in the validation report",
    "timeout": "a time limit in seconds other than the default (devguide/sandbox.py DEFAULT_TIMEOUT)",
    "pinned": "shows the pinned torch version (pyproject.toml): checked in the pinned run "
    "(make test); a run with another torch (make test-cuda) skips it",
}
# Marks for blocks that need one kind of device. Where it is missing, such a block is
# compiled, its torch names are checked (devguide.apicheck), and it is skipped with
# the mark's reason; the census counts each kind apart (its "kind" is the mark).
DEVICE_MARKS = ("cuda", "mps", "xpu")
# An expected output for other torch versions, below the block's usual one:
#   <!--docs:expected-output torch==2.11.*-->
VARIANT = re.compile(r"^\s*docs:expected-output\b(?P<rest>.*)$")
SNIPPET_LINE = re.compile(r"^\s*-{1,}8<-{1,}\s")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,}|~{3,})(?P<info>.*)$")
COMMENT = re.compile(r"^\s*<!--(?P<body>.*)-->\s*$")


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
LOOKS_LIKE_A_MARK = re.compile(r"(?i)pytest|codeblocks|mark|skip|cuda|\bmps|\bxpu|expect|output|\bcont\b|timeout|pinned|^\s*docs\s*:")
PLAIN_COMMENTS = {"gpu-output", "validation-report"}  # markers the site's hooks replace
VALID_FORMS = (
    "<!--pytest.mark.cuda-->",
    "<!--pytest.mark.mps-->",
    "<!--pytest.mark.xpu-->",
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


def _version(page: Path) -> tuple[Path, int, int]:
    """A page's identity for the caches: its path and the size and time of its content."""
    page = Path(page).resolve()
    st = page.stat()
    return page, st.st_mtime_ns, st.st_size


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


def scan_fences(page: Path) -> list[Fence]:
    """(cached while the file is unchanged: the plugin, the census and the report ask often)"""
    return _scan_fences(*_version(page))


@functools.lru_cache(maxsize=512)
def _scan_fences(page: Path, mtime_ns: int, size: int) -> list[Fence]:
    """Every fenced block of a Markdown page, whatever its fence or info string."""
    return fences_in(Path(page).read_text(encoding="utf-8").splitlines(), page)


def fences_in(lines: list[str], page: Path) -> list[Fence]:
    """The fences of Markdown given as lines (``page`` names it in messages): what
    ``scan_fences`` reads from a file, for Markdown that is not one (a converted notebook)."""
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
    kind: str  # python | bash | cuda | mps | xpu | excused | output | display | continued
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


def classify(page: Path) -> list[CensusEntry]:
    """(cached while the file is unchanged: the plugin, the census and the report ask often)"""
    return _classify(*_version(page))


@functools.lru_cache(maxsize=512)
def _classify(page: Path, mtime_ns: int, size: int) -> list[CensusEntry]:
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
            elif needs := [d for d in DEVICE_MARKS if d in map(mark_name, f.marks)]:
                e.kind, e.reason = needs[0], MARKS[needs[0]]
                if len(needs) > 1:
                    e.problem = (
                        f"{f.where}: a block needs one kind of device, not "
                        f"{' and '.join(needs)}: write one block per device, or pick the "
                        "device at run time and leave the mark out"
                    )
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
            # prereleases=True: a release candidate of 2.16 is "torch>=2.15" too
            if torch_specifier(spec, f"{rel(self.page)}:{fence.line}").contains(version, prereleases=True):
                return text, fence
        return self.expected_output, self.output_fence

    @property
    def where(self) -> str:
        return f"{rel(self.page)}:{self.line}"

    @property
    def mark_names(self) -> set[str]:
        return {m.name for m in self.marks}


def page_blocks(page: Path) -> list[Block]:
    """(cached while the file is unchanged: the plugin, the census and the report ask often)"""
    return _page_blocks(*_version(page))


@functools.lru_cache(maxsize=512)
def _page_blocks(page: Path, mtime_ns: int, size: int) -> list[Block]:
    """The python and bash blocks of a page, as pytest-codeblocks extracts them."""
    problems = [e.problem for e in classify(page) if e.problem]
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
    problems = [p for b in blocks for p in cannot_fail(b)]
    if problems:
        raise DocsError("\n".join(problems))
    return blocks


# --------------------------------------------------------------------------- headings


HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{\s*#([\w-]+)[^}]*\})?\s*#*\s*$")


def cannot_fail(block: Block) -> list[str]:
    """Demonstrations of an error that would pass if the error never came: a ``try``
    with no ``else`` whose ``except`` asserts on the error, or prints it
    (``except E as e: print(e)``) in a block whose printed output is not
    verified. A handler that re-raises, and a ``try`` whose body ends in a
    ``raise``, fail without the error anyway."""
    import ast

    if block.language != "python":
        return []
    try:
        tree = ast.parse(block.code)
    except SyntaxError:
        return []  # reported with its page line when the block runs

    def asserts(handler) -> bool:
        return any(isinstance(n, ast.Assert) for n in ast.walk(handler))

    def prints_error(handler) -> bool:
        """``print(e)``: shown to the reader, checked by nothing but a verified output
        (a handler that keeps the error for a later check fails there without it)."""
        return bool(handler.name) and any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print"
            and any(isinstance(m, ast.Name) and m.id == handler.name for m in ast.walk(n))
            for n in ast.walk(handler)
        )

    def reraises(handler) -> bool:
        return any(isinstance(n, ast.Raise) for n in handler.body)

    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try) or node.orelse or isinstance(node.body[-1], ast.Raise):
            continue
        handlers = [h for h in node.handlers if not reraises(h)]
        demo = any(asserts(h) for h in handlers) or (
            block.expected_output is None and any(prints_error(h) for h in handlers)
        )
        if demo:
            page, line = block.line_map[node.lineno - 1]
            found.append(
                f"{page}:{line}: this try/except shows the error it expects but passes when no "
                "error comes: add `else: raise AssertionError(\"expected a …\")`, or print the "
                "message into a verified output"
            )
    return found


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


