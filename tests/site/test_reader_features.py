"""What readers take away from the built site: the repository, each page's code,
its Markdown, llms.txt, the print page (hooks/reader_features.py, devguide.mkdocs_plugin.reader.takeaways).

The files are read back from the built site and compared with what the harness
runs (devguide.source.blocks), so a download cannot drift from the tested code."""

import ast
import json
import re
import subprocess
import sys
import urllib.request
from html import unescape
from html.parser import HTMLParser
from urllib.parse import parse_qs, unquote, urljoin, urlsplit

import pytest

from devguide import paths
from devguide.mkdocs_plugin.reader import downloads, repository
from devguide.source import fences
from devguide.source.blocks import page_blocks

REPO_URL = repository.repo_url()
SOURCES = [*fences.pages(), *fences.notebooks()]


def built_html(source):
    """The built HTML of a page or notebook of docs/."""
    lang, *rest = source.relative_to(paths.DOCS).parts
    path = "/".join(rest).rsplit(".", 1)[0]
    path = path.removesuffix("index").rstrip("/")
    return paths.url_prefix(lang) + (path + "/" if path else "") + "index.html"


class _Anchors(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[dict] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.found.append(dict(attrs))


def links(html_path, cls=None, rel=None):
    """The attributes of the <a> tags of a built page, filtered by class or rel."""
    parser = _Anchors()
    # the tools sit before the article's text: read up to its first heading
    text = html_path.read_text(encoding="utf-8")
    parser.feed(text if cls is None and rel is None else text[: text.find("<h1")])
    return [a for a in parser.found
            if (cls is None or cls in (a.get("class") or "").split()) and (rel is None or a.get("rel") == rel)]


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_the_header_links_the_repository_without_asking_github(built_site, lang):
    html = (built_site / paths.url_prefix(lang) / "index.html").read_text(encoding="utf-8")
    source = re.search(r'<a href="([^"]*)"[^>]*class="md-source"[^>]*>', html)
    assert source and source.group(1) == REPO_URL
    # Material fetches stars and forks from api.github.com for data-md-component="source"
    assert 'data-md-component="source"' not in html


def test_every_page_has_edit_and_report_links(built_site):
    torch = paths.pinned_torch()
    for source in SOURCES:
        html = built_site / built_html(source)
        src = paths.rel(source)
        (edit,) = links(html, rel="edit")
        assert edit["href"] == f"{REPO_URL}/edit/main/{src}", html  # a notebook: its jupytext .py
        (report,) = links(html, cls="reader-report")
        parts = urlsplit(report["href"])
        assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{REPO_URL}/issues/new"
        assert all(c.isascii() and not c.isspace() for c in report["href"]), "not URL-encoded"
        query = parse_qs(parts.query, strict_parsing=True)
        assert src in query["title"][0]
        assert src in query["body"][0] and f"torch {torch}" in query["body"][0]


def page_pair(rest):
    return [paths.DOCS / lang / rest for lang in paths.LANGUAGES]


@pytest.mark.parametrize("rest", ["async/debugging.md", "devices/moving.md"])
def test_a_page_download_is_the_blocks_the_harness_runs(built_site, rest):
    """Each cell of the downloaded .py is a block as devguide.source.blocks gives it to the
    runner: python blocks unchanged, CUDA blocks the same statements under a guard,
    excused and bash blocks commented out, in page order."""
    for source in page_pair(rest):
        html = built_site / built_html(source)
        (button,) = links(html, cls="reader-download")
        target = (html.parent / unquote(button["href"])).resolve()
        assert target == (built_site / downloads.site_path(source, ".py")).resolve()
        assert button["download"] == downloads.download_name(source, ".py")
        cells = downloads.split_cells(target.read_text(encoding="utf-8"))
        blocks = page_blocks(source)
        # the file ends by saying it ran to its end: a line after the last cell's block
        done = f"print({downloads.TEXT[downloads.page_language(source)]['done'].format(n=len(blocks))!r})"
        head, body = cells[-1]
        assert body.rstrip("\n").endswith(done), head
        cells[-1] = (head, body.rstrip("\n").removesuffix(done).rstrip("\n") + "\n")
        assert [head.split()[2] for head, _ in cells] == [b.where for b in blocks]
        for (head, body), block in zip(cells, blocks, strict=True):
            marks = block.mark_names
            if "skip" in marks or block.language == "bash":
                code = repository.substitute(block.code).rstrip("\n")
                assert body.startswith("\n".join(("# " + line).rstrip() for line in code.splitlines()) + "\n")
            elif marks & set(downloads.GUARDS):
                (guard,) = [n for n in ast.parse(body).body]
                assert ast.unparse(guard.test) == " and ".join(downloads.GUARDS[k] for k in downloads.GUARDS if k in marks)
                assert ast.dump(ast.Module(guard.body, [])) == ast.dump(ast.parse(block.code)), head
            else:
                assert body.startswith(block.code), head
            if body.startswith(block.code):  # what follows the code: its verified output, as comments
                after = body[len(block.code):].splitlines()
                assert all(not line.strip() or line.startswith("#") for line in after), head


@pytest.mark.named_pages
def test_a_downloaded_page_runs(server, tmp_path):
    """The English getting-started page's .py, fetched from the site, runs with python
    from an empty folder, and prints each verified output in order."""
    source = paths.DOCS / "en" / "getting-started" / "index.md"
    url = urljoin(server + "/", downloads.site_path(source, ".py"))
    with urllib.request.urlopen(url, timeout=10) as response:
        script = response.read().decode("utf-8")
    (tmp_path / "getting-started.py").write_text(script, encoding="utf-8")
    done = subprocess.run([sys.executable, "getting-started.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    position = 0
    for block in page_blocks(source):
        if block.expected_output is not None and block.language == "python":
            found = done.stdout.find(block.expected_output, position)
            assert found >= 0, f"{block.where}: {block.expected_output!r} not printed in order:\n{done.stdout}"
            position = found + len(block.expected_output)
    assert position > 0


@pytest.mark.parametrize("notebook", fences.notebooks(), ids=paths.rel)
def test_a_notebook_downloads_as_ipynb_and_jupytext(built_site, notebook):
    html = built_site / built_html(notebook)
    hrefs = {a["download"]: (html.parent / unquote(a["href"])).resolve() for a in links(html, cls="reader-download")}
    ipynb, jupytext = downloads.download_name(notebook, ".ipynb"), downloads.download_name(notebook, ".py")
    assert set(hrefs) == {ipynb, jupytext}
    assert hrefs[jupytext].read_text(encoding="utf-8") == notebook.read_text(encoding="utf-8")
    nb = json.loads(hrefs[ipynb].read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert ["".join(c["source"]) for c in code] == fences.notebook_code_cells(notebook)
    # with the outputs of the build's run: tests/site/test_reader_takeaways.py


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_llms_txt_links_every_page_as_markdown(built_site, lang):
    root = built_site / paths.url_prefix(lang)
    text = (root / "llms.txt").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0].startswith("# ") and lines[2].startswith("> ")
    assert any(line.startswith("## ") for line in lines)
    targets = re.findall(r"^- \[[^\]]+\]\(([^)]+)\)", text, re.M)
    missing = []
    for target in targets:
        path = (root / unquote(target)).resolve()
        if path.is_dir():
            path = path / "index.html"
        if not path.is_file():
            missing.append(target)
    assert not missing, f"{lang}/llms.txt links to files the site does not have: {missing}"
    own = [s for s in SOURCES if s.relative_to(paths.DOCS).parts[0] == lang]
    markdown = {t for t in targets if t.endswith(".md")}
    assert markdown == {downloads.site_path(s, ".md").removeprefix(paths.url_prefix(lang)) for s in own}


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_a_page_as_markdown_keeps_its_code_and_fence_languages(built_site, lang):
    source = paths.DOCS / lang / "async" / "pinned-memory.md"
    served = (built_site / downloads.site_path(source, ".md")).read_text(encoding="utf-8")
    for fence in fences.scan_fences(source):
        assert f"```{fence.info}\n" in served
    assert served.count("```python\n") == source.read_text(encoding="utf-8").count("```python\n")
    assert "--8<--" not in served and "{{ repo_url }}" not in served
    included = (paths.REPO / "snippets" / "async" / "pinned_vs_pageable_bandwidth.py").read_text(encoding="utf-8")
    assert included.strip() in served
    assert "<!--pytest.mark.cuda-->" in served  # the marks say which block needs CUDA
    # admonitions stay Markdown admonitions (converting HTML back would drop them)
    modules = paths.DOCS / lang / "training" / "modules.md"
    kept = (built_site / downloads.site_path(modules, ".md")).read_text(encoding="utf-8")
    admonitions = re.findall(r"^!!! \w+.*$", modules.read_text(encoding="utf-8"), re.M)
    assert admonitions and all(a in kept for a in admonitions), admonitions
    # the download link of the program the page asks readers to run
    html = built_site / built_html(source)
    (link,) = [a for a in links(html) if a["href"].endswith("snippets/async/pinned_vs_pageable_bandwidth.py")]
    assert (html.parent / link["href"]).resolve().read_text(encoding="utf-8") == included
    alternate = re.search(r'<link rel="alternate" type="text/markdown" href="([^"]+)">', html.read_text(encoding="utf-8"))
    assert (html.parent / alternate.group(1)).resolve() == (built_site / downloads.site_path(source, ".md")).resolve()


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_the_repository_is_named_where_readers_run_things(built_site, lang):
    start = (built_site / paths.url_prefix(lang) / "getting-started" / "index.html").read_text(encoding="utf-8")
    assert f"git clone {REPO_URL}.git" in unescape(re.sub(r"<[^>]+>", "", start))  # code is highlighted
    home = (built_site / paths.url_prefix(lang) / "index.html").read_text(encoding="utf-8")
    contributing = "CONTRIBUTING.md" if lang == "en" else "CONTRIBUTING.zh.md"
    assert f'href="{REPO_URL}/blob/main/{contributing}"' in home
    # the page that asks readers to run a program of the repository says where it is
    pinned = (built_site / paths.url_prefix(lang) / "async" / "pinned-memory" / "index.html").read_text(encoding="utf-8")
    assert f"git clone {REPO_URL}.git" in unescape(re.sub(r"<[^>]+>", "", pinned))


def test_no_repository_placeholder_is_left(built_site):
    left = [p.relative_to(built_site).as_posix() for suffix in ("*.html", "*.md", "*.py", "*.txt")
            for p in built_site.rglob(suffix) if "{{ repo_url }}" in p.read_text(encoding="utf-8")]
    assert not left, f"{{{{ repo_url }}}} left in {left}"


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_home_and_getting_started_link_print_page_llms_txt_and_offline_copy(built_site, lang):
    root = built_site / paths.url_prefix(lang)
    for html in (root / "index.html", root / "getting-started" / "index.html"):
        text = html.read_text(encoding="utf-8")
        hrefs = [a["href"] for a in links(html)]
        assert any(h.endswith("print/") for h in hrefs) and any(h.endswith("llms.txt") for h in hrefs), html
        # this build has no offline copy and no PDF (OFFLINE_ZIP, PRINT_PDFS unset): the page
        # offers neither and says nothing about how the site is built
        assert downloads.OFFLINE_ZIP not in text and ".pdf" not in text
        assert not any(w in text for w in ("make offline", "release job", "发布流程", "这次构建", "this build")), html


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_the_print_page_holds_every_page(built_site, lang):
    root = built_site / paths.url_prefix(lang)
    html = (root / "print" / "index.html").read_text(encoding="utf-8")
    own = [s for s in SOURCES if s.relative_to(paths.DOCS).parts[0] == lang]
    sections = re.findall(r'<section class="print-page" id="([^"]+)">', html)
    assert len(sections) == len(own) == len(set(sections))
    assert html.count("<h1") >= len(own) + 1
    # left out of search (its text is every page's again)
    index = json.loads((root / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert not [d for d in index["docs"] if d["location"].split("#")[0].endswith("print/")]
