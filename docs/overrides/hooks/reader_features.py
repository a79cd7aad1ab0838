"""mkdocs hook: what readers take away from the site.

Each page's code as a ``.py`` (notebooks also as ``.ipynb``), each page as
Markdown beside its HTML, an ``llms.txt`` per language, the print page, the
snippets and the offline copy served by the site, the repository's address in
the pages, and the "report a problem" link. The logic is devguide.reader_site
(tests/devguide/reader_site.py) and the modules it names; this file only hands
mkdocs its events.
"""

from devguide.reader_site import (  # noqa: F401
    on_files,
    on_nav,
    on_page_context,
    on_page_markdown,
    on_post_build,
)
