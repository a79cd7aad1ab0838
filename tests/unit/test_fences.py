"""The census reads what the site renders (devguide.source.fences).

Every fence the site shows as Python or bash is run or excused, and no fence the
site shows as text is run: a page where the two would differ fails at the fence's
line (the site's side is ``devguide.source.rendered``: the page through mkdocs.yml's
Markdown extensions). A page that is not plain UTF-8 fails alone, at its line.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from devguide import paths
from devguide.source import fences, rendered
from devguide.source.blocks import page_blocks

TICKS = "'" * 3

def write_raw(tmp_path, text: str):
    """A planted page as written (the write_page fixture dedents: an indented fence
    would lose its indentation), TICKS standing for a fence."""
    path = tmp_path / "page.md"
    path.write_text(text.replace(TICKS, "`" * 3), encoding="utf-8")
    return path


QUOTED = """\
# T

> A quoted example:
>
> '''python
> assert False, "never run: the harness does not see fences in quotes"
> '''

'''python
print("the only block the harness sees")
'''
"""


def test_a_fence_in_a_quote_is_refused(write_page):
    """H20: the site rendered a Python block inside a quote that the harness never ran
    nor counted (it held ``assert False``)."""
    p = write_page(QUOTED)
    assert rendered.rendered_languages(p.read_text(encoding="utf-8")) == ["python", "python"]
    problems = [e.problem for e in fences.classify(p) if e.problem]
    assert len(problems) == 1 and problems[0].startswith(f"{p}:5: fence ```python inside a quote")
    assert "take the block out of the quote" in problems[0]
    with pytest.raises(paths.DocsError, match=rf"{p}:5: "):
        page_blocks(p)


def test_a_quoted_text_fence_is_allowed(write_page):
    p = write_page("> Output:\n>\n> '''text\n> 42\n> '''\n")
    assert not [e.problem for e in fences.classify(p) if e.problem]


def test_a_tab_indented_fence_is_refused(tmp_path):
    """H25: a tab-indented fence at the top level is an indented code block to
    Markdown: the site showed it as text, backticks included, and the harness ran it."""
    p = write_raw(tmp_path, '# T\n\n\t\'\'\'python\n\tprint("shown as text")\n\tassert False, "runs?"\n\t\'\'\'\n')
    assert rendered.rendered_languages(p.read_text(encoding="utf-8")) in ([""], ["text"])
    with pytest.raises(paths.DocsError, match=rf"{p}:3: fence ```python is indented by 4 columns .*shows it as plain text"):
        page_blocks(p)


# (page, whether the census refuses it): every other page's fences render as the census reads them
LAYOUTS = {
    "quote": (QUOTED, True),
    "tab": ("\t'''python\n\tprint(1)\n\t'''\n", True),
    "four spaces": ("    '''python\n    print(1)\n    '''\n", True),
    "space and tab": (" \t'''python\n \tprint(1)\n \t'''\n", True),
    "eight spaces": ("        '''python\n        print(1)\n        '''\n", True),
    "eight spaces in a list item": ("- item\n\n        '''python\n        print(1)\n        '''\n", True),
    "quote in a list item": ("- a\n\n    > '''python\n    > print(1)\n    > '''\n", True),
    "nested quote": (">> '''python\n>> print(1)\n>> '''\n", True),
    "three spaces": ("   '''python\n   print(1)\n   '''\n", False),
    "list item": ("- item\n\n    '''python\n    print(1)\n    '''\n", False),
    "list item, tab": ("- item\n\n\t'''python\n\tprint(1)\n\t'''\n", False),
    "numbered item": ("1. item\n\n     '''python\n     print(1)\n     '''\n", False),
    "second paragraph of an item": ("- item\n\n    more\n\n    '''python\n    print(1)\n    '''\n", False),
    "text that ends the list": ("- item\n\n  more\n\n    '''python\n    print(1)\n    '''\n", True),
    "deep in an item": ("- item\n\n    more\n\n        '''python\n        print(1)\n        '''\n", True),
    "item whose text runs on": ("- **Item.** First line\n  runs on.\n\n    '''bash\n    echo 1\n    '''\n", False),
    "admonition": ("!!! note\n\n    '''python\n    print(1)\n    '''\n", False),
    "content tab": ('=== "CPU"\n\n    \'\'\'python\n    print(1)\n    \'\'\'\n', False),
    "under a paragraph": ("Text\n\t'''python\n\tprint(1)\n\t'''\n", False),
    "details": ('<details markdown="1">\n<summary>s</summary>\n\n\'\'\'python\nprint(1)\n\'\'\'\n\n</details>\n', False),
}


@pytest.mark.parametrize("name", LAYOUTS)
def test_the_census_and_the_renderer_agree(tmp_path, name):
    """Rendered with mkdocs.yml's own Markdown extensions: the census runs what the
    site shows as Python or bash, or refuses the page at the fence's line."""
    text, refused = LAYOUTS[name]
    p = write_raw(tmp_path, text)
    census, problems = rendered.census_languages(p)
    site = [x for x in rendered.rendered_languages(p.read_text(encoding="utf-8")) if x in fences.EXECUTED]
    assert bool(problems) == refused, problems
    assert refused or site == census
    # refused exactly where the fences pytest-codeblocks would run differ from what the site shows
    runs = [f.language for f in fences.scan_fences(p) if f.language in fences.EXECUTED]
    assert (site != runs) == refused, (site, runs)
    assert rendered.disagreement(p) == ""


def test_a_page_that_is_not_utf8_fails_at_its_line(write_page):
    """H23: one Latin-1 byte raised a UnicodeDecodeError (a byte position, no line)."""
    p = write_page("# Bytes { #bytes }\n\ntext\n\n'''python\nprint(1)\n'''\n")
    p.write_bytes(p.read_bytes().replace(b"text", b"Caf\xe9 au lait."))
    (entry,) = fences.classify(p)
    assert entry.line == 3 and entry.problem.startswith(f"{p}:3: byte E9 (column 4) is not UTF-8")
    assert "iconv -f latin1 -t utf-8" in entry.problem
    with pytest.raises(paths.DocsError, match=rf"{p}:3: byte E9"):
        page_blocks(p)


def test_a_byte_order_mark_fails_at_its_line(write_page):
    """H24: a BOM before the first fence hid that fence from the census, which then
    took the closing fence for an opening one (``:4: … give the fence a language``)."""
    p = write_page("'''python\nprint(1)\n'''\n\n'''python\nprint(2)\n'''\n")
    p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes())
    problems = [e.problem for e in fences.classify(p) if e.problem]
    assert len(problems) == 1 and problems[0].startswith(f"{p}:1: a byte-order mark")
    with pytest.raises(paths.DocsError, match=rf"{p}:1: a byte-order mark .*remove it"):
        page_blocks(p)


def test_an_unreadable_page_fails_alone_in_a_run(tmp_path):
    """H23: under ``-n0`` the UnicodeDecodeError interrupted the collection, and no page ran."""
    root = tmp_path / "project"
    shutil.copytree(paths.REPO / "snippets", root / "snippets")
    for name in ("pyproject.toml", "mkdocs.yml", "LICENSE"):
        shutil.copy(paths.REPO / name, root / name)
    (root / "docs/en").mkdir(parents=True)
    (root / "docs/en/bytes.md").write_bytes(b"# B\n\nCaf\xe9\n\n```python\nprint(1)\n```\n")
    (root / "docs/en/fine.md").write_text('# F\n\n```python\nprint("fine")\n```\n', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n0", "-p", "no:cacheprovider", "-q", "-k", "not twin",
         "docs/en/bytes.md", "docs/en/fine.md"],
        cwd=root, capture_output=True, text=True, timeout=300, env=dict(os.environ, DEVGUIDE_ROOT=str(root),
                 PYTHONPATH=str(Path(fences.__file__).parents[2])),  # this checkout's harness
    )
    out = done.stdout + done.stderr
    assert "Interrupted" not in out and "1 failed, 1 passed" in out, out[-3000:]
    assert "docs/en/bytes.md:3: byte E9 (column 4) is not UTF-8" in out
