"""mkdocs hook: the validation report page and each page's validated line.

The logic is devguide.report (tests/devguide/report.py), installed with the
project (`pip install -e .`); this file only hands mkdocs its two hooks.
"""

from devguide.report import on_page_content, on_page_markdown  # noqa: F401
