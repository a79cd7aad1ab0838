"""Marks are read, never run (devguide.source.marks): a small literal grammar.

A ``<!--pytest.mark.…-->`` comment is parsed (``ast.parse``) and only literals are
accepted as its arguments; nothing in it is evaluated -- not in pytest's collection,
not in ``devguide page``'s census, not in the MkDocs build (which reads the same
blocks). Each mark's values are checked: a time limit is a finite number above 0.
"""

import pytest

from devguide import paths
from devguide.source import fences, marks
from devguide.source.blocks import page_blocks


def test_a_mark_is_never_evaluated(write_page, tmp_path):
    """H1: code in a mark comment ran in pytest, in ``devguide page`` and in every
    ``mkdocs build`` (eval with the builtins), outside any sandbox."""
    canary = tmp_path / "mark-ran.txt"
    p = write_page(f"""\
        # T

        <!--pytest.mark.timeout(__import__("pathlib").Path(r"{canary}").write_text("ran") or 120)-->
        '''python
        print("an innocent block")
        '''
        """)
    census = [e.problem for e in fences.classify(p) if e.problem]
    assert census and f"{p}:3: cannot read" in census[0] and "not a literal" in census[0]
    with pytest.raises(paths.DocsError, match=rf"{p}:3: cannot read .*never code"):
        page_blocks(p)
    with pytest.raises(paths.DocsError):
        marks.eval_mark(f'pytest.mark.skip(reason=open(r"{canary}", "w").write("ran") and "x")', paths.Where("p.md", 1))
    assert not canary.exists(), "a mark's code ran"


@pytest.mark.parametrize("mark", [
    'pytest.mark.skip(reason=__import__("os").getcwd())',
    "pytest.mark.timeout(60 * 10)",
    "pytest.mark.timeout(limit)",
    "pytest.mark.timeout(*[600])",
    "pytest.mark.timeout(600)(1)",
    "pytest.mark.timeout[0](600)",
    "pytest.mark.timeout(lambda: 600)",
    "pytest.mark.timeout(600); import os",
])
def test_only_literals_are_read(mark):
    with pytest.raises(paths.DocsError, match=r"^p\.md:7: "):
        marks.eval_mark(mark, paths.Where("p.md", 7))


@pytest.mark.parametrize("mark,name,args,kwargs", [
    ("pytest.mark.cuda", "cuda", (), {}),
    ("pytest.mark.pinned", "pinned", (), {}),
    ("pytest.mark.timeout(600)", "timeout", (600,), {}),
    ("pytest.mark.timeout(2.5)", "timeout", (2.5,), {}),
    ('pytest.mark.skip(reason="Windows only")', "skip", (), {"reason": "Windows only"}),
    ("pytest.mark.skip(reason='it says \"hi\"')", "skip", (), {"reason": 'it says "hi"'}),
])
def test_the_marks_the_pages_use_are_read(mark, name, args, kwargs):
    value = marks.eval_mark(mark, paths.Where("p.md", 1))
    assert (value.name, value.args, value.kwargs) == (name, args, kwargs)


@pytest.mark.parametrize("limit", ['float("nan")', "1e999", 'float("inf")', "-5", "0", "0.0", "True", '"600"'])
def test_a_time_limit_is_finite_and_above_zero(write_page, limit):
    """H2: ``timeout(nan)`` and ``timeout(1e999)`` switched the block's limit off
    (``elapsed > nan`` is never true); the page fails at the mark's line instead."""
    p = write_page(f"# T\n\n<!--pytest.mark.timeout({limit})-->\n'''python\nimport time\n'''\n")
    with pytest.raises(paths.DocsError, match=rf"{p}:3: .*(finite number of seconds|not a literal)"):
        page_blocks(p)


@pytest.mark.parametrize("mark", ["pytest.mark.cuda(True)", 'pytest.mark.skip("why")',
                                  'pytest.mark.skip(reason="x", when=1)', "pytest.mark.timeout(1, 2)"])
def test_a_mark_takes_only_what_it_means(mark):
    with pytest.raises(paths.DocsError, match=r"^p\.md:2: .*pytest\.mark\."):
        marks.eval_mark(mark, paths.Where("p.md", 2))


def test_a_page_problem_carries_its_place(write_page):
    """A DocsError has fields (path, line, message), and its text is ``path:line: message``;
    one that groups a page's problems keeps each and is at the first one's line (the
    comment's, not the fence's): the plugin's report reads the line from the field."""
    p = write_page("# T\n\n<!--pytest.mark.gpu-->\n'''python\nx = 1\n'''\n\n<!--pytest.mark.nope-->\n'''python\ny = 1\n'''\n")
    with pytest.raises(paths.DocsError) as error:
        page_blocks(p)
    exc = error.value
    assert (exc.path, exc.line) == (paths.rel(p), 3)
    assert len(exc.problems) == 2
    assert str(exc) == "\n".join(exc.problems)
    assert str(exc).startswith(f"{paths.rel(p)}:3: unknown mark <!--pytest.mark.gpu-->")
    assert f"\n{paths.rel(p)}:8: unknown mark <!--pytest.mark.nope-->" in str(exc)
    one = paths.DocsError.at(paths.Where("p.md", 7), "what to do")
    assert (one.path, one.line, one.message, str(one)) == ("p.md", 7, "what to do", "p.md:7: what to do")
    assert str(paths.DocsError("mkdocs.yml", None, "no repo_url")) == "mkdocs.yml: no repo_url"


def test_the_languages_are_read_from_mkdocs_yml_as_yaml(tmp_path):
    """mkdocs.yml is read by one YAML loader (its !ENV and !!python tags as plain values):
    the i18n plugin's languages, the default one first wherever it is listed."""
    cfg = tmp_path / "mkdocs.yml"
    cfg.write_text(
        "markdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
        "plugins:\n  - offline:\n      enabled: !ENV [OFFLINE, false]\n  - i18n:\n      languages:\n"
        "        - locale: fr\n          name: Français\n        - locale: en\n          default: true\n"
        "        - locale: de\n", encoding="utf-8")
    assert paths.languages_of(paths.mkdocs_yml(cfg)) == ("en", "fr", "de")
    assert paths.languages() == ("zh", "en")  # the project's own
    with pytest.raises(paths.DocsError, match=r"^mkdocs\.yml: the i18n plugin lists no languages"):
        paths.languages_of({"plugins": ["search"]})
