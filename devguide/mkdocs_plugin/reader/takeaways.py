"""The site's reader features, as mkdocs events (the MkDocs plugin ``devguide``,
devguide/mkdocs_plugin/__init__.py, registers them).

Per language build (mkdocs-static-i18n builds each language in turn):

* ``{{ repo_url }}`` in a page becomes mkdocs.yml's ``repo_url``
  (``devguide.mkdocs_plugin.reader.repository``); ``<!-- downloads -->`` becomes the list of the
  site's downloads (offline copy, print page, llms.txt; ``devguide.mkdocs_plugin.reader.downloads``);
* each page gets its tools (``page.reader_tools``, shown by
  ``docs/overrides/partials/actions.html``): its code as ``.py``
  (``devguide.mkdocs_plugin.reader.downloads``), the ``.ipynb`` and jupytext ``.py`` of a notebook, its
  Markdown, and a "report a problem" link;
* beside each page's HTML the build writes its Markdown and its code
  (``devguide.mkdocs_plugin.reader.llms``, ``devguide.mkdocs_plugin.reader.downloads``), and per language an ``llms.txt``;
* ``print/`` holds every page on one page (``devguide.mkdocs_plugin.reader.printing``);
* ``snippets/`` is served at the site's root, so pages can link the programs
  they tell readers to run; with ``OFFLINE_ZIP`` set (the release job), the
  offline copy is served at ``downloads/``, and with ``PRINT_PDFS`` (``make pdf``'s
  folder, ``devguide.mkdocs_plugin.reader.pdf``) each language's PDF, linked beside its print page.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files, InclusionLevel

from devguide import paths as dg
from devguide import settings
from devguide.mkdocs_plugin.reader import (
    downloads,
    llms,
    notebook_downloads,
    pdf,
    printing,
    repository,
)

OFFLINE_ZIP_ENV = "OFFLINE_ZIP"  # path of the offline copy to publish with the site (ci.yml deploy job)

# what one language build gathers: the served Markdown of each page, its generated files
_build: dict = {}


def _lang(config) -> str:
    i18n = config.plugins.get("i18n")
    return i18n.current_language if i18n is not None else dg.DEFAULT_LANGUAGE


def _place(file: File, dest_uri: str, use_directory_urls: bool) -> File:
    file.dest_uri = dest_uri
    file.url = file._get_url(use_directory_urls)
    return file


def _print_url(lang: str, use_directory_urls: bool) -> str:
    return dg.url_prefix(lang) + ("print/" if use_directory_urls else "print.html")


def _offline_zip() -> Path | None:
    value = settings.current().offline_zip
    if not value:
        return None
    path = Path(value)
    if not path.is_file():
        raise PluginError(f"{OFFLINE_ZIP_ENV}={value}: no such file; build it with `make offline` first")
    return path


def _source(page) -> Path | None:
    """The page's file in docs/<lang>/, or None for a generated page."""
    path = getattr(page.file, "abs_src_path", None)
    if not path or not Path(path).is_relative_to(dg.DOCS):
        return None
    return Path(path)


@event_priority(-300)  # after static-i18n (-100) and the notebook wrapper (-200)
def on_files(files: Files, config) -> Files:
    lang = _lang(config)
    _build.clear()
    _build.update(lang=lang, markdown={}, zip=_offline_zip(), pdfs=pdf.published())
    for path in sorted((dg.REPO / "snippets").rglob("*.py")):
        src = "snippets/" + path.relative_to(dg.REPO / "snippets").as_posix()
        if files.get_file_from_path(src) is None:
            files.append(File.generated(config, src, abs_src_path=str(path)))
    if _build["zip"] is not None:
        src = f"downloads/{downloads.OFFLINE_ZIP}"
        if files.get_file_from_path(src) is None:
            files.append(File.generated(config, src, abs_src_path=str(_build["zip"].resolve())))
    for path in _build["pdfs"].values():
        src = f"downloads/{path.name}"
        if files.get_file_from_path(src) is None:
            files.append(File.generated(config, src, abs_src_path=str(path.resolve())))
    llms_txt = File.generated(config, f"{lang}/llms.txt", content="")
    files.append(_place(llms_txt, dg.url_prefix(lang) + "llms.txt", config.use_directory_urls))
    _build["llms"] = llms_txt
    own_pdf = _build["pdfs"].get(lang)
    pdf_link = (f"../downloads/{own_pdf.name}", own_pdf.stat().st_size) if own_pdf else None
    page: Any = File.generated(config, f"{lang}/print.md", content=printing.source(lang, pdf_link), inclusion=InclusionLevel.NOT_IN_NAV)
    url = _print_url(lang, config.use_directory_urls)
    _place(page, url + "index.html" if url.endswith("/") else url, config.use_directory_urls)
    # what static-i18n gives its own files (attributes mkdocs's File does not declare, hence Any):
    # the language switcher then stays on the print page
    page.alternates = {x: SimpleNamespace(url=_print_url(x, config.use_directory_urls)) for x in dg.LANGUAGES}
    page.locale = page.locale_alternate_of = page.localization = lang
    page.norm_src_uri = "print.md"
    files.append(page)
    _build["print"] = page
    return files


@event_priority(-300)  # after static-i18n has translated the titles
def on_nav(nav, config, files):
    lang = _lang(config)
    t = llms.text(lang)
    overview, sections = llms.Section("概览" if lang == "zh" else "Overview"), []

    def entry(page):
        source = _source(page)
        assert source is not None  # walk() gives pages with a source
        return page.title or llms.title(source), downloads.site_path(source, ".md").removeprefix(dg.url_prefix(lang)), llms.first_sentence(source)

    def walk(items, section):
        for item in items:
            if getattr(item, "is_page", False) and _source(item) is not None:
                section.links.append(entry(item))
            elif getattr(item, "is_section", False):
                walk(item.children, section)

    for item in nav.items:
        if getattr(item, "is_section", False):
            sections.append(llms.Section(item.title))
            walk(item.children, sections[-1])
        else:
            walk([item], overview)
    optional = llms.Section(t["optional"], [(t["print"], _print_url(lang, True).removeprefix(dg.url_prefix(lang)), "")])
    for other in dg.LANGUAGES:
        if other != lang:
            target = os.path.relpath(dg.url_prefix(other) + "llms.txt", dg.url_prefix(lang) or ".")
            optional.links.append((t["other"], target, ""))
    summary = config.site_description or ""
    intro = t["intro"].format(torch=dg.pinned_torch())
    _build["llms"].content_string = llms.llms_txt(config.site_name, summary, intro, [overview, *sections, optional])
    _build["nav"] = nav
    return nav


def _links_from(src_uri: str, lang: str, served: bool, use_directory_urls: bool) -> dict[str, str]:
    """Where the offline copy, the print page and llms.txt are, seen from a page: as
    source links (mkdocs resolves them) in the page, as site links in its served Markdown."""
    folder = os.path.dirname(src_uri)  # zh/getting-started
    if served:
        here = os.path.dirname(dg.url_prefix(lang) + src_uri.split("/", 1)[1]) or "."
        return {
            "zip": os.path.relpath(f"downloads/{downloads.OFFLINE_ZIP}", here),
            "pdf": os.path.relpath(f"downloads/{pdf.pdf_name(lang)}", here),
            "print": os.path.relpath(_print_url(lang, True), here) + "/",
            "llms": os.path.relpath(dg.url_prefix(lang) + "llms.txt", here),
        }
    return {
        "zip": os.path.relpath(f"downloads/{downloads.OFFLINE_ZIP}", folder),
        "pdf": os.path.relpath(f"downloads/{pdf.pdf_name(lang)}", folder),
        "print": os.path.relpath(f"{lang}/print.md", folder),
        "llms": os.path.relpath(f"{lang}/llms.txt", folder),
    }


def _fill(markdown: str, page, config, served: bool = False) -> str:
    lang = _lang(config)
    markdown = repository.substitute(markdown, config.repo_url.rstrip("/"))
    if downloads.MARKER in markdown:
        links = _links_from(page.file.src_uri, lang, served, config.use_directory_urls)
        size = _build["zip"].stat().st_size if _build.get("zip") else None
        own_pdf = _build.get("pdfs", {}).get(lang)
        markdown = markdown.replace(
            downloads.MARKER, downloads.downloads_list(
                lang, links, printing.text(lang)["title"], size, own_pdf.stat().st_size if own_pdf else None)
        )
    return markdown


@event_priority(100)  # before the other hooks read the page
def on_page_markdown(markdown: str, page, config, files) -> str:
    source = _source(page)
    if source is None or source.suffix != ".md":
        return markdown
    from devguide.mkdocs_plugin.report import validation_page

    def transform(text: str) -> str:
        return validation_page.on_page_markdown(_fill(text, page, config, served=True), page, config, files)

    _build["markdown"][source] = llms.served_markdown(source, transform)
    return _fill(markdown, page, config)


def on_page_context(context, page, config, nav):
    lang = _lang(config)
    if page.file is _build.get("print"):
        printed = [
            printing.PrintedPage(p.url, p.title, p.content or "")
            for p in nav.pages
            if _source(p) is not None
        ]
        page.content = page.content.replace(printing.MARKER, printing.combine(printed, page.url, lang))
        return context
    source = _source(page)
    if source is None:
        return context
    t = repository.text(lang)
    tools = []
    if source.suffix == ".py":
        tools.append(dict(href=downloads.site_path(source, ".ipynb"), download=downloads.download_name(source, ".ipynb"),
                          label=t["download_notebook"], text=f"{t['download_short']} .ipynb"))
        tools.append(dict(href=downloads.site_path(source, ".py"), download=downloads.download_name(source, ".py"),
                          label=t["download_jupytext"], text=f"{t['download_short']} .py"))
    elif _has_code(source) and not _is_home(source):  # a landing page's one example is no download
        tools.append(dict(href=downloads.site_path(source, ".py"), download=downloads.download_name(source, ".py"),
                          label=t["download"], text=t["download"]))
    colab = None
    if source.suffix == ".py":
        colab = dict(label=t["colab"], href=notebook_downloads.colab_url(
            config.repo_url, downloads.site_path(source, ".ipynb")))
    page.reader_tools = {
        "downloads": tools,
        "colab": colab,
        "notebook": source.suffix == ".py",
        "markdown": downloads.site_path(source, ".md"),
        "report": dict(label=t["report"], href=repository.issue_url(
            f"docs/{dg.rel(source).removeprefix('docs/')}", page.canonical_url or page.url, lang,
            url=config.repo_url.rstrip("/"))),
    }
    return context


def _is_home(source: Path) -> bool:
    return source.name == "index.md" and source.parent.parent == dg.DOCS


def _has_code(source: Path) -> bool:
    from devguide.source.blocks import page_blocks

    return bool(page_blocks(source))


def on_post_build(config) -> None:
    site = Path(config.site_dir)
    nav = _build.get("nav")
    if nav is None:
        return

    def write(path: str, text: str) -> None:
        target = site / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")

    for page in nav.pages:
        source = _source(page)
        if source is None:
            continue
        if source.suffix == ".py":  # a jupytext notebook, with the outputs of the build's run
            outputs = getattr(page, "notebook_outputs", None)
            for suffix, text in notebook_downloads.notebook_files(source, outputs).items():
                write(downloads.site_path(source, suffix), text)
            write(downloads.site_path(source, ".md"), llms.notebook_markdown(source))
            continue
        write(downloads.site_path(source, ".md"), _build["markdown"][source])
        if _has_code(source) and not _is_home(source):
            url = page.canonical_url or page.url
            write(downloads.site_path(source, ".py"),
                  downloads.page_script(source, page.title, url, config.repo_url.rstrip("/")))
