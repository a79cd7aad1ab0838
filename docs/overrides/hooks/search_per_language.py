"""One search index per language.

mkdocs-static-i18n merges every language into ``/search/search_index.json``,
so a reader of the English site would get Chinese results and vice versa.
After the last language is built we split the index: Chinese (default) entries
stay in ``/search/search_index.json``, English ones go to
``/en/search/search_index.json`` (locations unchanged, relative to the site
root). English pages fetch their own index (``docs/assets/javascripts/search-index.js``
rewrites the request); Material's ``base`` is left alone, so the version
selector and result links work as usual.

The offline build (``make offline``) reads ``search/search_index.js`` from a
``<script>``: that file holds every language's index and picks the page's.

Material also fetches ``sitemap.xml`` under every language root it is linked
to (``<link rel="alternate">``); static-i18n writes only the root one, so each
other language root gets a copy (it lists the pages of all languages).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from mkdocs.plugins import event_priority


@event_priority(-200)  # after static-i18n has built every language and merged the index
def on_post_build(config) -> None:
    i18n = config.plugins.get("i18n")
    if i18n is None or getattr(i18n, "building", False):
        return  # a nested per-language build: the merged index is not written yet
    site = Path(config.site_dir)
    root = site / "search" / "search_index.json"
    if not root.exists():
        return
    index = json.loads(root.read_text(encoding="utf-8"))
    others = [lang for lang in i18n.build_languages if lang != i18n.default_language]
    by_lang = {i18n.default_language: []} | {lang: [] for lang in others}
    for doc in index["docs"]:
        first = doc["location"].split("/", 1)[0]
        by_lang[first if first in others else i18n.default_language].append(doc)
    scripts = {}
    for lang, docs in by_lang.items():
        path = root if lang == i18n.default_language else site / lang / "search" / "search_index.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps(dict(index, docs=docs), ensure_ascii=False)
        path.write_text(data, encoding="utf-8")
        scripts[lang] = data
    if root.with_suffix(".js").exists():  # offline build: one script, the page's language
        choices = ",".join(f'"{lang}":{data}' for lang, data in scripts.items())
        root.with_suffix(".js").write_text(
            f"var __index = ({{{choices}}})[document.documentElement.lang.split('-')[0]]"
            f' || ({{{choices}}})["{i18n.default_language}"]',
            encoding="utf-8",
        )
    sitemap = site / "sitemap.xml"
    for lang in others:
        if sitemap.exists():
            shutil.copyfile(sitemap, site / lang / "sitemap.xml")
