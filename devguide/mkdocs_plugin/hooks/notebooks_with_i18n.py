"""Make mkdocs-jupyter and mkdocs-static-i18n work together.

Upstream problems (ultrabug/mkdocs-static-i18n#198, see ../shared/TOOLCHAIN.md), and
the look of the notebooks:

1. static-i18n rebuilds every file as a plain ``File`` in its ``on_files``
   (priority -100), dropping mkdocs-jupyter's ``NotebookFile`` wrapper. The
   notebooks would then be copied as raw source to ``…/index.html`` and left out
   of search. We run after it and wrap them again, keeping the per-language
   destination that static-i18n computed.
2. For the same reason notebooks get no language alternates: we add them, so
   the language switcher keeps the reader on the same notebook.
3. static-i18n's sitemap lists the pages it saw before (1) and so leaves the
   notebooks out: they are added to its list.
4. static-i18n runs one build per language; mkdocs-jupyter resets its set of
   used cache entries at every build and evicts the others at the end of every
   build, so each language evicts the other's executed notebooks and nothing is
   ever cached. We collect the used entries over all language builds and evict
   only after the last one.
5. The build's run of a notebook (mkdocs-jupyter) keeps only its HTML: each code
   cell's outputs are read back from it for the downloaded ``.ipynb``.
6. Notebook pages carry JupyterLab's CSS and prompts (1 MB, another look):
   they are rewritten to look and weigh like the Markdown pages.
7. Not an upstream problem: the notebooks run in a confined kernel
   (``confined_kernel``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath
from types import SimpleNamespace

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files
from mkdocs_jupyter.plugin import NotebookFile

from devguide import settings
from devguide.mkdocs_plugin.reader.notebook_downloads import outputs_from_html
from devguide.run import kernel, sandbox

_patched: set[int] = set()


def _plugins(config):
    return config.plugins.get("mkdocs-jupyter"), config.plugins.get("i18n")


@event_priority(-200)
def on_files(files: Files, config) -> Files:
    jupyter, i18n = _plugins(config)
    if jupyter is None:
        return files
    wrapped = []
    for file in list(files):
        if isinstance(file, NotebookFile) or not jupyter.should_include(file):
            continue
        notebook = NotebookFile(file, **config)
        wrapped.append(notebook)
        # keep static-i18n's destination (default language at the root)
        notebook.dest_path = file.dest_path
        notebook.abs_dest_path = file.abs_dest_path
        notebook.url = file.url
        if i18n is not None:
            notebook.alternates = _alternates(file, i18n, config)
        # replace in place: static-i18n's Files subclass resolves nav paths per language
        files.remove(file)
        files.append(notebook)
    # static-i18n's sitemap lists the documentation pages it saw in its on_files,
    # before the notebooks were pages again: add them (each build adds its language's)
    listed = getattr(i18n, "i18n_files_per_language", {}).get(getattr(i18n, "current_language", None))
    if listed is not None:
        listed.extend(n for n in wrapped if n not in listed)
    return files


def _alternates(file, i18n, config) -> dict:
    """The language switcher's targets: the same notebook in each language.

    static-i18n treats notebooks as assets and gives them no alternates, so the
    switcher would send readers to the other language's home page.
    """
    norm = PurePosixPath(file.norm_src_uri)
    # the offline build (use_directory_urls: false) addresses pages as "….html"
    page_url = norm.with_suffix("").as_posix() + ("/" if config.use_directory_urls else ".html")
    found = {}
    for lang in i18n.build_languages:
        if (Path(config.docs_dir) / lang / norm).exists():
            prefix = "" if lang == i18n.default_language else f"{lang}/"
            found[lang] = SimpleNamespace(url=prefix + page_url, page=None)
    return found


def on_config(config):
    jupyter, i18n = _plugins(config)
    if jupyter is not None:
        confined_kernel(jupyter.config)
    if jupyter is None or i18n is None or id(jupyter) in _patched:
        return config
    _patched.add(id(jupyter))
    pre_build, post_build = jupyter.on_pre_build, jupyter.on_post_build

    def on_pre_build(config):
        # static-i18n builds the default language first: start a new set there
        if i18n.current_language == i18n.default_language:
            pre_build(config)

    def on_post_build(config):
        # … and builds the other languages from its own on_post_build, in order:
        # evict stale cache entries after the last one only.
        if i18n.current_language == i18n.build_languages[-1]:
            post_build(config)
            sandbox.sweep_stale()  # the folders of the kernels that ran the notebooks (7)

    events = config.plugins.events
    for name, replacement in (("pre_build", on_pre_build), ("post_build", on_post_build)):
        original = pre_build if name == "pre_build" else post_build
        events[name] = [replacement if m == original else m for m in events[name]]
    return config


def confined_kernel(options) -> None:
    """7. The notebooks run in the kernel that confines them as a block is confined
    (devguide.run.kernel, issue 39 H19): its spec's folder goes on JUPYTER_PATH, and a build
    that would execute them in any other kernel stops here, with what to write."""
    if not options.get("execute"):
        return
    if options.get("kernel_name") != kernel.NAME:
        raise PluginError(
            f"mkdocs.yml: mkdocs-jupyter executes the notebooks in kernel {options.get('kernel_name')!r}: "
            f"write `kernel_name: {kernel.NAME}` under mkdocs-jupyter, the kernel that runs them confined "
            "as a block is (devguide/run/kernel.py)")
    path = settings.current().jupyter_path
    if str(kernel.SPECS) not in path:
        os.environ.update(JUPYTER_PATH=os.pathsep.join([str(kernel.SPECS), *path]))


_HEADING = re.compile(r'<h([1-6]) id="([^"]*)">(.*?)</h\1>', re.S)
_ATTR = re.compile(r"\s*\{\s*#([\w-]+)\s*\}")


def on_page_content(html: str, page, config, files) -> str:
    """Stable anchors in notebooks, as on Markdown pages.

    nbconvert ignores ``{ #anchor }`` on notebook headings (it prints it) and
    gives Chinese headings ``id=""``. Use the explicit anchor, give an empty H1
    the notebook's file name, and fix the table of contents to match. Runs
    before the search plugin reads the page, so search links use the same ids.
    """
    if not isinstance(page.file, NotebookFile):
        return html
    # what each code cell printed in the build's run, for the downloaded .ipynb (devguide.mkdocs_plugin.reader.takeaways)
    page.notebook_outputs = outputs_from_html(html)
    renamed = {}
    for level, old, inner in _HEADING.findall(html):
        m = _ATTR.search(inner)
        if m:
            renamed[old] = m.group(1)
        elif not old and level == "1":
            renamed[old] = PurePosixPath(page.file.src_uri).stem
    for old, new in renamed.items():
        html = html.replace(f'id="{old}">', f'id="{new}">', 1)
        if old:
            html = html.replace(f'href="#{old}"', f'href="#{new}"')
    ids = set(re.findall(r'id="([^"]+)"', html))

    def fix(items):
        for item in items:
            m = _ATTR.search(item.title)
            if m:
                item.id, item.title = m.group(1), _ATTR.sub("", item.title)
            elif item.id not in ids and "" in renamed:  # the empty-id H1 ("_1" in the TOC)
                item.id = renamed[""]
            fix(item.children)

    fix(page.toc)
    html = like_the_other_pages(_ATTR.sub("", html), page)
    if not config.use_directory_urls:
        html = _offline_links(html, page)
    return html


_PAGE_LINK = re.compile(r'href="((?:\.\./)+[\w./-]*/)(#[^"]*)?"')


def _offline_links(html: str, page) -> str:
    """Notebook links name built pages as a server has them (``../amp/#recipe``,
    relative to the notebook's folder URL; see devguide.source.links); the offline build
    (use_directory_urls: false) addresses pages as ``….html`` files."""
    import posixpath

    folder = posixpath.splitext(page.file.dest_uri)[0]  # training/end-to-end(.html) as a folder

    def one(m):
        target = posixpath.normpath(posixpath.join(folder, m.group(1))) + ".html"
        here = posixpath.dirname(page.file.dest_uri) or "."
        return f'href="{posixpath.relpath(target, here)}{m.group(2) or ""}"'

    return _PAGE_LINK.sub(one, html)


_LABEL = {"zh": "输出", "en": "Output"}
_DROP = [
    re.compile(r"<(style|script)\b[^>]*>.*?</\1>", re.S),  # 574 kB of Jupyter CSS, its JS
    re.compile(r'<div class="zeroclipboard-container">.*?</clipboard-copy>\s*</div>', re.S),
    re.compile(r'<div class="clipboard-copy-txt"[^>]*>.*?</div>', re.S),
    re.compile(r'<div class="jp-(?:Input|Output)Prompt[^"]*">.*?</div>', re.S),  # In [1]:
]
_CODE = re.compile(r'<div class="highlight-ipynb hl-(\w+)"><pre>(.*?)</pre></div>', re.S)
_OUTPUT = re.compile(
    r'<div class="jp-RenderedText jp-OutputArea-output"( data-mime-type="[^"]*")? tabindex="0">\s*<pre>(.*?)</pre>\s*</div>', re.S
)


def like_the_other_pages(html: str, page) -> str:
    """Notebook cells as the Markdown pages show code and outputs.

    mkdocs-jupyter inlines JupyterLab's CSS (574 kB per page), a clipboard script
    and In [n]: prompts. Drop them; code cells become Material's code blocks (its
    colours, copy button), text outputs the site's output blocks (hooks/reading.py).
    """
    lang = page.file.src_uri.split("/", 1)[0]
    label = _LABEL.get(lang, _LABEL["en"])
    for pattern in _DROP:
        html = pattern.sub("", html)
    html = _CODE.sub(lambda m: f'<div class="language-{m.group(1)} highlight"><pre><code>{m.group(2)}</code></pre></div>', html)
    html = _OUTPUT.sub(
        lambda m: f'<div class="language-text highlight output jp-OutputArea-output"{m.group(1) or ""} data-label="{label}">'
        f"<pre><code>{m.group(2)}</code></pre></div>",
        html,
    )
    # wrappers that JupyterLab makes focusable: nothing to do there with a keyboard here
    html = html.replace('<div class="jp-Cell-inputWrapper" tabindex="0">', '<div class="jp-Cell-inputWrapper">')
    return html.replace('class="anchor-link"', 'class="headerlink" title="Permanent link"')
