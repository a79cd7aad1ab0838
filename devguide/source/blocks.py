"""The runnable blocks of a page, as pytest-codeblocks extracts them.

pytest-codeblocks stays the extractor of the blocks (``page_blocks`` calls its
``extract_from_buffer``, as the design requires); the fences it reads are the
ones ``devguide.source.fences`` scans and classifies (a page with a problem has no
blocks: its problems are raised). Each ``Block`` has:

* its code with its continuations (``<!--pytest-codeblocks:cont-->``) and its
  includes expanded (``expand_snippet_line``, pymdownx.snippets' own code), and
  a map from each code line to the page (or snippet) line it came from, so
  failures name that line;
* its marks (``devguide.source.marks``) and its expected outputs: the usual one and
  those for other torch versions (``expected_for``).

``cannot_fail`` refuses a demonstration of an error that would pass if the error never came.
"""

from __future__ import annotations

import functools
import linecache
import re
from dataclasses import dataclass, field
from pathlib import Path

import markdown
from pytest_codeblocks.main import CodeBlock, extract_from_buffer

from devguide.paths import REPO, DocsError, Where, pinned_torch, rel
from devguide.source.fences import (
    EXECUTED,
    SNIPPET_LINE,
    Fence,
    cache_key,
    classify,
    scan_fences,
)
from devguide.source.marks import eval_mark, torch_specifier

_snippets = None


def expand_snippet_line(line: str, where: Where) -> list[str]:
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
        raise DocsError.at(
            where, f"{exc}; snippet paths are relative to the repository root "
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

    def matches(self, expected: str, actual: str) -> bool:
        """Is ``actual`` the ``expected`` output? Exactly, or, under
        ``<!--pytest-codeblocks:expected-output-ignore-whitespace-->``, once every run
        of whitespace (spaces, tabs, line breaks) is one space and the ends are
        trimmed: ``[1 2 3]`` is ``[1  2\n3]`` but not ``[12 3]`` (removing all
        whitespace, as pytest-codeblocks does, made those two equal)."""
        if not self.ignore_whitespace:
            return expected == actual
        return " ".join(expected.split()) == " ".join(actual.split())

    def expected_for(self, version: str) -> tuple[str | None, Fence | None]:
        """The expected output (and its fence) for this torch version. On the pinned
        torch it is always the usual one, the output readers see first (the census
        refuses a variant that covers the pinned torch)."""
        if version == pinned_torch():
            return self.expected_output, self.output_fence
        for spec, text, fence in self.variants:
            # prereleases=True: a release candidate of 2.16 is "torch>=2.15" too
            if torch_specifier(spec, Where(rel(self.page), fence.line)).contains(version, prereleases=True):
                return text, fence
        return self.expected_output, self.output_fence

    @property
    def at(self) -> Where:
        return Where(rel(self.page), self.line)

    @property
    def where(self) -> str:
        return str(self.at)

    @property
    def mark_names(self) -> set[str]:
        return {m.name for m in self.marks}


def page_blocks(page: Path) -> list[Block]:
    """(cached while the file is unchanged: the plugin, the census and the report ask often)"""
    return _page_blocks(*cache_key(page))


PAGE_MOST_LINES = 10_000  # pytest-codeblocks' extract_from_buffer(max_num_lines=…) default


@functools.lru_cache(maxsize=512)
def _page_blocks(page: Path, mtime_ns: int, size: int) -> list[Block]:
    """The python and bash blocks of a page, as pytest-codeblocks extracts them."""
    failing = [e for e in classify(page) if e.problem]
    if failing:
        first = failing[0]
        raise DocsError.grouped(Where(first.page, first.problem_line or first.line), [e.problem for e in failing])
    fences = scan_fences(page)
    by_line = {f.line: f for f in fences}
    with open(page, encoding="utf-8") as handle:
        try:
            extracted: list[CodeBlock] = extract_from_buffer(handle, max_num_lines=PAGE_MOST_LINES)
        except RuntimeError as exc:  # pytest-codeblocks' parser; the census catches most first
            if str(exc).startswith("File too large"):  # its advice ("Set max_num_lines") is not the author's to follow
                lines = sum(1 for _ in open(page, encoding="utf-8"))
                raise DocsError(rel(page), 1, f"the page has {lines:,} lines, and pytest-codeblocks reads at most "
                                f"{PAGE_MOST_LINES:,}: split it into pages of fewer lines (each with its twin, "
                                f"in mkdocs.yml's nav)") from None
            raise DocsError(rel(page), 1, str(exc)) from None
    pieces, outputs, variants = _parts(fences)
    blocks = []
    for cb in extracted:
        if cb.syntax not in EXECUTED:
            continue
        where = Where(rel(page), cb.lineno)
        fence = by_line.get(cb.lineno)
        if fence is None:  # pragma: no cover - both parsers read the same fences
            raise DocsError.at(where, "fence not found by the census scanner")
        if sorted(m.strip() for m in cb.marks) != sorted(fence.marks):
            raise DocsError.at(
                where, "a mark comment is separated from its fence by text: put "
                "<!--pytest.mark.…--> comments directly above the fence they mark"
            )
        code, line_map = _code_and_lines(page, pieces[cb.lineno])
        blocks.append(
            Block(
                page=Path(page),
                line=cb.lineno,
                language=cb.syntax,
                code=code,
                line_map=line_map,
                marks=[eval_mark(m.strip(), where) for m in cb.marks],
                expected_output=cb.expected_output,
                ignore_whitespace=cb.expected_output_ignore_whitespace,
                output_fence=outputs.get(cb.lineno),
                variants=variants.get(cb.lineno, []),
            )
        )
    problems = [p for b in blocks for p in (*cannot_fail(b), *hides_its_failure(b))]
    if problems:
        raise DocsError.grouped(Where(problems[0].path, problems[0].line or 1), problems)
    return blocks


def _parts(fences: list[Fence]):
    """Each block's parts by the line of its opening fence, in page order: its pieces
    (the fence and its continuations, for the line maps), its expected output's
    fence, and its outputs for other torch versions (specifier, text, fence)."""
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
            torch_specifier(f.variant, f.at)
            variants.setdefault(owner.line, []).append((f.variant, f.code, f))
        else:
            owner = f
            pieces[f.line] = [f]
    return pieces, outputs, variants


def _code_and_lines(page: Path, pieces: list[Fence]) -> tuple[str, list[tuple[str, int]]]:
    """A block's code, includes expanded, and the page or snippet line of each code line."""
    code, line_map = [], []
    for piece in pieces:
        for n, text in enumerate(piece.code.splitlines(), piece.line + 1):
            if SNIPPET_LINE.match(text):
                source = text.split("8<", 1)[1].strip(" -\"'")
                expanded = expand_snippet_line(text, Where(rel(page), n))
                for k, included in enumerate(expanded, 1):
                    code.append(included)
                    line_map.append((source.split(":", 1)[0], k))
            else:
                code.append(text)
                line_map.append((rel(page), n))
    return "\n".join(code) + "\n", line_map


def cannot_fail(block: Block) -> list[DocsError]:
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
            found.append(DocsError(
                page, line, "this try/except shows the error it expects but passes when no "
                "error comes: add `else: raise AssertionError(\"expected a …\")`, or print the "
                "message into a verified output"
            ))
    return found


# ``set +e``, ``set +o pipefail`` and friends: each option the runner starts bash with
# (``bash -euo pipefail``, devguide/run/zygote.py) that makes a failing command fail the block
FAILURE_OPTIONS = {"e": "errexit", "errexit": "errexit", "pipefail": "pipefail"}


def hides_its_failure(block: Block) -> list[DocsError]:
    """A bash block that switches off its own failure (``set +e``, ``set +o pipefail``,
    ``shopt -u -o errexit``) passes whatever its commands do: it is refused at the
    line that does it, unless the block is excused (``skip(reason=…)``: shown, not run)."""
    import shlex

    from devguide.source.comments import _bash_lines

    if block.language != "bash" or "skip" in block.mark_names:
        return []
    found = []
    for n, text in _bash_lines(block.code):
        for command in re.split(r";|&&|\|\||\||&|\(|\)|\{|\}|\bthen\b|\bdo\b|\belse\b", text):
            try:
                words = shlex.split(command)
            except ValueError:
                words = command.split()
            off = _options_switched_off(words)
            if off:
                page, line = block.line_map[n - 1]
                found.append(DocsError(
                    page, line, f"`{command.strip()}` switches off {' and '.join(off)}, so this bash "
                    "block would pass even when a command in it fails (the harness runs bash blocks "
                    "with -euo pipefail): leave the options on, and show an expected failure with "
                    "`if command; then exit 1; fi`; or, for a block that is only shown, excuse it "
                    'with <!--pytest.mark.skip(reason="…")-->'
                ))
    return found


def _options_switched_off(words: list[str]) -> list[str]:
    """The failure options (``FAILURE_OPTIONS``) that ``set …`` or ``shopt -u -o …``
    in ``words`` switches off."""
    if not words:
        return []
    off = []
    if words[0] == "set":
        args, i = words[1:], 0
        while i < len(args):
            arg = args[i]
            if arg.startswith("+") and len(arg) > 1:
                flags = arg[1:]
                off += [FAILURE_OPTIONS[f] for f in flags if f in FAILURE_OPTIONS]
                if "o" in flags and i + 1 < len(args):  # +o NAME (also +eo NAME)
                    i += 1
                    if args[i] in FAILURE_OPTIONS:
                        off.append(FAILURE_OPTIONS[args[i]])
            i += 1
    elif words[0] == "shopt" and any(w.startswith("-") and "u" in w for w in words[1:]):
        off += [FAILURE_OPTIONS[w] for w in words[1:] if w in ("errexit", "pipefail")]
    return list(dict.fromkeys(off))


# --------------------------------------------------------------------------- compiling
# (here, not beside the runner: the zygote compiles and numbers blocks, and its client
# starts the zygote by name, so neither may import the other)


class BlockFailure(Exception):
    """A block failed; the message is ready to show to the reader."""


NUMBERED_MOST = 60  # lines of a block a failure lists; a longer block shows its first and last lines


def numbered(block: Block) -> str:
    """The block's lines with their page lines, for a failure report. A block longer than
    ``NUMBERED_MOST`` lines shows its first and last ones (issue 39, H26: a failing 9,900-line
    block made a report of 9,926 lines); the traceback names the failing line."""
    width = max(len(f"{p}:{n}") for p, n in block.line_map) if block.line_map else 0
    lines = [f"  {f'{p}:{n}':>{width}} | {text}"
             for (p, n), text in zip(block.line_map, block.code.splitlines(), strict=False)]
    if len(lines) > NUMBERED_MOST:
        half = NUMBERED_MOST // 2
        lines = [*lines[:half], f"  [… {len(lines) - 2 * half} lines of the block left out: the traceback "
                 f"names the failing one …]", *lines[-half:]]
    return "\n".join(lines)


def compiled(block: Block):
    """Compile a python block; syntax errors name the page line."""
    filename = f"<{block.where}>"
    linecache.cache[filename] = (len(block.code), None, block.code.splitlines(True), filename)
    try:
        return compile(block.code, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        p, n = block.line_map[(exc.lineno or 1) - 1] if block.line_map else (rel(block.page), block.line)
        raise BlockFailure(f"{p}:{n}: SyntaxError: {exc.msg}\n\n{numbered(block)}") from None
