"""Pages and their fences: the only parser.

* ``scan_fences`` -- every fence of a page, whatever its fence or info string,
  with the HTML comments right above it (``fences_in`` for Markdown that is not
  a file);
* ``classify`` -- each fence as run / CUDA-, MPS- or XPU-only / excused / output / display, or a
  problem that names the page line and what to write (pytest-codeblocks would
  silently skip ```` ```py ````, ``~~~python`` and friends; this catches them);
  the comments above a fence are read by ``devguide.source.marks``;
* ``heading_anchors``, ``pages``, ``notebooks``.

The runnable blocks these fences hold, as pytest-codeblocks extracts them, are
``devguide.source.blocks.page_blocks``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from devguide.paths import LANGUAGES, REPO, DocsError, pinned_torch, rel
from devguide.source.marks import (
    DEVICE_MARKS,
    MARKS,
    VARIANT,
    comment_problems,
    eval_mark,
    mark_name,
    torch_specifier,
)

# Fence languages the harness executes.
EXECUTED = {"python", "bash"}
# Fence languages that show something and are never run (program output, config).
DISPLAY = {"text", "json", "yaml", "toml", "ini", "diff", "html", "markdown"}
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
    comment_lines: list[int] = field(default_factory=list)  # the page line of each comment

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


def cache_key(page: Path) -> tuple[Path, int, int]:
    """A page's identity for the caches: its path and the size and time of its content."""
    page = Path(page).resolve()
    st = page.stat()
    return page, st.st_mtime_ns, st.st_size


def scan_fences(page: Path) -> list[Fence]:
    """(cached while the file is unchanged: the plugin, the census and the report ask often)"""
    return _scan_fences(*cache_key(page))


@functools.lru_cache(maxsize=512)
def _scan_fences(page: Path, mtime_ns: int, size: int) -> list[Fence]:
    """Every fenced block of a Markdown page, whatever its fence or info string."""
    return fences_in(Path(page).read_text(encoding="utf-8").splitlines(), page)


def fences_in(lines: list[str], page: Path) -> list[Fence]:
    """The fences of Markdown given as lines (``page`` names it in messages): what
    ``scan_fences`` reads from a file, for Markdown that is not one (a converted notebook)."""
    fences, comments, comment_lines, i = [], [], [], 0
    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if not m:
            c = COMMENT.match(line)
            if c:
                comments.append(c.group("body"))
                comment_lines.append(i + 1)
            elif line.strip():
                comments, comment_lines = [], []
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
        fences.append(Fence(Path(page), i + 1, j + 1, ticks, m.group("info"), comments, code, comment_lines))
        comments, comment_lines = [], []
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


def classify(page: Path) -> list[CensusEntry]:
    """(cached while the file is unchanged: the plugin, the census and the report ask often)"""
    return _classify(*cache_key(page))


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
        e = _classify_fence(f, previous, has_output, skipfile="skipfile" in first)
        entries.append(e)
        if e.kind == "output":
            has_output = True
        elif e.kind != "continued":
            previous, has_output = f, False
    entries += scan_outside_fences_for_snippets(page, fences)
    entries += dangling_markers(page, fences)
    return entries


def _classify_fence(f: Fence, previous: Fence | None, has_output: bool, skipfile: bool) -> CensusEntry:
    """One fence's kind, or its problem; ``previous``: the last fence before it that
    is not an expected output, ``has_output``: whether that one has its output yet."""
    e = CensusEntry(rel(f.page), f.line, f.language or "(none)", "")
    lines = f.comment_lines or [f.line] * len(f.comments)
    e.problem = "\n".join(p for c, n in zip(f.comments, lines, strict=True)
                          for p in comment_problems([c], f"{rel(f.page)}:{n}"))
    excuse = None
    try:
        for mark in f.marks:
            value = eval_mark(mark, f.where)
            if value.name == "skip":
                excuse = value.kwargs["reason"]
    except DocsError as exc:
        e.problem = e.problem or str(exc)
    if skipfile:
        e.problem = (
            f"{f.where}: <!--pytest-codeblocks:skipfile--> hides every block of the page; "
            f'excuse blocks one by one with <!--pytest.mark.skip(reason="…")-->'
        )
    elif e.problem:
        pass
    elif any(k.startswith("expected-output") for k in f.keywords) or f.variant is not None:
        e.kind = "output"
        e.problem = _output_problem(f, previous, has_output)
    elif excuse is not None:
        e.kind, e.reason = "excused", excuse
    elif f.ticks[0] == "`" and f.language in EXECUTED:
        _executed_kind(e, f)
    elif f.ticks[0] == "`" and f.language in DISPLAY:
        e.kind = "display"
    else:
        e.kind, e.problem = "ignored", _ignored_problem(f)
    return e


def _output_problem(f: Fence, previous: Fence | None, has_output: bool) -> str:
    """What is wrong with an expected output (empty when nothing is): it must be a
    ```text fence right after the python or bash block it belongs to, and an output
    for other torch versions comes after the usual one and names them readably."""
    is_output = any(k.startswith("expected-output") for k in f.keywords)
    variant = f.variant
    what = "<!--pytest-codeblocks:expected-output-->" if is_output else f"<!--docs:expected-output {variant}-->"
    runnable = previous is not None and previous.ticks[0] == "`" and previous.language in EXECUTED
    # the marker's own line (the fence's where the comments have no lines)
    marker = next((n for c, n in zip(f.comments, f.comment_lines, strict=False) if MARKER.match(c)), f.line)
    where = f"{rel(f.page)}:{marker}"
    if f.ticks[0] != "`" or f.language != "text":
        return (
            f"{where}: the expected output after {what} "
            f"must be a ```text fence (found {f.ticks}{f.info})"
        )
    if not runnable:
        return (
            f"{where}: {what} follows "
            + (f"the {previous.language or 'plain'} fence at line {previous.line}, which never runs"
               if previous else "no block")
            + ", so this output would never be compared: put it directly after the "
            "```python or ```bash block whose output it is"
        )
    if variant is None and has_output:
        return (
            f"{where}: a second {what} for the block at line {previous.line}, which has its expected "
            "output already: remove one of the two (a block has one usual output; outputs for other "
            "torch versions are <!--docs:expected-output torch==…--> fences)"
        )
    if variant is not None and not has_output:
        return (
            f"{where}: {what} needs the block's usual output first: put a "
            "<!--pytest-codeblocks:expected-output--> fence (the pinned torch's output) above it"
        )
    if variant is not None:
        try:
            spec = torch_specifier(variant, f.where)
        except DocsError as exc:
            return str(exc)
        pinned = pinned_torch()
        if spec.contains(pinned, prereleases=True):
            return (
                f"{where}: <!--docs:expected-output {variant}--> covers the pinned torch {pinned} "
                f"(pyproject.toml), so the usual output above it, the one readers see first, would "
                f"never be compared: an output for other versions names only those (e.g. "
                f"<!--docs:expected-output torch<{pinned}-->); if the pinned torch prints this, "
                f"make it the usual output (.venv/bin/python -m pytest {rel(f.page)} --update-outputs)"
            )
    return ""


def _executed_kind(e: CensusEntry, f: Fence) -> None:
    """A python or bash fence: a continuation, a block for one device, or a plain block."""
    if "cont" in f.keywords:
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


def _ignored_problem(f: Fence) -> str:
    """A fence the harness would silently ignore (```py, ~~~python, no language…): what to write."""
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
    return (
        f"{f.where}: fence {f.ticks}{f.info} would be silently ignored by the harness: "
        f'{hint}; or excuse it with <!--pytest.mark.skip(reason="…")--> on the line above'
    )


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


MARKER = re.compile(r"^\s*(?:[-\s]*pytest-codeblocks:|pytest\.mark\.|docs:expected-output\b)")


def dangling_markers(page: Path, fences: list[Fence]) -> list[CensusEntry]:
    """A marker (``<!--pytest-codeblocks:expected-output-->``, a mark, a variant) that
    text, not a fence, follows applies to nothing: the author believes an output is
    compared, or a block marked, and nothing is. Each one is a problem at its own line."""
    inside, starts = set(), {f.line for f in fences}
    for f in fences:
        inside.update(range(f.line + 1, f.end + 1))
    found, pending = [], []
    lines = Path(page).read_text(encoding="utf-8").splitlines()
    for n, line in enumerate([*lines, "(end of the page)"], 1):
        if n in inside:
            continue
        c = COMMENT.match(line) if n <= len(lines) else None
        if c and MARKER.match(c.group("body")):
            pending.append((n, c.group("body")))
        elif n in starts:
            pending = []
        elif (line.strip() and not c) or n > len(lines):
            follows = "the end of the page" if n > len(lines) else f"text (line {n})"
            found += [CensusEntry(rel(page), k, "marker", "ignored", problem=(
                f"{rel(page)}:{k}: <!--{body.strip()}--> is followed by {follows}, not by a fence, so it "
                "applies to nothing (an output it announces is never compared): put it directly above "
                "the fence it is for (only blank lines or other such comments between), or remove it"))
                for k, body in pending]
            pending = []
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


