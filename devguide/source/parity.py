"""Parity: every page exists in both languages with the same code, outputs and anchors.

``fix`` copies the code blocks and expected outputs of one language's page into
its twin, leaving the prose alone: ``python -m devguide parity --fix``.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from devguide.paths import DEFAULT_LANGUAGE, DOCS, LANGUAGES, REPO, DocsError, rel
from devguide.source.comments import code_tokens, has_comments, without_comments
from devguide.source.fences import (
    COMMENT,
    EXECUTED,
    HEADING,
    Fence,
    heading_anchors,
    notebook_code_cells,
    read_page,
    scan_fences,
)

# --------------------------------------------------------------------------- parity


def page_pair(arg: str) -> list[Path]:
    """Both languages of a page (``.md``) or of a notebook (jupytext ``.py``)."""
    name = arg.strip("/")
    for lang in LANGUAGES:
        name = name.removeprefix(f"docs/{lang}/")
    suffix = ".py" if name.endswith(".py") else ".md"
    name = name.removesuffix(".md").removesuffix(".py")
    if suffix == ".md" and not (DOCS / DEFAULT_LANGUAGE / f"{name}.md").exists():
        if (DOCS / DEFAULT_LANGUAGE / f"{name}.py").exists():
            suffix = ".py"  # devguide page getting-started/device-tour: a notebook
    return [DOCS / lang / f"{name}{suffix}" for lang in LANGUAGES]


def twins(docs: Path | None = None):
    """(zh, en) path pairs, and the pages that miss their twin."""
    docs = docs or REPO / "docs"
    found: dict = {}
    for lang in LANGUAGES:
        root = docs / lang
        for p in [*root.rglob("*.md"), *root.rglob("*.py")]:
            found.setdefault(p.relative_to(root), {})[lang] = p
    pairs, missing = [], []
    for relpath, langs in sorted(found.items()):
        if set(langs) == set(LANGUAGES):
            pairs.append((langs[LANGUAGES[0]], langs[LANGUAGES[1]]))
        for lang in LANGUAGES:
            if lang not in langs:
                (have,) = langs.values()
                missing.append(
                    f"{rel(have)}:1: has no twin docs/{lang}/{relpath.as_posix()}: "
                    "write the page in both languages (same code, translated prose)"
                )
    return pairs, missing


def code_sequence(page):
    """What must be identical across languages: runnable code (without its comments,
    ``devguide.source.comments``), marks, outputs. Each entry: (fence, what must agree)."""
    return [
        (f, (f.language, sorted(f.marks), [*f.keywords, f.variant], without_comments(f.code, f.language)))
        for f in scan_fences(page)
        if _code_like(f)
    ]


def first_difference(a: Fence, b: Fence) -> tuple[int, int]:
    """Page lines of the first token where two fences' code (comments left out) differs."""
    ta, tb = code_tokens(a.code, a.language), code_tokens(b.code, b.language)
    for x, y in zip(ta, tb, strict=False):
        if x.text != y.text:
            return a.line + x.line, b.line + y.line
    shorter = min(len(ta), len(tb))
    la = a.line + (ta[shorter].line if shorter < len(ta) else max(1, len(a.code.splitlines())))
    lb = b.line + (tb[shorter].line if shorter < len(tb) else max(1, len(b.code.splitlines())))
    return la, lb


def _cells_differ(zh: Path, en: Path) -> list[str]:
    a, b = notebook_code_cells(zh), notebook_code_cells(en)
    if len(a) == len(b) and all(
        without_comments(x, "python") == without_comments(y, "python") for x, y in zip(a, b, strict=True)
    ):
        return []
    diff = "\n".join(difflib.unified_diff("\n\n".join(a).splitlines(), "\n\n".join(b).splitlines(), rel(zh), rel(en), lineterm=""))
    return [
        f"{rel(zh)}: notebook code cells differ from {rel(en)} "
        f"(comments may differ, the code may not):\n{diff}"
    ]


COPY_HINT = (
    "to fix: make the two agree by hand, or copy one language's code, marks and expected outputs "
    "over its twin (the prose stays): .venv/bin/python -m devguide parity --fix --from zh (or --from en)"
)


def _check_hint(page: Path) -> str:
    parts = Path(page).with_suffix("").parts
    starts = [i for i in range(len(parts) - 2) if parts[i] == "docs" and parts[i + 1] in LANGUAGES]
    name = "/".join(parts[starts[-1] + 2:]) if starts else parts[-1]
    return f"check the pair again with: .venv/bin/python -m devguide page {name}"


def _what_differs(ka: tuple, kb: tuple) -> list[str]:
    """The parts of two fences that must agree and do not, in words: only those."""
    said = []
    if ka[0] != kb[0]:
        said.append(f"the fence language: zh ```{ka[0]}, en ```{kb[0]}")
    if ka[1] != kb[1]:
        said.append(f"the marks: zh {', '.join(ka[1]) or 'none'}; en {', '.join(kb[1]) or 'none'}")
    if ka[2] != kb[2]:
        def words(k):
            *keywords, variant = k
            return ", ".join([*keywords, *([f"output for {variant}"] if variant else [])]) or "none"
        said.append(f"the pytest-codeblocks markers: zh {words(ka[2])}; en {words(kb[2])}")
    return said


def parity_problems(zh, en):
    """Where the twins disagree: code (comments aside: each language comments in its
    own words), marks, expected outputs, heading anchors. One message per pair: each
    problem at its page line, then what fixes it."""
    problems = []
    if zh.suffix == ".py":
        return _cells_differ(zh, en)
    for page in (zh, en):
        try:
            read_page(page)
        except DocsError as exc:  # a page that is not plain UTF-8 is named alone, at its line
            problems.append(str(exc))
    if problems:
        return problems
    a, b = code_sequence(zh), code_sequence(en)
    for i in range(max(len(a), len(b))):
        if i >= len(a) or i >= len(b):
            (extra, _), page, other = (b[i], en, zh) if i >= len(a) else (a[i], zh, en)
            problems.append(
                f"{rel(page)}:{extra.line}: this fence has no counterpart in {rel(other)}: add it there at "
                "the same place, or remove it here (parity --fix cannot place a fence: the prose decides where)"
            )
            break
        (fa, ka), (fb, kb) = a[i], b[i]
        if ka != kb:
            la, lb = (fa.line, fb.line) if ka[:3] != kb[:3] else first_difference(fa, fb)
            parts = _what_differs(ka, kb)
            head = (f"{rel(zh)}:{la} differs from {rel(en)}:{lb} (the fences at lines {fa.line} and {fb.line}): "
                    + ("; ".join(parts) if parts else "the code must be identical in both languages (comments may differ)"))
            diff = ""
            if ka[3] != kb[3]:
                diff = "\n" + "\n".join(difflib.unified_diff(
                    fa.code.splitlines(), fb.code.splitlines(),
                    f"{rel(zh)} (the fence at line {fa.line})", f"{rel(en)} (the fence at line {fb.line})", lineterm=""))
            problems.append(head + diff + "\n" + COPY_HINT)
            break
    za, ea = heading_anchors(zh), heading_anchors(en)
    ha, hb = [(h[1], h[2]) for h in za], [(h[1], h[2]) for h in ea]
    if ha != hb:
        before = len(problems)
        for line, lvl, anchor in za:
            if (lvl, anchor) not in hb:
                problems.append(f"{rel(zh)}:{line}: heading anchor #{anchor} ({lvl}) is not in {rel(en)}")
        for line, lvl, anchor in ea:
            if (lvl, anchor) not in ha:
                problems.append(f"{rel(en)}:{line}: heading anchor #{anchor} ({lvl}) is not in {rel(zh)}")
        if len(problems) == before:
            problems.append(f"{rel(zh)}:{za[0][0] if za else 1}: headings are in a different order than in {rel(en)}")
        problems.append("give every heading the same explicit anchor in both languages: ## 标题 { #english-anchor }")
    problems += [p for page in (zh, en) for p in implicit_anchors(page)]
    if problems:  # the last line of the message: how to see that it is fixed
        problems[-1] += "\n" + _check_hint(zh)
    return problems


def implicit_anchors(page: Path) -> list[str]:
    """Section headings (``##`` and below) without an explicit ``{ #anchor }``: their anchor
    is made from the title, so editing the title in one language breaks the twin check and
    every link to it. The page's title (``#``) is left out: links name the page, not it."""
    from markdown.extensions.toc import slugify

    found = []
    lines = read_page(page).splitlines()
    for line, level, _ in heading_anchors(page):
        m = HEADING.match(lines[line - 1])
        assert m is not None  # heading_anchors gives heading lines
        if not m.group(3) and len(level) > 1:
            slug = slugify(m.group(2), "-")
            suggestion = slug if slug.isascii() and slug.strip("-_") else "english-words"
            found.append(
                f"{rel(page)}:{line}: heading without an explicit anchor: write "
                f"{m.group(1)} {m.group(2)} {{ #{suggestion} }}, and the same anchor on its twin's heading"
            )
    return found


def pair_names(docs: Path | None = None) -> list[str]:
    """Every page pair by its path below ``docs/<lang>/`` (``training/clamping.md``),
    whether one language or both have it."""
    docs = docs or REPO / "docs"
    return sorted({p.relative_to(docs / lang).as_posix()
                   for lang in LANGUAGES for p in [*(docs / lang).rglob("*.md"), *(docs / lang).rglob("*.py")]})


def pair_name(page: Path) -> str | None:
    """``training/clamping.md`` for ``docs/en/training/clamping.md``; None outside docs/<lang>/."""
    lang, _, rest = rel(Path(page).resolve()).removeprefix("docs/").partition("/")
    return rest if lang in LANGUAGES and rest else None


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


def _code_like(f: Fence) -> bool:
    return f.language in EXECUTED or bool(f.keywords) or f.variant is not None


def _region(lines: list[str], f: Fence) -> tuple[int, int]:
    """0-based [start, end) of a fence with the comments right above it."""
    start = f.line - 1
    while start > 0 and (COMMENT.match(lines[start - 1]) or not lines[start - 1].strip()):
        start -= 1
    while start < f.line - 1 and not COMMENT.match(lines[start]):
        start += 1  # blank lines before the first comment stay where they are
    return start, f.end


def fix(source: Path, target: Path) -> list[str]:
    """Copy the code fences of ``source`` -- blocks, their marks, expected outputs --
    over those of its twin ``target``, in order, leaving the prose alone, and the
    fences whose code differs only in comments (each language comments in its own
    words). Returns what it did, or why it could not (a fence added or removed on
    one side only must be placed by hand: prose decides where)."""
    a = [f for f in scan_fences(source) if _code_like(f)]
    b = [f for f in scan_fences(target) if _code_like(f)]
    if len(a) != len(b):
        return [
            f"{rel(target)}: {len(b)} code and output fences, {rel(source)}: {len(a)}; "
            "add or remove the missing ones by hand, then run parity --fix again"
        ]
    src = source.read_text(encoding="utf-8").splitlines(True)
    dst = target.read_text(encoding="utf-8").splitlines(True)
    done = []
    agree = [k for _, k in code_sequence(source)], [k for _, k in code_sequence(target)]
    for i, (fa, fb) in reversed(list(enumerate(zip(a, b, strict=True)))):
        sa, ea = _region(src, fa)
        sb, eb = _region(dst, fb)
        if src[sa:ea] != dst[sb:eb] and agree[0][i] != agree[1][i]:
            dst[sb:eb] = src[sa:ea]
            done.append(
                f"{rel(target)}:{fb.line}: replaced with {rel(source)}:{fa.line}"
                + (" (its comments are now the other language's: translate them)"
                   if has_comments(fa.code, fa.language) else "")
            )
    if done:
        target.write_text("".join(dst), encoding="utf-8")
    return done[::-1]
