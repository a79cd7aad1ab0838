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

from devguide.paths import LANGUAGES, REPO, DocsError, Where, pinned_torch, rel
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
    def at(self) -> Where:
        return Where(rel(self.page), self.line)

    @property
    def where(self) -> str:
        return str(self.at)


def cache_key(page: Path) -> tuple[Path, int, int]:
    """A page's identity for the caches: its path and the size and time of its content."""
    page = Path(page).resolve()
    st = page.stat()
    return page, st.st_mtime_ns, st.st_size


class UnreadablePage(DocsError):
    """A page that is not plain UTF-8; ``line`` is the line of the first bad byte."""


def read_page(page: Path) -> str:
    """(cached while the file is unchanged)"""
    return _read_page(*cache_key(page))


@functools.lru_cache(maxsize=512)
def _read_page(page: Path, mtime_ns: int, size: int) -> str:
    """A page's text, for every reader of its source (the census, the blocks, the
    build): a page that is not plain UTF-8 fails alone, at its line, with what to do.
    A byte that is not UTF-8 (one Latin-1 ``é``) stopped a whole ``-n0`` run; a
    byte-order mark hid the first fence from the census (MkDocs drops it and renders
    that fence; pytest-codeblocks keeps it and does not)."""
    data = Path(page).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        bad = data[exc.start:exc.end].hex(" ").upper()
        raise UnreadablePage(
            rel(page), line,
            f"byte {bad} (column {column}) is not UTF-8: the pages are UTF-8 "
            "text; save the file as UTF-8 in your editor, or convert it with "
            f"`iconv -f latin1 -t utf-8 {rel(page)} -o fixed.md && mv fixed.md {rel(page)}` "
            "(if the text was Latin-1)",
        ) from None
    if "\ufeff" in text:
        line = text.count("\n", 0, text.index("\ufeff")) + 1
        raise UnreadablePage(
            rel(page), line,
            "a byte-order mark (U+FEFF, bytes EF BB BF) is in the page: the "
            "harness and the site would read the fences after it differently; remove it (save as "
            f"UTF-8 without BOM, or `sed -i 's/\\xEF\\xBB\\xBF//g' {rel(page)}`)",
        )
    return text


def scan_fences(page: Path) -> list[Fence]:
    """(cached while the file is unchanged: the plugin, the census and the report ask often)"""
    return _scan_fences(*cache_key(page))


@functools.lru_cache(maxsize=512)
def _scan_fences(page: Path, mtime_ns: int, size: int) -> list[Fence]:
    """Every fenced block of a Markdown page, whatever its fence or info string."""
    return fences_in(read_page(page).splitlines(), page)


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
                rel(page), i + 1, f"fence {ticks}{m.group('info')} is never closed: "
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
    problem_line: int = 0  # the line the (first) problem is at, when not ``line`` (a comment's, a marker's)

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("problem", "problem_line")}


def classify(page: Path) -> list[CensusEntry]:
    """(cached while the file is unchanged: the plugin, the census and the report ask often)"""
    return _classify(*cache_key(page))


@functools.lru_cache(maxsize=512)
def _classify(page: Path, mtime_ns: int, size: int) -> list[CensusEntry]:
    """Classify every fence of a page; entries with ``problem`` set fail the census."""
    entries = []
    try:
        text = read_page(page)
    except UnreadablePage as exc:  # the page fails alone, at the line of its first bad byte
        return [CensusEntry(rel(page), exc.line or 1, "(page)", "ignored", problem=str(exc))]
    first = text.splitlines()[0].strip() if text.strip() else ""
    fences = scan_fences(page)
    previous = None  # the last fence that is not an expected output
    has_output = False  # whether `previous` has its expected output yet
    lines = text.splitlines()
    for f in fences:
        e = _classify_fence(f, previous, has_output, skipfile="skipfile" in first)
        e.problem = e.problem or shown_as_text(lines, f)
        entries.append(e)
        if e.kind == "output":
            has_output = True
        elif e.kind != "continued":
            previous, has_output = f, False
    entries += quoted_fences(page, fences)
    entries += scan_outside_fences_for_snippets(page, fences)
    entries += dangling_markers(page, fences)
    return entries


def _classify_fence(f: Fence, previous: Fence | None, has_output: bool, skipfile: bool) -> CensusEntry:
    """One fence's kind, or its problem; ``previous``: the last fence before it that
    is not an expected output, ``has_output``: whether that one has its output yet."""
    e = CensusEntry(rel(f.page), f.line, f.language or "(none)", "")
    lines = f.comment_lines or [f.line] * len(f.comments)
    found = [(n, comment_problems([c], Where(rel(f.page), n))) for c, n in zip(f.comments, lines, strict=True)]
    e.problem = "\n".join(p for _, problems in found for p in problems)
    e.problem_line = next((n for n, problems in found if problems), 0)
    excuse = None
    try:
        for mark in f.marks:
            value = eval_mark(mark, f.at)
            if value.name == "skip":
                excuse = value.kwargs["reason"]
    except DocsError as exc:
        if not e.problem:
            e.problem, e.problem_line = str(exc), exc.line or 0
    if skipfile:
        e.problem_line = 0
        e.problem = (
            f"{f.where}: <!--pytest-codeblocks:skipfile--> hides every block of the page; "
            f'excuse blocks one by one with <!--pytest.mark.skip(reason="…")-->'
        )
    elif e.problem:
        pass
    elif any(k.startswith("expected-output") for k in f.keywords) or f.variant is not None:
        e.kind = "output"
        e.problem_line, e.problem = _output_problem(f, previous, has_output)
    elif excuse is not None:
        e.kind, e.reason = "excused", excuse
    elif f.ticks[0] == "`" and f.language in EXECUTED:
        _executed_kind(e, f)
    elif f.ticks[0] == "`" and f.language in DISPLAY:
        e.kind = "display"
    else:
        e.kind, e.problem = "ignored", _ignored_problem(f)
    return e


def _output_problem(f: Fence, previous: Fence | None, has_output: bool) -> tuple[int, str]:
    """What is wrong with an expected output, and its line (empty when nothing is): it must be a
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
        return marker, (
            f"{where}: the expected output after {what} "
            f"must be a ```text fence (found {f.ticks}{f.info})"
        )
    if not runnable:
        return marker, (
            f"{where}: {what} follows "
            + (f"the {previous.language or 'plain'} fence at line {previous.line}, which never runs"
               if previous else "no block")
            + ", so this output would never be compared: put it directly after the "
            "```python or ```bash block whose output it is"
        )
    if variant is None and has_output:
        assert previous is not None  # has_output: the block before it
        return marker, (
            f"{where}: a second {what} for the block at line {previous.line}, which has its expected "
            "output already: remove one of the two (a block has one usual output; outputs for other "
            "torch versions are <!--docs:expected-output torch==…--> fences)"
        )
    if variant is not None and not has_output:
        return marker, (
            f"{where}: {what} needs the block's usual output first: put a "
            "<!--pytest-codeblocks:expected-output--> fence (the pinned torch's output) above it"
        )
    if variant is not None:
        try:
            spec = torch_specifier(variant, f.at)
        except DocsError as exc:
            return exc.line or marker, str(exc)
        pinned = pinned_torch()
        if spec.contains(pinned, prereleases=True):
            return marker, (
                f"{where}: <!--docs:expected-output {variant}--> covers the pinned torch {pinned} "
                f"(pyproject.toml), so the usual output above it, the one readers see first, would "
                f"never be compared: an output for other versions names only those (e.g. "
                f"<!--docs:expected-output torch<{pinned}-->); if the pinned torch prints this, "
                f"make it the usual output (.venv/bin/python -m pytest {rel(f.page)} --update-outputs)"
            )
    return 0, ""


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


# --------------------------------------------------------------------------- what the site renders
# The census must see the fences the site renders as code, and only those (checked by
# rendering every page with mkdocs.yml's Markdown extensions: tests/content/test_rendered_fences.py).

QUOTED_FENCE = re.compile(r"^\s*(?:>\s?)+\s*(?P<ticks>`{3,}|~{3,})(?P<info>.*)$")
CONTAINER = re.compile(r"^(?:(?:[-*+]|\d+[.)])\s|!!!|\?\?\?|===)")


def columns(indent: str) -> int:
    """The width of an indentation, a tab reaching the next multiple of 4 (as Markdown counts)."""
    width = 0
    for c in indent:
        width = (width // 4 + 1) * 4 if c == "\t" else width + 1
    return width


def shown_as_text(lines: list[str], f: Fence) -> str:
    """A fence indented by 4 columns or more outside a list item, an admonition or a
    tab is an indented code block to Markdown: the site shows it as plain text, its
    backticks included, while pytest-codeblocks (which strips any indentation) runs
    it. Empty when the fence is rendered as the fence it is."""
    opening = FENCE.match(lines[f.line - 1])
    assert opening is not None  # f is a fence: its line opens one
    fence_width = width = columns(opening.group("indent"))
    n = f.line - 1  # 0-based index of the fence's line
    adjacent = True  # no blank line yet between the fence and the line looked at
    while width >= 4:
        n -= 1
        while n >= 0 and not lines[n].strip():
            n, adjacent = n - 1, False
        if n < 0:
            break
        line = lines[n]
        indent = columns(line[: len(line) - len(line.lstrip())])
        if adjacent and not CONTAINER.match(line.lstrip()):
            return ""  # right under a line of text: a fence may interrupt a paragraph
        if indent >= width:
            adjacent = False
            continue
        while n > 0 and lines[n - 1].strip() and not CONTAINER.match(line.lstrip()):
            n -= 1  # a paragraph's later lines belong to where its first line stands
            line = lines[n]
            indent = columns(line[: len(line) - len(line.lstrip())])
        if CONTAINER.match(line.lstrip()):
            # the fence is in this list item, admonition or tab, whose content starts 4
            # columns in (Python-Markdown's rule); 4 more make an indented code block
            if fence_width - indent < 8:
                return ""
            break
        if indent < 4:
            break  # text outside any container (a list item's text is indented by 4)
        width = indent  # text in a container: look for the container above it
    else:
        return ""
    return (
        f"{f.where}: fence {f.ticks}{f.info} is indented by {fence_width} "
        "columns (a tab counts 4) outside a list item or admonition: the site shows it as plain text, "
        "backticks included, while the harness would run it: remove the indentation (indent with "
        "spaces, and only inside the list item or admonition the block belongs to)"
    )


def quoted_fences(page: Path, fences: list[Fence]) -> list[CensusEntry]:
    """A fence inside a quote (``> ```python``) is rendered as a code block, but
    pytest-codeblocks never sees it: never run and never counted. Refused, unless it
    only shows text (```text and the other display languages)."""
    inside: set[int] = set()
    for f in fences:
        inside.update(range(f.line, f.end + 1))
    found = []
    for n, line in enumerate(read_page(page).splitlines(), 1):
        m = QUOTED_FENCE.match(line)
        if n in inside or not m or (m.group("ticks")[0] == "`" and m.group("info").strip() in DISPLAY):
            continue
        info = m.group("info").strip()
        if not info:  # the closing fence of a quoted block
            continue
        found.append(CensusEntry(rel(page), n, info, "ignored", problem=(
            f"{rel(page)}:{n}: fence {m.group('ticks')}{info} inside a quote (>) is shown as a code "
            "block but the harness never sees it, so it is never run: take the block out of the quote "
            "(an admonition, !!! note, holds blocks that run), or show it as ```text")))
    return found


def scan_outside_fences_for_snippets(page: Path, fences: list[Fence]) -> list[CensusEntry]:
    """Includes outside fences would hide fences from the census: refuse them."""
    inside: set[int] = set()
    for f in fences:
        inside.update(range(f.line, f.end + 1))
    found = []
    for n, line in enumerate(read_page(page).splitlines(), 1):
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
    inside: set[int] = set()
    starts = {f.line for f in fences}
    for f in fences:
        inside.update(range(f.line + 1, f.end + 1))
    found, pending = [], []
    lines = read_page(page).splitlines()
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

    inside: set[int] = set()
    for f in scan_fences(page):
        inside.update(range(f.line, f.end + 1))
    found = []
    for n, line in enumerate(read_page(page).splitlines(), 1):
        if n in inside:
            continue
        m = HEADING.match(line)
        if m:
            anchor = m.group(3) or slugify(m.group(2), "-")
            found.append((n, m.group(1), anchor))
    return found


