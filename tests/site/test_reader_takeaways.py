"""What readers take from a page, checked in the built site and in Chromium
(issue 26, items 5 and 8): notebooks that carry the build's outputs and open in
Colab, Markdown without attr_list syntax, the 404 page's language switcher,
heading permalinks in the page's language, copied code without trailing spaces,
no download on the home page."""

from __future__ import annotations

import json
import re
from html import unescape
from urllib.parse import unquote

import pytest

from devguide import paths
from devguide.mkdocs_plugin.reader import downloads, repository
from devguide.mkdocs_plugin.reader.notebook_downloads import (
    COLAB,
    PAGES_BRANCH,
    site_version,
)
from devguide.source import fences

NOTEBOOKS = fences.notebooks()
ATTR_LIST = re.compile(r"\{\s*#[\w-]+\s*\}")


def built_page(source) -> str:
    lang, *rest = source.relative_to(paths.DOCS).parts
    path = "/".join(rest).rsplit(".", 1)[0].removesuffix("index").rstrip("/")
    return paths.url_prefix(lang) + (path + "/" if path else "") + "index.html"


def outside_fences(markdown: str) -> str:
    return re.sub(r"^(`{3,}|~{3,}).*?^\1\s*$", "", markdown, flags=re.S | re.M)


def shown_outputs(html: str) -> list[str]:
    """The text of each output block of a built notebook page, in order."""
    found = re.findall(r'<div class="language-text highlight output jp-OutputArea-output"[^>]*>\s*<pre><code>(.*?)</code></pre>',
                       html, re.S)
    return [unescape(re.sub(r"<[^>]+>", "", text)) for text in found]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=paths.rel)
def test_a_downloaded_notebook_carries_the_outputs_the_build_ran(built_site, notebook):
    """The .ipynb holds, cell by cell, the outputs the built page shows (the build's
    own run), so its first cell's promise of real outputs holds; its Markdown cells
    use HTML anchors, not attr_list's ``{ #id }``, which Jupyter would print."""
    nb = json.loads((built_site / downloads.site_path(notebook, ".ipynb")).read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert ["".join(c["source"]) for c in code] == fences.notebook_code_cells(notebook)
    texts = ["".join(o.get("text") or o.get("data", {}).get("text/plain", "")) for c in code for o in c["outputs"]]
    assert sum(1 for c in code if c["outputs"]) >= len(code) // 2, "most cells print something"
    html = (built_site / built_page(notebook)).read_text(encoding="utf-8")
    assert "".join(texts).split() == "".join(shown_outputs(html)).split()
    assert [c["execution_count"] for c in code] == list(range(1, len(code) + 1))
    markdown = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert not ATTR_LIST.search(markdown), ATTR_LIST.search(markdown)
    assert '<a id="' in markdown


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_no_markdown_copy_shows_attr_list_syntax(built_site, lang):
    """The .md copies (llms.txt) give headings' anchors as HTML, which Markdown readers understand."""
    sources = [s for s in [*fences.pages(), *NOTEBOOKS] if s.relative_to(paths.DOCS).parts[0] == lang]
    assert sources
    for source in sources:
        text = (built_site / downloads.site_path(source, ".md")).read_text(encoding="utf-8")
        found = ATTR_LIST.search(outside_fences(text))
        assert not found, f"{downloads.site_path(source, '.md')}: {found.group(0)}"


def deploy_checked_files() -> set[str]:
    """The files .ci/deploy requires in each deployed version before it pushes."""
    text = (paths.REPO / ".ci" / "deploy").read_text(encoding="utf-8")
    loop = re.search(r"for file in (.*?); do", text, re.S).group(1)
    return set(loop.replace("\\\n", " ").split())


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=paths.rel)
def test_open_in_colab_opens_the_notebook_the_deploy_publishes(built_site, notebook):
    """The link is Colab's GitHub form for the pages branch, in the folder of this
    version (what `mike deploy <torch minor>` writes), at the .ipynb this build
    writes; .ci/deploy refuses to push a version that lacks that file."""
    html = (built_site / built_page(notebook)).read_text(encoding="utf-8")
    (href,) = re.findall(r'<a href="([^"]+)"[^>]*class="md-content__button reader-colab"', html)
    repo = repository.repo_url().removeprefix("https://github.com/")
    prefix = f"{COLAB}{repo}/blob/{PAGES_BRANCH}/{site_version()}/"
    assert href.startswith(prefix), href
    published = unquote(href.removeprefix(prefix))
    assert published == downloads.site_path(notebook, ".ipynb")
    assert (built_site / published).is_file()
    assert published in deploy_checked_files()
    deploy = (paths.REPO / ".ci" / "deploy").read_text(encoding="utf-8")
    assert "mike deploy" in deploy and 'gh-pages:$version/$file' in deploy
    assert re.fullmatch(r"\d+\.\d+", site_version())


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_the_404_page_switches_to_each_languages_home(built_site, lang):
    html = (built_site / paths.url_prefix(lang) / "404.html").read_text(encoding="utf-8")
    links = dict((hreflang, href) for href, hreflang in re.findall(r'<a href="([^"]*)" hreflang="([\w-]+)"', html))
    assert links == {"zh": "/", "en": "/en/"}, links
    alternates = dict((hreflang, href) for href, hreflang in re.findall(r'<link rel="alternate" href="([^"]*)" hreflang="([\w-]+)"', html))
    assert alternates.get("zh") == "/" and alternates.get("en") == "/en/", alternates


@pytest.mark.parametrize("lang,title", [("zh", "永久链接"), ("en", "Permanent link")])
def test_heading_permalinks_are_titled_in_the_pages_language(built_site, lang, title):
    for rest in ("devices/moving/index.html", "getting-started/device-tour/index.html"):
        html = (built_site / paths.url_prefix(lang) / rest).read_text(encoding="utf-8")
        titles = set(re.findall(r'<a class="headerlink"[^>]*? title="([^"]*)"', html))
        assert titles == {title}, (rest, titles)


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_the_home_page_offers_no_code_download(built_site, lang):
    html = (built_site / paths.url_prefix(lang) / "index.html").read_text(encoding="utf-8")
    assert "reader-download" not in html
    assert not (built_site / paths.url_prefix(lang) / "pytorch-device-guide.py").exists()
    moving = (built_site / paths.url_prefix(lang) / "devices" / "moving" / "index.html").read_text(encoding="utf-8")
    assert "reader-download" in moving


@pytest.mark.named_pages
@pytest.mark.parametrize("path", ["/async/pinned-memory/", "/en/async/pinned-memory/"])
def test_a_copied_annotated_block_has_no_trailing_spaces(page, server, path):
    """Material drops the ``# (1)!`` markers from copied code; the spaces before
    them go too (docs/assets/javascripts/reading.js)."""
    page.goto(server + path)
    block = page.locator("div.highlight").filter(has_text="non_blocking=True").first
    block.locator(".md-annotation").first.wait_for(state="attached")
    block.hover()
    block.locator("button.md-code__button[data-md-type=copy]").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert "x = x.to(device, non_blocking=True)\n" in copied + "\n", copied
    assert "(1)!" not in copied
    assert not [line for line in copied.splitlines() if line != line.rstrip()], copied


@pytest.mark.named_pages
@pytest.mark.parametrize("path,name", [("/getting-started/device-tour/", "getting-started-device-tour.ipynb"),
                                       ("/en/training/end-to-end/", "training-end-to-end.ipynb")])
def test_a_notebook_page_offers_colab_and_downloads(page, server, path, name):
    page.goto(server + path)
    colab = page.locator("a.reader-colab")
    assert colab.is_visible()
    assert colab.get_attribute("href").endswith("/" + name)
    names = [a.get_attribute("download") for a in page.locator("a.reader-download").all()]
    assert name in names and name.replace(".ipynb", ".py") in names
