"""The MkDocs plugin ``devguide`` (``plugins: - devguide`` in mkdocs.yml).

Registered by entry point (``[project.entry-points."mkdocs.plugins"]`` in
pyproject.toml). It has no logic of its own: each module named in ``PARTS``
keeps its event handlers (``on_files``, ``on_page_content``, …), each with its
own priority (``mkdocs.plugins.event_priority``), and this class hands every one
of them to MkDocs under its event's name, in the order of ``PARTS`` for handlers
of equal priority. Listed last under ``plugins:``, the handlers run where the
hooks they replace ran (MkDocs registers hooks after every plugin).
"""

from __future__ import annotations

from types import ModuleType

from mkdocs.plugins import BasePlugin, CombinedEvent

from devguide.mkdocs_plugin.hooks import (
    cjk_line_breaks,
    error_pages,
    notebooks_with_i18n,
    offline_build,
    quiet,
    reading,
    search_per_language,
    unreadable_pages,
)
from devguide.mkdocs_plugin.reader import takeaways
from devguide.mkdocs_plugin.report import validation_page

# Each a module of event handlers, in the order their handlers run at one priority.
PARTS: tuple[ModuleType, ...] = (
    quiet,  # third-party chatter off; serve stopped by SIGTERM removes its folder
    unreadable_pages,  # a page that is not plain UTF-8 fails alone, at its line
    notebooks_with_i18n,  # notebooks wrapped again after static-i18n, cache kept
    validation_page,  # the validation report and each page's validated line
    search_per_language,  # one search index per language, the site's own worker
    offline_build,  # the offline copy's search shim served from the site
    cjk_line_breaks,  # no spaces between Chinese lines
    error_pages,  # the error reference's hub lists each family page's entries
    takeaways,  # downloads, Markdown copies, llms.txt, the print page
    reading,  # output blocks, descriptions, language tags, 404 pages
)

EVENTS = (
    "on_startup",
    "on_config",
    "on_files",
    "on_nav",
    "on_page_markdown",
    "on_page_content",
    "on_page_context",
    "on_post_page",
    "on_post_template",
    "on_post_build",
)


def handlers(event: str) -> list:
    """The handlers of ``event`` in PARTS, each as the plain function it is."""
    return [staticmethod(getattr(part, event)) for part in PARTS if hasattr(part, event)]


class DevguidePlugin(BasePlugin):
    """Every event handler of the modules in PARTS, registered with MkDocs."""


for _event in EVENTS:
    if _found := handlers(_event):
        setattr(DevguidePlugin, _event, CombinedEvent(*_found))
