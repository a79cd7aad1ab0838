"""One search index per language.

mkdocs-static-i18n merges every language into ``/search/search_index.json``,
so a reader of the English site gets Chinese results and vice versa. After the
last language is built we split the index: Chinese (default) entries stay at
``/search/``, English ones move to ``/en/search/``, and English pages get their
language root as ``base`` in Material's ``__config`` -- the search worker loads
``<base>/search/search_index.json``.

Material also fetches ``sitemap.xml`` under every language root it is linked
to (``<link rel="alternate">``); static-i18n writes only the root one, so each
other language root gets a copy (it lists the pages of all languages).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from mkdocs.plugins import event_priority

_BASE = re.compile(r'("base":\s*")([^"]*)(")')


def _i18n(config):
    return config.plugins.get("i18n")


def _language(page, i18n) -> str:
    first = page.url.split("/", 1)[0]
    return first if first in i18n.build_languages else i18n.default_language


def on_post_page(output: str, page, config) -> str:
    i18n = _i18n(config)
    if i18n is None:
        return output
    lang = _language(page, i18n)
    if lang == i18n.default_language:
        return output
    start = output.find('<script id="__config"')
    if start < 0:
        return output
    end = output.find("</script>", start)
    patched = _BASE.sub(lambda m: f"{m.group(1)}{m.group(2).rstrip('/') or '.'}/{lang}/{m.group(3)}", output[start:end], count=1)
    return output[:start] + patched + output[end:]


def _write(path: Path, index: dict, inline: bool) -> None:
    data = json.dumps(index, ensure_ascii=False)
    path.write_text(data, encoding="utf-8")
    if inline:  # the offline build reads the index from a script (search_index.js)
        path.with_suffix(".js").write_text(f"var __index = {data}", encoding="utf-8")


@event_priority(-200)  # after static-i18n has built every language and merged the index
def on_post_build(config) -> None:
    i18n = _i18n(config)
    if i18n is None or getattr(i18n, "building", False):
        return  # a nested per-language build: the merged index is not written yet
    root = Path(config.site_dir) / "search" / "search_index.json"
    if not root.exists():
        return
    index = json.loads(root.read_text(encoding="utf-8"))
    inline = root.with_suffix(".js").exists()
    others = [lang for lang in i18n.build_languages if lang != i18n.default_language]
    docs = index["docs"]
    for lang in others:
        prefix = f"{lang}/"
        mine = [dict(d, location=d["location"][len(prefix):]) for d in docs if d["location"].startswith(prefix)]
        target = Path(config.site_dir) / lang / "search" / "search_index.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        _write(target, dict(index, docs=mine), inline)
    index["docs"] = [d for d in docs if not d["location"].startswith(tuple(f"{lang}/" for lang in others))]
    _write(root, index, inline)
    sitemap = Path(config.site_dir) / "sitemap.xml"
    for lang in others:
        if sitemap.exists():
            shutil.copyfile(sitemap, Path(config.site_dir) / lang / "sitemap.xml")
