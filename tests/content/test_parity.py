"""Parity: every page exists in both languages with the same code and the same anchors."""

import pytest

from devguide import paths
from devguide.source import fences
from devguide.source.parity import parity_problems, twins


def test_every_page_has_its_twin():
    _, missing = twins()
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("zh,en", twins()[0], ids=lambda p: paths.rel(p))
def test_twins_share_code_and_anchors(zh, en):
    problems = parity_problems(zh, en)
    assert not problems, "\n".join(problems)


def test_headings_have_stable_english_anchors():
    """Chinese headings slugify to nothing useful; require explicit English anchors."""
    bad = []
    for page in fences.pages():
        for line, _, anchor in fences.heading_anchors(page):
            if not anchor.isascii() or not anchor.strip("-_") or anchor.startswith("_"):
                bad.append(f"{paths.rel(page)}:{line}: heading needs an explicit anchor {{ #english-id }}")
    assert not bad, "\n".join(bad)
