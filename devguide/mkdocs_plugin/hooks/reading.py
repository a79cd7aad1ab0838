"""How the pages read: output blocks, descriptions, language tags, 404 pages.

* Printed outputs (the ``text`` fence after ``<!--pytest-codeblocks:expected-output-->``
  or ``<!--docs:expected-output torch…-->``) get the class ``output`` and a label
  in the page's language ("输出" / "Output"), styled apart from code and wrapped
  instead of scrolled (docs/assets/stylesheets/reading.css).
* Each page's ``<meta name="description">`` is its own: front matter
  ``description:`` when given, else the first paragraph under the title.
* ``<html lang="zh-Hans">`` on Chinese pages, so that browsers pick Simplified
  Chinese glyphs (``zh`` alone leaves it to the system's preference); the search
  dialog gets a name.
* Heading permalinks are titled in the page's language ("永久链接").
* One 404 page per language, its language switcher pointing at each language's
  home: static-i18n builds every language into the same
  site folder, so the English build's 404.html would replace the Chinese one. The
  Chinese page stays at /404.html (what GitHub Pages serves for any missing
  path) and sends readers of /en/… to /en/404.html.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from mkdocs.plugins import event_priority

LANG_TAGS = {"zh": "zh-Hans"}
LABELS = {
    "zh": ("输出", "torch {spec} 的输出"),
    "en": ("Output", "Output with torch {spec}"),
}
SEARCH = {"zh": "搜索", "en": "Search"}
# the title of a heading's ¶ link (Python-Markdown's toc says "Permanent link" in every language)
PERMALINK = {"zh": "永久链接", "en": "Permanent link"}
_PERMALINK = re.compile(r'(<a class="headerlink"[^>]*? title=")Permanent link"')
DESCRIPTION_LENGTH = {"zh": 110, "en": 200}

_OUTPUT = re.compile(
    r'(<!--\s*(?:pytest-codeblocks:expected-output[\w-]*|docs:expected-output\s*(?P<spec>[^>]*?))\s*-->\s*)'
    r'<div class="language-text highlight">'
)
_FIRST_P = re.compile(r"</h1>.*?<p>(.*?)</p>", re.S)


def _lang(page) -> str:
    first = page.file.src_uri.split("/", 1)[0]
    return first if first in LABELS else "zh"


def label_outputs(content: str, lang: str) -> str:
    plain, variant = LABELS[lang]

    def tag(m):
        spec = (m.group("spec") or "").strip()
        text = variant.format(spec=spec.removeprefix("torch").strip()) if spec else plain
        return f'{m.group(1)}<div class="language-text highlight output" data-label="{html.escape(text)}">'

    return _OUTPUT.sub(tag, content)


def description(content: str, lang: str) -> str | None:
    """The first paragraph under the title, as plain text, cut at a sentence end."""
    m = _FIRST_P.search(content)
    if not m:
        return None
    text = html.unescape(re.sub(r"<[^>]+>", "", m.group(1)))
    text = re.sub(r"\s+", " " if lang != "zh" else " ", text).strip()
    limit = DESCRIPTION_LENGTH[lang]
    if len(text) <= limit:
        return text
    cut = text[:limit]
    ends = [cut.rfind(p) for p in ("。", "；", ". ", "; ")]
    end = max(ends)
    return cut[: end + 1].strip() if end > limit // 2 else cut.rstrip() + "…"


_TABLE = re.compile(r"<table>(.*?)</table>", re.S)
_ROW = re.compile(r"<tr>.*?</tr>", re.S)


def glossary_tables(content: str) -> str:
    """The glossary's tables get the class ``glossary-table`` and each cell its column's
    name (``data-label``): the API column is wide enough for an identifier, and on a
    phone each row is a small card as in the validation report, since a table that
    scrolls sideways cut its fourth column with no hint (review 2026-12-06, problem 17)."""

    def card(match: re.Match) -> str:
        body = match.group(1)
        heads = [html.escape(re.sub(r"<[^>]+>", "", h).strip()) for h in re.findall(r"<th[^>]*>(.*?)</th>", body, re.S)]

        def row(found: re.Match) -> str:
            names = iter(heads)
            return re.sub(r"<td(?=[\s>])", lambda _: f'<td data-label="{next(names, "")}"', found.group(0))

        return f'<table class="glossary-table">{_ROW.sub(row, body)}</table>'

    return _TABLE.sub(card, content)


@event_priority(-50)  # after the other hooks have added their parts of the page
def on_page_content(content: str, page, config, files) -> str:
    lang = _lang(page)
    content = label_outputs(content, lang)
    if page.file.src_uri.endswith("reference/glossary.md"):
        content = glossary_tables(content)
    if not page.meta.get("description"):
        found = description(content, lang)
        if found:
            page.meta["description"] = found
    return content


def on_post_page(output: str, page, config) -> str:
    return without_indentation(_page_html(output, _lang(page)))


# Where whitespace is shown as written: left as it is.
_VERBATIM = re.compile(r"(<(pre|textarea|script|style)\b.*?</\2>)", re.S | re.I)
_INDENTED_BREAK = re.compile(r"[ \t]*\n\s*")


def without_indentation(output: str) -> str:
    """The theme's templates indent every tag: a fifth of a page's bytes, half of its
    navigation. A run of whitespace that holds a line break becomes that line break,
    which the browser shows the same way (one collapsed space); code blocks, scripts
    and styles keep theirs."""
    parts = _VERBATIM.split(output)
    # split keeps the whole match and the tag name: every third part is the tag name
    out = []
    for i, part in enumerate(parts):
        if i % 3 == 0:
            out.append(_INDENTED_BREAK.sub("\n", part))
        elif i % 3 == 1:
            out.append(part)
    return "".join(out)


def _page_html(output: str, lang: str) -> str:
    tag = LANG_TAGS.get(lang)
    if tag:
        output = output.replace(f'<html lang="{lang}"', f'<html lang="{tag}"', 1)
    if lang in PERMALINK:
        output = _PERMALINK.sub(rf'\g<1>{PERMALINK[lang]}"', output)
    return output.replace(
        '<div class="md-search" data-md-component="search" role="dialog">',
        f'<div class="md-search" data-md-component="search" role="dialog" aria-label="{SEARCH[lang]}">',
        1,
    )


_saved_404: dict[str, str] = {}

# Readers of another language's missing page get that language's 404 page.
_REDIRECT = (
    "<script>(function(){{var m=location.pathname.match(/^(.*?\\/)({langs})\\/(?!404\\.html)/);"
    "if(m)location.replace(m[1]+m[2]+'/404.html'+location.search+location.hash)}})()</script>"
)


_ALTERNATE = re.compile(r'(<(?:a|link)\b[^>]*?\bhref=")[^"]*("[^>]*?\bhreflang="([\w-]+)")')


def _alternates_home(text: str, config, i18n, lang: str) -> str:
    """The 404 page's language switcher (and its ``<link rel="alternate">``) points at
    each language's home: the page is no page, and static-i18n would leave there
    the alternates of the last page it built (the print page). The offline copy
    (no directory URLs, opened from a folder) links each home's index.html,
    relative to the 404 page of ``lang``."""
    from urllib.parse import urlsplit

    def folder(x: str) -> str:
        return "" if x == i18n.default_language else f"{x}/"

    if config.use_directory_urls:
        root = urlsplit(config.site_url or "/").path or "/"
        root = root if root.endswith("/") else root + "/"
    else:
        root = "../" if folder(lang) else ""
    homes = {x: root + folder(x) + ("" if config.use_directory_urls else "index.html") for x in i18n.build_languages}
    return _ALTERNATE.sub(lambda m: m.group(1) + homes.get(m.group(3), root) + m.group(2) if m.group(3) in homes
                          else m.group(0), text)


def on_post_build(config) -> None:
    """static-i18n builds the default language first, then each other language
    from its own on_post_build (priority -100, after this one), all into the same
    folder: keep the default 404 page, then move each other language's to its folder."""
    i18n = config.plugins.get("i18n")
    site = Path(config.site_dir)
    page = site / "404.html"
    if i18n is None or not page.exists():
        return
    lang = i18n.current_language
    text = _alternates_home(_page_html(page.read_text(encoding="utf-8"), lang), config, i18n, lang)
    if lang == i18n.default_language:
        others = "|".join(x for x in i18n.build_languages if x != lang)
        if others:
            text = text.replace("</head>", _REDIRECT.format(langs=others) + "</head>", 1)
        _saved_404[str(site)] = text
        page.write_text(text, encoding="utf-8")
        return
    (site / lang).mkdir(parents=True, exist_ok=True)
    (site / lang / "404.html").write_text(text, encoding="utf-8")
    if str(site) in _saved_404:
        page.write_text(_saved_404[str(site)], encoding="utf-8")
