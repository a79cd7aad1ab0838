"""Parity: every page exists in both languages with the same code and the same anchors.

Each pair is one test, with the same message as the pages' ``twin`` items; a run that
collects a pair's ``twin`` item leaves that pair's test here out (one message per pair,
``devguide.pytest_plugin.page_items.one_twin_check_per_pair``).
"""

import pytest

from devguide import paths
from devguide.source import fences
from devguide.source.parity import pair_names, twin_problems


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.twin_check(n), id=n) for n in pair_names()]
)
def test_each_page_has_its_twin_with_the_same_code_and_anchors(name):
    page = next(p for lang in paths.LANGUAGES if (p := paths.DOCS / lang / name).exists())
    problems = twin_problems(page)
    if problems:  # the harness's message, without this test's own lines
        pytest.fail("\n".join(problems), pytrace=False)


def test_headings_have_stable_english_anchors():
    """Chinese headings slugify to nothing useful; require explicit English anchors."""
    bad = []
    for page in fences.pages():
        for line, _, anchor in fences.heading_anchors(page):
            if not anchor.isascii() or not anchor.strip("-_") or anchor.startswith("_"):
                bad.append(f"{paths.rel(page)}:{line}: heading needs an explicit anchor {{ #english-id }}")
    assert not bad, "\n".join(bad)
