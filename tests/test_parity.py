"""Parity: every page exists in both languages with the same code and the same anchors."""

import difflib

import pytest

from tests import harness

DOCS = harness.REPO / "docs"


def twins(docs=DOCS):
    """(zh, en) path pairs, and the pages that miss their twin."""
    found = {}
    for lang in harness.LANGUAGES:
        root = docs / lang
        for p in [*root.rglob("*.md"), *root.rglob("*.py")]:
            found.setdefault(p.relative_to(root), {})[lang] = p
    pairs, missing = [], []
    for relpath, langs in sorted(found.items()):
        if set(langs) == set(harness.LANGUAGES):
            pairs.append((langs["zh"], langs["en"]))
        for lang in harness.LANGUAGES:
            if lang not in langs:
                (have,) = langs.values()
                missing.append(
                    f"{harness.rel(have)}:1: has no twin docs/{lang}/{relpath.as_posix()}: "
                    "write the page in both languages (same code, translated prose)"
                )
    return pairs, missing


def code_sequence(page):
    """What must be identical across languages: runnable code, marks, outputs."""
    seq = []
    for f in harness.scan_fences(page):
        if f.language in harness.EXECUTED or f.keywords or f.variant is not None:
            seq.append((f.line, f.language, sorted(f.marks), [*f.keywords, f.variant], f.code))
    return seq


def parity_problems(zh, en):
    problems = []
    if zh.suffix == ".py":
        a, b = harness.notebook_code_cells(zh), harness.notebook_code_cells(en)
        if a != b:
            diff = "\n".join(difflib.unified_diff("\n\n".join(a).splitlines(), "\n\n".join(b).splitlines(), harness.rel(zh), harness.rel(en), lineterm=""))
            problems.append(f"{harness.rel(zh)}: notebook code cells differ from {harness.rel(en)}:\n{diff}")
        return problems
    a, b = code_sequence(zh), code_sequence(en)
    for i in range(max(len(a), len(b))):
        if i >= len(a) or i >= len(b):
            extra, page = (b[i], en) if i >= len(a) else (a[i], zh)
            problems.append(f"{harness.rel(page)}:{extra[0]}: block has no counterpart in the other language")
            continue
        (la, *ka), (lb, *kb) = a[i], b[i]
        if ka != kb:
            diff = "\n".join(difflib.unified_diff(ka[-1].splitlines(), kb[-1].splitlines(), f"{harness.rel(zh)}:{la}", f"{harness.rel(en)}:{lb}", lineterm=""))
            problems.append(
                f"{harness.rel(zh)}:{la} differs from {harness.rel(en)}:{lb} "
                f"(language/marks/keywords/code must be identical):\n"
                f"  zh: {ka[0]} {ka[1]} {ka[2]}\n  en: {kb[0]} {kb[1]} {kb[2]}\n{diff}"
            )
            break
    ha = [(h[1], h[2]) for h in harness.heading_anchors(zh)]
    hb = [(h[1], h[2]) for h in harness.heading_anchors(en)]
    if ha != hb:
        za = {h[2]: h[0] for h in harness.heading_anchors(zh)}
        for (lvl, anchor), line in zip(ha, [h[0] for h in harness.heading_anchors(zh)], strict=False):
            if (lvl, anchor) not in hb:
                problems.append(f"{harness.rel(zh)}:{line}: heading anchor #{anchor} ({lvl}) is not in {harness.rel(en)}")
        for lvl, anchor in hb:
            if anchor not in za:
                problems.append(f"{harness.rel(en)}: heading anchor #{anchor} ({lvl}) is not in {harness.rel(zh)}")
        if not problems:
            problems.append(f"{harness.rel(zh)}: headings are in a different order than in {harness.rel(en)}")
        problems.append("give every heading the same explicit anchor in both languages: ## 标题 { #english-anchor }")
    return problems


def test_every_page_has_its_twin():
    _, missing = twins()
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("zh,en", twins()[0], ids=lambda p: harness.rel(p))
def test_twins_share_code_and_anchors(zh, en):
    problems = parity_problems(zh, en)
    assert not problems, "\n".join(problems)


def test_headings_have_stable_english_anchors():
    """Chinese headings slugify to nothing useful; require explicit English anchors."""
    bad = []
    for page in harness.pages():
        for line, _, anchor in harness.heading_anchors(page):
            if not anchor.isascii() or not anchor.strip("-_") or anchor.startswith("_"):
                bad.append(f"{harness.rel(page)}:{line}: heading needs an explicit anchor {{ #english-id }}")
    assert not bad, "\n".join(bad)
