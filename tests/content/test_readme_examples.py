"""The test ids that README and CONTRIBUTING give as examples exist.

A newcomer copies ``pytest -n0 "docs/en/getting-started/index.md::line 53"``
from CONTRIBUTING ("Set up and run"; the README's quick start points there);
when the page changes and its blocks move, the example must move with it, or
the first command they try answers "not found". The id of a block is its page
and the line of its opening fence (``devguide.pytest_plugin.page_items``:
``line {block.line}``); ``twin`` is every page's twin check.
"""

import re

from devguide import paths
from devguide.source.blocks import page_blocks

DOCUMENTS = ("README.md", "CONTRIBUTING.md", "CONTRIBUTING.zh.md")
TEST_ID = re.compile(r"(docs/[\w./-]+\.md)::(line \d+|twin|[\w ]+)")


def example_ids(text: str) -> list[tuple[str, str]]:
    """(page, test name) of every test id written in ``text``."""
    return [(m.group(1), m.group(2).strip()) for m in TEST_ID.finditer(text)]


def id_problems(page: str, name: str) -> str | None:
    """Why ``page::name`` is not an id pytest collects, or None."""
    path = paths.REPO / page
    if not path.exists():
        return f"{page}: no such page"
    if name == "twin":
        return None
    ids = [f"line {b.line}" for b in page_blocks(path)]
    if name not in ids:
        return f"{page}::{name} is not a block of that page; its blocks are {', '.join(ids)}"
    return None


def test_the_example_ids_are_collected():
    problems, seen = [], 0
    for document in DOCUMENTS:
        for page, name in example_ids((paths.REPO / document).read_text(encoding="utf-8")):
            seen += 1
            problem = id_problems(page, name)
            if problem:
                problems.append(f"{document}: {problem}")
    assert seen, "README and CONTRIBUTING give no example test id any more: this test checks nothing"
    assert not problems, "\n".join(problems)


def test_a_stale_id_is_named():
    """Planted: a line where no block starts, and a page that does not exist."""
    text = 'pytest "docs/en/getting-started/index.md::line 2" "docs/en/no-such-page.md::line 5"'
    found = example_ids(text)
    assert found == [("docs/en/getting-started/index.md", "line 2"), ("docs/en/no-such-page.md", "line 5")]
    assert "is not a block of that page; its blocks are line " in id_problems(*found[0])
    assert id_problems(*found[1]) == "docs/en/no-such-page.md: no such page"
