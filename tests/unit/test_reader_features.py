"""The reader features' logic, without a build: each page's code as a script, the
repository links, the served Markdown and llms.txt, the print page's rewriting.

The built site is tested in tests/site/test_reader_features.py."""

import ast
import textwrap
from urllib.parse import parse_qs, urlsplit

import pytest

from devguide import paths
from devguide.mkdocs_plugin.reader import downloads, llms, printing, repository

FENCE = "`" * 3
SNIPPET = "snippets/devices/show_visible_gpus.py"


def page(tmp_path, text, name="page.md"):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).replace("'''", FENCE), encoding="utf-8")
    return path


PAGE = f"""\
    # A page {{ #a-page }}

    '''python
    x = 1
    print(x)
    '''

    <!--pytest-codeblocks:expected-output-->
    '''text
    1
    '''

    <!--pytest.mark.cuda-->
    '''python
    import torch

    note = \"\"\"
    kept as written
    \"\"\"
    y = torch.ones(1, device="cuda")
    '''

    <!--pytest.mark.skip(reason="needs the network")-->
    '''bash
    git clone {{{{ repo_url }}}}.git
    '''

    '''bash
    python {SNIPPET}
    '''

    '''python
    --8<-- "{SNIPPET}"
    '''

    '''python
    z = x + 1
    '''

    <!--pytest-codeblocks:cont-->
    '''python
    assert z == 2
    '''
"""


def test_a_page_script_holds_the_blocks_in_order_as_the_harness_runs_them(tmp_path):
    from devguide.source.blocks import page_blocks

    path = page(tmp_path, PAGE)
    blocks = page_blocks(path)
    script = downloads.page_script(path, "A page", "https://example.org/a/", "https://github.com/o/r")
    cells = downloads.split_cells(script)
    assert len(cells) == len(blocks) == 6
    kinds = [c.kind for c in downloads.cells(path)]
    assert kinds == ["python", "cuda", "excused", "bash", "python", "python"]
    # a plain block: its code unchanged, its verified output as comments after it
    assert cells[0][1].startswith("x = 1\nprint(x)\n")
    assert "# | 1" in cells[0][1]
    # the CUDA block: the same statements under `if _has_cuda():`, the string unchanged
    guarded = ast.parse(cells[1][1])
    (node,) = guarded.body
    assert isinstance(node, ast.If) and ast.unparse(node.test) == "_has_cuda()"
    assert ast.dump(ast.Module(node.body, [])) == ast.dump(ast.parse(blocks[1].code))
    # excused and bash blocks: commented out, the reason named, the repository filled in
    assert "needs the network" in cells[2][0]
    assert cells[2][1].startswith("# git clone https://github.com/o/r.git")
    assert cells[3][1].startswith(f"# python {SNIPPET}")
    # an include expanded, a continuation joined to its block
    assert (paths.REPO / SNIPPET).read_text(encoding="utf-8").strip() in cells[4][1]
    assert cells[5][1].startswith("z = x + 1\nassert z == 2\n")
    # the program the bash block runs is named, with where to get it
    assert f"https://github.com/o/r/blob/main/{SNIPPET}" in script.split("\n# %% ")[0]
    compile(script, "page.py", "exec")


def test_a_page_script_carries_the_programs_it_runs_and_writes_them_out(tmp_path):
    """Review 2026-12-06, problem 3: a downloaded script that runs a program under
    snippets/ runs alone. The program travels inside it and its first run writes it
    under the folder it runs from (a program already there is left as it is)."""
    import subprocess
    import sys

    path = page(tmp_path / "docs", PAGE)
    script = downloads.page_script(path, "A page", "https://example.org/a/", "https://github.com/o/r")
    program = (paths.REPO / SNIPPET).read_text(encoding="utf-8")
    head = script.split("\n# %% ")[0]
    assert "_SNIPPETS" in head and program.splitlines()[0] in head
    run = tmp_path / "run"
    run.mkdir()
    (run / "page.py").write_text(head, encoding="utf-8")  # everything before the first block
    subprocess.run([sys.executable, "page.py"], cwd=run, check=True, capture_output=True, timeout=120)
    assert (run / SNIPPET).read_text(encoding="utf-8") == program
    (run / SNIPPET).write_text("print('mine')\n", encoding="utf-8")
    subprocess.run([sys.executable, "page.py"], cwd=run, check=True, capture_output=True, timeout=120)
    assert (run / SNIPPET).read_text(encoding="utf-8") == "print('mine')\n"
    assert sorted(p.relative_to(run).as_posix() for p in run.rglob("*") if p.is_file()) == ["page.py", SNIPPET]


def test_the_cuda_guard_keeps_multiline_strings_and_fstrings():
    code = 'a = """\nline\n  indented\n"""\nb = f"""{a}\nmore"""\nprint(a + b)\n'
    guarded = downloads.guarded(code)
    assert guarded.startswith("if _has_cuda():\n    a = ")
    ns_plain, ns_guarded = {}, {"_has_cuda": lambda: True}
    exec(compile(code, "plain", "exec"), ns_plain)
    exec(compile(guarded, "guarded", "exec"), ns_guarded)
    assert ns_plain["a"] == ns_guarded["a"] and ns_plain["b"] == ns_guarded["b"]


def test_download_names_and_places():
    """A download's name holds its section, so that it shadows no module when run
    in its own folder (``numpy.py`` would hide numpy from its own ``import numpy``)."""
    moving = paths.DOCS / "en" / "devices" / "moving.md"
    assert downloads.site_path(moving, ".py") == "en/devices/devices-moving.py"
    assert downloads.site_path(moving, ".md") == "en/devices/moving.md"
    assert downloads.download_name(moving, ".py") == "devices-moving.py"
    numpy_page = paths.DOCS / "en" / "devices" / "numpy.md"
    assert downloads.download_name(numpy_page, ".py") == "devices-numpy.py"
    errors = paths.DOCS / "zh" / "reference" / "errors" / "numpy.md"
    assert downloads.download_name(errors, ".py") == "reference-errors-numpy.py"
    start = paths.DOCS / paths.DEFAULT_LANGUAGE / "getting-started" / "index.md"
    assert downloads.site_path(start, ".md") == "getting-started/index.md"
    assert downloads.download_name(start, ".py") == "getting-started.py"
    assert downloads.site_path(start, ".py") == "getting-started/getting-started.py"
    tour = paths.DOCS / "en" / "getting-started" / "device-tour.py"
    assert downloads.site_path(tour, ".ipynb") == "en/getting-started/getting-started-device-tour.ipynb"
    home = paths.DOCS / paths.DEFAULT_LANGUAGE / "index.md"
    assert downloads.download_name(home, ".py") == "pytorch-device-guide.py"


DEVICE_PAGE = """\
    # A page {{ #a-page }}

    <!--pytest.mark.mps-->
    '''python
    import torch

    x = torch.ones(1, device="mps")
    '''

    <!--pytest.mark.xpu-->
    '''python
    import torch

    x = torch.ones(1, device="xpu")
    '''

    <!--pytest.mark.pinned-->
    '''python
    import torch

    assert torch.__version__.split("+")[0] == "0.0.1"
    '''

    '''python
    import sklearn
    try:
        import triton
    except ImportError:
        triton = None
    '''
"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_device_only_and_version_blocks_are_guarded_and_other_releases_warned(tmp_path, monkeypatch, lang):
    """MPS- and XPU-only blocks run under their guard like CUDA's; a block that checks
    the pinned torch runs only on it; on another release the script warns once which
    release the page was validated with, and runs to its end."""
    import warnings

    import torch

    monkeypatch.setattr(downloads, "page_language", lambda page: lang)
    path = page(tmp_path, DEVICE_PAGE)
    script = downloads.page_script(path, "A page", "https://example.org/a/", "https://github.com/o/r")
    tests = [ast.unparse(ast.parse(body).body[0].test) for _, body in downloads.split_cells(script)[:3]]
    assert tests == ["_has_mps()", "_has_xpu()", "_on_validated_torch()"]
    header = script.split("\n# %% ")[0]
    assert "`pip install scikit-learn`" in header and "triton" not in header  # an optional import is not needed
    monkeypatch.setattr(torch, "__version__", "9.9.0")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body = script.replace("import sklearn", "sklearn = None")  # the import is not what is tested here
        exec(compile(body, "page.py", "exec"), {"__name__": "__main__"})
    (warning,) = [str(w.message) for w in caught]
    assert paths.pinned_torch() in warning and "9.9.0" in warning


def test_the_header_names_the_packages_beside_torch_and_numpy():
    moving = paths.DOCS / "en" / "devices" / "moving.md"
    assert downloads.needed_packages(moving) == []
    evaluation = paths.DOCS / "en" / "training" / "evaluation.md"
    assert downloads.needed_packages(evaluation) == ["scikit-learn"]


def test_headings_anchors_become_html_anchors_outside_fences():
    from devguide.mkdocs_plugin.reader.notebook_downloads import html_anchors

    text = "## Pick a device { #pick-a-device }\n\n```python\n# x { #kept }\n```\n# # Cell { #cell }\n"
    assert html_anchors(text) == (
        '## Pick a device <a id="pick-a-device"></a>\n\n```python\n# x { #kept }\n```\n# # Cell <a id="cell"></a>\n'
    )


def test_notebook_outputs_are_read_back_from_the_rendered_run():
    from devguide.mkdocs_plugin.reader.notebook_downloads import outputs_from_html

    html = (
        '<div class="jp-Cell jp-MarkdownCell jp-Notebook-cell"><h1>T</h1></div>'
        '<div class="jp-Cell jp-CodeCell jp-Notebook-cell">'  # mkdocs-jupyter's wrapper
        '<div id="c1" class="jp-Cell jp-CodeCell jp-Notebook-cell   "><div class="jp-InputArea">x</div>'
        '<div class="jp-RenderedText jp-OutputArea-output" data-mime-type="text/plain" tabindex="0">'
        "<pre>a &lt; b\n</pre></div>"
        '<div class="jp-RenderedText jp-OutputArea-output" data-mime-type="application/vnd.jupyter.stderr" tabindex="0">'
        "<pre>warn\n</pre></div></div>"
        '<div class="jp-Cell jp-CodeCell jp-Notebook-cell jp-mod-noOutputs"><div class="jp-InputArea">y</div></div>'
        '<div class="jp-Cell jp-CodeCell jp-Notebook-cell"><div class="jp-InputArea">z</div>'
        '<div class="jp-RenderedText jp-OutputArea-output jp-OutputArea-executeResult" data-mime-type="text/plain" '
        'tabindex="0"><pre><span class="ansi">3</span></pre></div></div>'
    )
    assert outputs_from_html(html) == [
        [{"output_type": "stream", "name": "stdout", "text": "a < b\n"},
         {"output_type": "stream", "name": "stderr", "text": "warn\n"}],
        [],
        [{"output_type": "execute_result", "data": {"text/plain": "3"}, "metadata": {}}],
    ]


def test_the_colab_link_opens_the_deployed_notebook_of_this_version():
    from devguide.mkdocs_plugin.reader.notebook_downloads import colab_url

    url = colab_url("https://github.com/o/r/", "en/getting-started/getting-started-device-tour.ipynb", "2.13")
    assert url == ("https://colab.research.google.com/github/o/r/blob/gh-pages/2.13/"
                   "en/getting-started/getting-started-device-tour.ipynb")


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_a_downloaded_notebook_says_which_torch_printed_its_outputs(lang):
    """Review 2026-12-06, problem 20: the .ipynb (opened in Jupyter or Colab) names the
    torch that printed its outputs, in its metadata and in a first cell in the page's
    language; the code cells are the notebook's own, unchanged."""
    import json

    import jupytext

    from devguide.mkdocs_plugin.reader.notebook_downloads import notebook_files

    tour = paths.DOCS / lang / "getting-started" / "device-tour.py"
    code = [c.source for c in jupytext.read(tour, fmt="py:percent").cells if c.cell_type == "code"]
    nb = json.loads(notebook_files(tour, [[] for _ in code])[".ipynb"])
    torch = paths.pinned_torch()
    assert nb["metadata"]["devguide"] == {"validated_torch": torch}
    first = "".join(nb["cells"][0]["source"])
    assert nb["cells"][0]["cell_type"] == "markdown" and f"torch **{torch}**" in first, first
    assert ("构建站点时" in first) == (lang == "zh"), first
    assert ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"] == code


def _pages_branch(tmp_path, files: dict[str, str]):
    import subprocess

    def git(*args):
        return subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True, text=True)

    git("init", "-q", "-b", "gh-pages")
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "deploy")


def test_the_deploy_checks_that_each_colab_link_opens_a_published_notebook(tmp_path):
    """.ci/colab-links, which .ci/deploy runs for each version before it pushes: every
    "Open in Colab" link of the version's pages names this branch and version and a
    notebook the branch holds (review 2026-12-06, problem 20)."""
    import subprocess

    from devguide.mkdocs_plugin.reader.notebook_downloads import colab_url

    def check(*args):
        return subprocess.run(["bash", str(paths.REPO / ".ci" / "colab-links"), *args], cwd=tmp_path,
                              capture_output=True, text=True)

    link = colab_url("https://github.com/o/r", "en/nb/nb.ipynb", "2.13")
    page = f'<a href="{link}" class="md-content__button reader-colab">Colab</a>'
    _pages_branch(tmp_path, {"2.13/en/nb/index.html": page, "2.13/en/nb/nb.ipynb": "{}", "2.13/index.html": "home"})
    done = check("2.13", "gh-pages", "1")
    assert done.returncode == 0 and "1 Open-in-Colab links" in done.stdout, done.stderr
    done = check("2.13", "gh-pages", "2")
    assert done.returncode == 1 and "1 Open-in-Colab links, 2 expected" in done.stderr, done.stderr
    (tmp_path / "2.13" / "en" / "nb" / "nb.ipynb").unlink()
    subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "x"],
                   check=True)
    done = check("2.13", "gh-pages", "1")
    assert done.returncode == 1 and "2.13/en/nb/nb.ipynb, which is not published" in done.stderr, done.stderr
    deploy = (paths.REPO / ".ci" / "deploy").read_text(encoding="utf-8")
    assert 'bash .ci/colab-links "$version"' in deploy


def test_the_downloads_list_links_the_offline_copy_only_when_the_build_has_it():
    links = {"zip": "../downloads/x.zip", "print": "print.md", "llms": "llms.txt"}
    with_zip = downloads.downloads_list("en", links, "Print", 12 * 2**20)
    assert "[pytorch-device-guide-offline.zip](../downloads/x.zip) (12.0 MB)" in with_zip
def test_the_downloads_list_links_the_offline_copy_and_the_pdf_only_when_the_build_has_them():
    links = {"zip": "../downloads/x.zip", "pdf": "../downloads/x.pdf", "print": "print.md", "llms": "llms.txt"}
    with_both = downloads.downloads_list("en", links, "Print", 12 * 2**20, 7 * 2**20)
    assert "[pytorch-device-guide-offline.zip](../downloads/x.zip) (12.0 MB)" in with_both
    assert "[Print](print.md)" in with_both and "[PDF](../downloads/x.pdf) (7.0 MB)" in with_both
    without = downloads.downloads_list("zh", links, "打印", None)
    assert "../downloads/x.zip" not in without and "x.pdf" not in without
    assert "[打印](print.md)" in without and "[llms.txt](llms.txt)" in without
    # nothing about how the site is built: a reader cannot act on it
    for text in (without, downloads.downloads_list("en", links, "Print", None)):
        assert not any(w in text for w in ("make offline", "release job", "发布流程", "这次构建", "this build")), text


def test_the_repository_is_read_from_mkdocs_yml():
    url = repository.repo_url()
    assert url.startswith("https://github.com/") and not url.endswith("/")
    assert repository.substitute("git clone {{ repo_url }}.git", "https://x/y") == "git clone https://x/y.git"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_issue_link_is_encoded_and_names_page_and_torch(lang):
    src = "docs/en/devices/moving.md"
    url = repository.issue_url(src, "https://example.org/en/devices/moving/?a=1&b=#x", lang,
                               torch="2.13.0", url="https://github.com/o/r")
    parts = urlsplit(url)
    assert (parts.netloc, parts.path) == ("github.com", "/o/r/issues/new")
    assert all(c.isascii() and not c.isspace() for c in url)
    query = parse_qs(parts.query, strict_parsing=True)
    assert set(query) == {"title", "body"}
    assert src in query["title"][0]
    body = query["body"][0]
    assert src in body and "2.13.0" in body and "https://example.org/en/devices/moving/?a=1&b=#x" in body


def test_the_served_markdown_expands_includes_and_rebases_links_out_of_the_language(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    monkeypatch.setattr(paths, "DOCS", docs)
    monkeypatch.setattr(llms.paths, "DOCS", docs)
    lang = paths.DEFAULT_LANGUAGE
    path = page(docs, f"""\
        # P

        See [the program](../../snippets/x.py), [a page](../devices/moving.md#to) and `[not](a.md)`.

        !!! note
            An admonition.

        '''python
        --8<-- "{SNIPPET}"
        '''
        """, f"{lang}/async/p.md")
    served = llms.served_markdown(path, lambda md: md.replace("An admonition", "A filled admonition"))
    # served at async/p.md for the default language: one folder less than the source
    assert "[the program](../snippets/x.py)" in served
    assert "[a page](../devices/moving.md#to)" in served and "`[not](a.md)`" in served
    assert f"{FENCE}python\n" in served and "--8<--" not in served
    assert (paths.REPO / SNIPPET).read_text(encoding="utf-8").strip() in served
    assert "!!! note\n    A filled admonition." in served


def test_llms_txt_follows_the_convention():
    text = llms.llms_txt("Guide", "What it is,\n  in short.", "Read this.", [
        llms.Section("Devices", [("Choosing", "devices/choosing.md", "Pick one.")]),
        llms.Section("Optional", [("Print", "print/", "")]),
    ])
    assert text.splitlines()[:5] == ["# Guide", "", "> What it is, in short.", "", "Read this."]
    assert "## Devices\n\n- [Choosing](devices/choosing.md): Pick one.\n" in text
    assert "## Optional\n\n- [Print](print/)\n" in text


def test_first_sentence_joins_chinese_lines_without_a_space(tmp_path):
    path = page(tmp_path, "# 标题\n\n读完这一页，你会知道\n设备。第二句。\n")
    assert llms.first_sentence(path) == "读完这一页，你会知道设备。"
    path = page(tmp_path, "---\nsearch:\n  exclude: true\n---\n# T\n\nSee [x](y.md)\nnow. More.\n", "b.md")
    assert llms.first_sentence(path) == "See x now."


def test_the_print_page_rewrites_ids_and_links():
    moving = printing.PrintedPage(
        "devices/moving/", "Moving",
        '<h1 id="moving">Moving</h1><a href="#moving">here</a> '
        '<a href="../choosing/#pick">there</a> <a href="../../assets/x.png">file</a> '
        '<input id="__tabbed_1_1" name="__tabbed_1"><label for="__tabbed_1_1">Tab</label> '
        '<a href="https://pytorch.org/">out</a><code>id="kept"</code>',
    )
    choosing = printing.PrintedPage("devices/choosing/", "Choosing", '<h2 id="pick">Pick</h2>')
    html = printing.combine([moving, choosing], "print/", "en")
    assert '<section class="print-page" id="devices-moving">' in html
    assert 'id="devices-moving--moving"' in html and 'href="#devices-moving--moving"' in html
    assert 'href="#devices-choosing--pick"' in html and 'id="devices-choosing--pick"' in html
    assert 'href="../assets/x.png"' in html
    assert 'id="devices-moving--__tabbed_1_1" name="devices-moving--__tabbed_1"' in html
    assert 'for="devices-moving--__tabbed_1_1"' in html
    assert 'href="https://pytorch.org/"' in html and '<code>id="kept"</code>' in html
    assert 'href="#devices-moving">Moving</a>' in html  # the contents


def test_the_print_page_works_with_the_offline_build_urls():
    home = printing.PrintedPage("index.html", "Home", '<a href="devices/moving.html#x">m</a>')
    moving = printing.PrintedPage("devices/moving.html", "Moving", '<a href="../index.html">home</a>')
    html = printing.combine([home, moving], "print.html", "en")
    assert 'href="#devices-moving--x"' in html and 'href="#home"' in html


def test_the_downloads_list_links_from_each_page_and_from_its_markdown():
    from devguide.mkdocs_plugin.reader.takeaways import _links_from

    zh, zip_path = paths.DEFAULT_LANGUAGE, f"downloads/{downloads.OFFLINE_ZIP}"
    # in the page: source links, which mkdocs resolves (the print page is zh/print.md)
    assert _links_from(f"{zh}/getting-started/index.md", zh, False, True) == {
        "zip": f"../../{zip_path}", "pdf": f"../../downloads/pytorch-device-guide-{zh}.pdf",
        "print": "../print.md", "llms": "../llms.txt"}
    # in its served Markdown (getting-started/index.md): links in the built site
    assert _links_from(f"{zh}/getting-started/index.md", zh, True, True) == {
        "zip": f"../{zip_path}", "pdf": f"../downloads/pytorch-device-guide-{zh}.pdf", "print": "../print/", "llms": "../llms.txt"}
    assert _links_from("en/index.md", "en", True, True) == {
        "zip": f"../{zip_path}", "pdf": "../downloads/pytorch-device-guide-en.pdf", "print": "print/", "llms": "llms.txt"}


def test_the_pdfs_are_published_and_linked_beside_the_print_page(tmp_path, monkeypatch):
    """With PRINT_PDFS (the release job), a build publishes each language's PDF at
    downloads/ and the print page links its own; a folder without them stops the build."""
    from mkdocs.exceptions import PluginError

    from devguide.mkdocs_plugin.reader import pdf

    assert pdf.published({}) == {}
    with pytest.raises(PluginError, match="make pdf"):
        pdf.published({pdf.PDFS_ENV: str(tmp_path)})
    for lang in paths.LANGUAGES:
        (tmp_path / pdf.pdf_name(lang)).write_bytes(b"%PDF-1.4\n")
    found = pdf.published({pdf.PDFS_ENV: str(tmp_path)})
    assert {lang: p.name for lang, p in found.items()} == {lang: f"pytorch-device-guide-{lang}.pdf" for lang in paths.LANGUAGES}
    page = printing.source("en", ("../downloads/pytorch-device-guide-en.pdf", 3 * 2**20))
    assert "[PDF](../downloads/pytorch-device-guide-en.pdf) (3.0 MB)" in page
    assert "PDF](" not in printing.source("en")
