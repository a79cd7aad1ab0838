"""Code without its comments: what the two languages of a block must share.

A Chinese block's comments are Chinese and its English twin's are English; the
code itself is the same. ``code_tokens`` reduces a block to what must agree --
Python's tokens (``tokenize``) less comments and blank lines, a ``bash`` block's
lines less their ``#`` comments outside quotes and here-documents -- each with the
line of the block it starts on, so that a difference is named at its page line.
``parity`` compares these; ``without_comments``, the same reduction as plain text
lines (the same on every Python version), is what ``census.signature`` (twins run
once, results that stand) keys on: comments never change what a block does.

A script the block writes or runs as text -- a triple-quoted Python string handed to
``python -c`` or written to a file, a bash here-document that writes a ``.py`` file
(``cat > x.py <<'PY'``) -- is code too, and its comments are comments: each language
writes them in its own words, and they are left out and reported like the block's own.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import NamedTuple


class Token(NamedTuple):
    """One piece of code that must agree across languages, and its 1-based line in the block."""

    text: tuple
    line: int


def code_tokens(code: str, language: str) -> list[Token]:
    """``code`` without comments, as tokens to compare (see the module's docstring).
    Code that does not tokenize, and other languages (an expected output), compare as
    written, whole."""
    if language == "python":
        try:
            return _python_tokens(code)
        except (tokenize.TokenError, SyntaxError):
            pass
    elif language in ("bash", "sh"):
        return [Token((text,), n) for n, text in _bash_lines(code)]
    return [Token((code,), 1)]


def without_comments(code: str, language: str) -> tuple:
    """What two blocks share when their code is the same but for comments: the
    census's hash of a block (``census.signature``) is made of it, so it must not
    depend on the Python that computes it. Python's token types are numbered
    differently from one version to the next (``OP`` is 54 in 3.11, 55 in 3.12) and
    3.12 splits f-strings into several tokens: a GPU machine's Python 3.12 gave
    every Python block another hash than the site's 3.11 did. So a Python block is
    reduced to its lines with the comments (found by ``tokenize``) cut off, trailing
    spaces removed and blank lines dropped: the same text on every version (blank
    lines and trailing spaces inside a triple-quoted string do not count either).
    Code that does not tokenize is taken as written; which code that is can differ
    between versions (no block of the pages is such code: parity compiles them)."""
    if language == "python":
        try:
            return tuple((line,) for line in _python_lines(code))
        except (tokenize.TokenError, SyntaxError):
            return ((code,),)
    return tuple(t.text for t in code_tokens(code, language))


def _script_comments(t: tokenize.TokenInfo) -> list[tuple[int, int, str]]:
    """(line, column, text) in the block of each comment of the Python script that a
    triple-quoted string token holds: none for other strings, for a string whose text
    is not written as it reads (escapes), or for text that is not Python."""
    if t.type != tokenize.STRING or "\n" not in t.string:
        return []
    m = re.match(r"(?i)([rbuf]*)(\"\"\"|''')", t.string)
    if not m or "b" in m.group(1).lower() or "f" in m.group(1).lower():
        return []
    try:
        value = ast.literal_eval(t.string)
        inner = list(tokenize.generate_tokens(io.StringIO(value).readline))
    except (ValueError, SyntaxError, tokenize.TokenError, IndentationError):
        return []
    opening = len(m.group(0))
    if t.string[opening:-3] != value:  # escapes: columns would not match the page
        return []
    row, column = t.start
    return [
        (row + c.start[0] - 1, c.start[1] + (column + opening if c.start[0] == 1 else 0), c.string)
        for c in inner
        if c.type == tokenize.COMMENT
    ]


def _python_comments(code: str) -> list[tuple[int, int, str]]:
    """(line, column, text) of each comment of a Python block, those of the scripts its
    strings hold included, in the order of the page."""
    found = []
    for t in tokenize.generate_tokens(io.StringIO(code).readline):
        if t.type == tokenize.COMMENT:
            found.append((t.start[0], t.start[1], t.string))
        else:
            found.extend(_script_comments(t))
    return found


def _python_lines(code: str) -> list[str]:
    cut = {row: column for row, column, _ in _python_comments(code)}
    # split at \n as tokenize does (splitlines also splits at \x0c, \u2028…, which would
    # put a comment's column on the wrong line)
    lines = (line[:cut[n]] if n in cut else line for n, line in enumerate(code.split("\n"), 1))
    return [line.rstrip() for line in lines if line.strip()]


def has_comments(code: str, language: str) -> bool:
    """Does ``code`` hold a comment (one that a translation would put in its own words)?"""
    if language == "python":
        try:
            return bool(_python_comments(code))
        except (tokenize.TokenError, SyntaxError):
            return "#" in code
    if language in ("bash", "sh"):
        kept = dict(_bash_lines(code))
        lines = code.splitlines()
        return any(kept.get(n, "") != line.rstrip() for n, line in enumerate(lines, 1) if line.strip())
    return False


def comment_texts(code: str, language: str) -> list[tuple[int, str]]:
    """(line in the block, text) of each comment of ``code``, without its ``#``: what a
    translation writes (checked like prose, e.g. for the glossary's terms)."""
    if language == "python":
        try:
            return [(row, text.lstrip("#").strip()) for row, _, text in _python_comments(code)]
        except (tokenize.TokenError, SyntaxError):
            return []
    if language in ("bash", "sh"):
        kept = dict(_bash_lines(code))
        return [
            (n, line[len(kept.get(n, "")):].strip().lstrip("#").strip())
            for n, line in enumerate(code.splitlines(), 1)
            if line.strip() and kept.get(n, "") != line.rstrip()
        ]
    return []


def _python_tokens(code: str) -> list[Token]:
    found = []
    for t in tokenize.generate_tokens(io.StringIO(code).readline):
        if t.type in (tokenize.COMMENT, tokenize.NL):
            continue
        # the column keeps the code's own spacing; a NEWLINE's column is the end of the
        # line's comment, so it has none
        column = None if t.type in (tokenize.NEWLINE, tokenize.ENDMARKER) else t.start[1]
        found.append(Token((t.type, _without_script_comments(t), column), t.start[0]))
    return found


def _without_script_comments(t: tokenize.TokenInfo) -> str:
    """A string token's text less the comments of the script it holds (and the lines
    they leave empty); any other token as it is."""
    inner = _script_comments(t)
    if not inner:
        return t.string
    cut = {row - t.start[0]: column - (t.start[1] if row == t.start[0] else 0) for row, column, _ in inner}
    lines = t.string.split("\n")
    kept = [line[:cut[n]].rstrip() if n in cut else line for n, line in enumerate(lines)]
    return "\n".join(line for n, line in enumerate(kept) if n not in cut or line.strip())


HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")


def _bash_lines(code: str) -> list[tuple[int, str]]:
    """(line, text) of each line of a bash block with its comment cut off and trailing
    spaces removed; lines left empty are dropped. A ``#`` starts a comment where it
    starts a word outside quotes (``$#``, ``${#x}`` and ``a#b`` are not comments);
    here-document bodies are kept as they are, but for the comments of a Python
    script (``cat > x.py <<'PY'``: a delimiter PY or a ``.py`` on its line)."""
    quote, heredoc, python = "", None, False
    found: list[tuple[int, str]] = []
    body: list[tuple[int, str]] = []
    for n, line in enumerate(code.splitlines(), 1):
        if heredoc is not None:
            if line.strip() == heredoc:  # (<<- strips leading tabs; strip() is enough here)
                found.extend(_python_body(body) if python else body)
                heredoc, body = None, []
                found.append((n, line))
            else:
                body.append((n, line))
            continue
        kept: list[str] = []
        i, previous = 0, " "
        while i < len(line):
            c = line[i]
            if quote:
                if c == "\\" and quote == '"':
                    kept.append(line[i:i + 2])
                    i += 2
                    continue
                if c == quote:
                    quote = ""
            elif c == "\\":
                kept.append(line[i:i + 2])
                previous = "x"
                i += 2
                continue
            elif c in "'\"":
                quote = c
            elif c == "#" and (previous.isspace() or previous in ";|&()"):
                break
            kept.append(c)
            previous = c
            i += 1
        text = "".join(kept).rstrip()
        if not quote:
            m = HEREDOC.search(text)
            if m:
                heredoc = m.group(2)
                python = heredoc == "PY" or ".py" in text
        if text.strip() or quote:
            found.append((n, text))
    found.extend(body)  # a here-document left open: as written
    return found


def _python_body(body: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """A here-document's Python lines with their comments cut off (lines left empty
    dropped); as written if they are not Python."""
    try:
        cut = {row: column for row, column, _ in _python_comments("\n".join(line for _, line in body) + "\n")}
    except (tokenize.TokenError, SyntaxError):
        return body
    kept = [(n, line[:cut[i]].rstrip() if i in cut else line) for i, (n, line) in enumerate(body, 1)]
    return [(n, line) for i, (n, line) in enumerate(kept, 1) if i not in cut or line.strip()]
