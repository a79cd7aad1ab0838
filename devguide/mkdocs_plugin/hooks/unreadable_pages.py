"""A page that is not plain UTF-8 fails alone in the build, at its line, with what to do.

One byte that is not UTF-8 made MkDocs stop with a Python traceback (it decodes every
page strictly), and a byte-order mark, which MkDocs drops, made the census read the
page's first fence differently and the build stop the same way: ``make serve`` was
down until the page was fixed. Here such a page is left out of the build with an
error that names its line (``devguide.source.fences.read_page``, the reader the
harness uses too): the other pages build and serve, and ``mkdocs build --strict``
(``make test``, CI) fails on that error.
"""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files

from devguide import paths
from devguide.source.fences import UnreadablePage, read_page

log = logging.getLogger("mkdocs.plugins.devguide")


@event_priority(50)  # before static-i18n (-100) sorts the files by language, and before any reader
def on_files(files: Files, config) -> Files:
    for file in list(files):
        path = Path(file.abs_src_path or "")
        if path.suffix != ".md" or not path.is_relative_to(paths.DOCS):
            continue
        try:
            read_page(path)
        except UnreadablePage as exc:
            log.error(f"{exc} (the page is left out of this build)")
            files.remove(file)
    return files
