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

Served (not offline), each language's index is in two parts: ``search_index.json``
with every section's title, code names and first ≈480 characters, and
``search_rest.json`` with the rest of the texts, which the worker fetches after
its first answer (``split_index``).

Each language's index is also made smaller and fit for the site's own search
worker (``docs/assets/javascripts/search-worker.js``, which replaces Material's
lunr worker; see ``slim``): code blocks leave the text that results show, and
the API names written in them (``torch.cuda.synchronize``, ``set_to_none``) are
kept in a ``code`` field, so a search for them still finds the section. Pages
point at that worker instead of Material's (``on_post_page``).

Material also fetches ``sitemap.xml`` under every language root it is linked
to (``<link rel="alternate">``); static-i18n writes only the root one, so each
other language root gets a copy (it lists the pages of all languages).
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

from mkdocs.plugins import event_priority

WORKER = "assets/javascripts/search-worker.js"
# the site's other scripts that explain themselves at length, served without their comments
SHRUNK = ("assets/javascripts/search-box.js", "assets/javascripts/reading.js", "assets/javascripts/search-index.js",
          "assets/javascripts/sitemaps.js", "assets/javascripts/language-switcher.js")
# the shapes of pasted messages and their family pages, for the worker (in the index, not in
# the worker every page loads)
# the worker's part of search_families.json: its "about" explains the file to contributors
FAMILIES = {k: v for k, v in json.loads((Path(__file__).with_name("search_families.json")).read_text(encoding="utf-8")).items()
            if k != "about"}
MATERIAL_WORKER = re.compile(r"assets/javascripts/workers/search\.[0-9a-f]+\.min\.js")

PRE = re.compile(r"<pre\b[^>]*>.*?</pre>", re.S)
TAG = re.compile(r"<[^>]+>")
# a dotted, underscored or camel-case name: torch.cuda.synchronize, set_to_none, GradScaler
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
# names in nearly every example say nothing about a section
BOILERPLATE_SHARE = 0.2


# what of a code block a reader may search for: torch's own names, environment
# variables, class names, and the method of a local variable (x.pin_memory → pin_memory)
API_ROOTS = ("torch.", "nn.", "F.", "optim.", "dist.", "np.", "numpy.")


def _code_names(block: str) -> list[str]:
    names = []
    for n in NAME.findall(html.unescape(TAG.sub("", block))):
        if n.startswith(API_ROOTS):
            names.append(n)
        elif re.fullmatch(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+", n) or re.fullmatch(r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+", n):
            names.append(n)  # CUDA_LAUNCH_BLOCKING, GradScaler
        elif "." in n and re.fullmatch(r"[a-z][a-z0-9]*_[a-z0-9_]+", n.rsplit(".", 1)[1]):
            names.append(n.rsplit(".", 1)[1])  # x.pin_memory → pin_memory
    return [n for n in names if len(n) > 3]


def slim(docs: list[dict]) -> list[dict]:
    """Code blocks out of each section's text; the API names they use, not already in
    its prose and not in the examples of most pages, into ``code`` (once per page).
    jieba's word breaks (U+200B, three bytes each) become spaces: the search worker
    reads Chinese words between spaces and drops the spaces between Chinese
    characters from the results it shows."""
    pages: dict[str, list[str]] = {}
    per_doc = []
    for doc in docs:
        blocks = PRE.findall(doc["text"])
        names = list(dict.fromkeys(n for b in blocks for n in _code_names(b)))
        per_doc.append(names)
        pages.setdefault(doc["location"].split("#")[0], []).extend(names)
    share: dict[str, float] = {}
    for names in pages.values():
        for n in set(names):
            share[n] = share.get(n, 0) + 1 / len(pages)
    seen: dict[str, set[str]] = {}
    out = []
    for doc, names in zip(docs, per_doc, strict=True):
        text = re.sub(r"[\s\u200b]{2,}", " ", PRE.sub(" ", doc["text"]).replace("\u200b", " ")).strip()
        title = re.sub(r"[\s\u200b]{2,}", " ", doc["title"].replace("\u200b", " ")).strip()
        prose = title + " " + text
        page = seen.setdefault(doc["location"].split("#")[0], set())
        keep = [n for n in names if share[n] <= BOILERPLATE_SHARE and n not in page and n not in prose]
        page.update(keep)
        slim_doc = dict(doc, title=title, text=text)
        if keep:
            slim_doc["code"] = " ".join(keep)
        out.append(slim_doc)
    return out


# The first part of the index (what Material fetches) holds each section's first
# HEAD_CHARS characters of text, in whole top-level elements; the worker fetches
# the rest once it has answered the first query (issue: ≤ 150 kB gzip before the
# first result; 2026-12-07: the zh worker and first part 147 kB gzip, at 500 characters 150.3 kB;
# later that day, with eleven entries and two pages more, 150.1 kB at 480: 450 characters).
HEAD_CHARS = 450
ELEMENT = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*?(/?)>")
VOID = {"br", "hr", "img", "input", "wbr"}


def split_text(text: str, limit: int = HEAD_CHARS) -> tuple[str, str]:
    """``text`` (a section's HTML) in two at a top-level element boundary: the
    whole elements that fit in ``limit`` characters (at least one) and the rest.
    ``head + " " + rest`` is the text again (whitespace between them collapsed)."""
    depth, cut = 0, None
    for m in ELEMENT.finditer(text):
        closing, name, selfclosing = m.group(1), m.group(2).lower(), m.group(3)
        if name in VOID or selfclosing:
            continue
        depth += -1 if closing else 1
        if depth == 0 and closing:
            if cut is None or m.end() <= limit:
                cut = m.end()
            if m.end() >= limit:
                break
    if cut is None or not text[cut:].strip():
        return text, ""
    return text[:cut].rstrip(), text[cut:].lstrip()


def split_index(docs: list[dict]) -> tuple[list[dict], list[str]]:
    """The first part of each entry (its text cut by split_text) and the rest of the texts, in order."""
    heads, rests = [], []
    for doc in docs:
        head, more = split_text(doc["text"])
        heads.append(dict(doc, text=head))
        rests.append(more)
    return heads, rests


# a ```text block as Material renders it (a quoted message, a printed output), and a heading with its id
TEXT_BLOCK_OR_HEADING = re.compile(
    r'<div class="language-text highlight"><pre\b[^>]*>(?P<text>.*?)</pre>|<h[1-6]\b[^>]*\bid="(?P<id>[^"]+)"', re.S)


def quoted_messages(site: Path, docs: list[dict]) -> list[list[str]]:
    """The text blocks of the language's pages (the messages an entry quotes: "Also pasted as",
    the other forms, what a block printed), each once, lower-cased without digits, with the
    location of the index's section it stands in: ``[location, text]``. slim() keeps no code
    block in the index, and a message quoted only in one was "not documented": pasting it
    showed the notice that the site lacks it, first, and its own entry was often not among
    the results (the real-material benchmark: 16 % of the pastes of documented messages).
    The worker's documented() reads them, and a paste a section quotes opens that section."""
    sections = {doc["location"] for doc in docs}
    pages = dict.fromkeys(doc["location"].partition("#")[0] for doc in docs)
    found: dict[str, str] = {}
    for path in pages:
        page = site / path / "index.html" if path.endswith("/") or not path else site / path
        if not page.is_file():
            continue
        where = path
        for m in TEXT_BLOCK_OR_HEADING.finditer(page.read_text(encoding="utf-8")):
            if m.group("id") is not None:
                where = f"{path}#{m.group('id')}" if f"{path}#{m.group('id')}" in sections else where
                continue
            text = re.sub(r"\s+", " ", re.sub(r"\d+", " ", html.unescape(TAG.sub("", m.group("text"))).lower())).strip()
            # a message the error reference quotes opens its entry there, not a topic page's output
            if text and (text not in found or ERROR_PAGE.match(where.partition("#")[0])
                         and not ERROR_PAGE.match(found[text].partition("#")[0])):
                found[text] = where
    return [[where, text] for text, where in found.items()]


# An entry of the error reference is a level-2 heading; the other forms of its message are
# level-4 headings at its end ("这条信息的其他形式：" / "Other forms of this message:").
ERROR_PAGE = re.compile(r"^(?:[a-z]{2}/)?reference/errors/[\w-]+(?:/|\.html)$")  # served, offline
HEADING = re.compile(r"<h([1-6])\b[^>]*\bid=\"([^\"]+)\"")


def variant_openings(site: Path, docs: list[dict]) -> None:
    """A result for one of the other forms of a message opens its entry: the message,
    its cause and its fix, not the variant's heading at the entry's end (review
    2026-12-06, problem 1). Each variant's index entry gets ``open``, the entry's
    location with ``?v=<the variant's anchor>``: the worker links there, and the page
    (search-box.js) marks the variant where it stands and links down to it. The
    variant's own text still matches the query."""
    levels: dict[str, dict[str, tuple[int, str | None]]] = {}
    for doc in docs:
        path, _, anchor = doc["location"].partition("#")
        if not anchor or not ERROR_PAGE.match(path):
            continue
        if path not in levels:
            page = site / path / "index.html" if path.endswith("/") else site / path
            found, entry = {}, None
            if page.exists():
                for level, ident in HEADING.findall(page.read_text(encoding="utf-8")):
                    entry = ident if level == "2" else entry
                    found[ident] = (int(level), entry)
            levels[path] = found
        level, entry = levels[path].get(anchor, (2, None))
        if level > 2 and entry:
            doc["open"] = f"{path}?v={anchor}#{entry}"


def glossary_synonyms(docs_dir: Path) -> dict[str, list[str]]:
    """Readers on the Chinese site type English names for the site's Chinese terms
    ("optimizer" for 优化器) and the glossary's aliases (固定内存 for 锁页内存): each
    such word → the term the pages use, from the glossary's table rows."""
    path = docs_dir / "zh" / "reference" / "glossary.md"
    if not path.exists():
        return {}
    found: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[0] in ("中文", "") or set(cells[0]) <= {"-", " "}:
            continue
        zh_terms = [t.strip() for t in cells[0].split("<br>")[0].split(" / ")]
        en_terms = [t.strip() for t in cells[1].split(" / ")]
        if len(zh_terms) != len(en_terms):
            en_terms = [cells[1]] * len(zh_terms)
        for zh, en in zip(zh_terms, en_terms, strict=True):
            main, _, aliases = zh.partition("（")
            main = main.strip()
            if not main or not re.search(r"[\u4e00-\u9fff]", main):
                continue
            # the glossary's parentheses hold aliases; a longer phrase there explains instead
            words = [a.strip() for a in re.split(r"[、，,]", aliases.rstrip("）"))
                     if a.strip() and len(a.strip()) <= 5 and not re.search(r"[的把上之有]", a)]
            en_main, _, en_aliases = en.partition(" (")
            words += [w.strip() for w in en_main.split(",")] + [a.strip() for a in re.split(r"[,;]", en_aliases.rstrip(")"))
                                  if a.strip() and len(a.split()) <= 3 and not re.match(r"(a|an|the) ", a.strip())]
            for word in words:
                word = word.lower()
                if word and word != main and len(word) > 1 and not re.search(r"[()/`<>]", word):
                    found.setdefault(word, [])
                    if main not in found[word]:
                        found[word].append(main)
    return found


# a comment after code on a line whose code has no string, regular expression or division
TRAILING_COMMENT = re.compile(r"^([^\"'/`]*?)\s+//\s.*$")


# spaces around punctuation, taken out of a line that holds no string, regular expression or
# division (no quote, slash or backtick) and no two signs in a row that would fuse ("a - -b")
AROUND_PUNCTUATION = re.compile(r"[ \t]*([=+\-*<>!&|,;:?(){}\[\]])[ \t]*")
NO_LITERAL = re.compile(r"^[^\"'/`]*$")
FUSING = re.compile(r"[+\-]\s+[+\-]")


def _tight(line: str) -> str:
    if NO_LITERAL.match(line) and not FUSING.search(line):
        return AROUND_PUNCTUATION.sub(r"\1", line)
    return line


def shrink_worker(path: Path) -> None:
    """The worker as served: without its comment lines, the comments after code where
    nothing in the code could hold a ``//``, indentation, and the spaces around
    punctuation on lines without literals (its source explains itself at length;
    12 → 9 kB gzip, loaded with every page; 2026-12-07: 37.1 → 34.3 kB uncompressed,
    the notebook page's first load was over its 400 kB again). A line of closing brackets only
    ("}", "});") goes on the end of the line before it, unless that line holds a "//" (a comment
    left after code, or a literal: the closers would be read as part of it); no line break before a
    closing bracket changes what a line means (2026-12-07: the notebook page 74 bytes over again)."""
    if path.exists():
        lines = (TRAILING_COMMENT.sub(r"\1", line.strip()) for line in path.read_text(encoding="utf-8").splitlines())
        out: list[str] = []
        for line in (_tight(line) for line in lines if line and not line.startswith("//")):
            if out and CLOSERS.match(line) and "//" not in out[-1]:
                out[-1] += line
            else:
                out.append(line)
        path.write_text("\n".join(out) + "\n", encoding="utf-8")


CLOSERS = re.compile(r"[\])}]+[;,]?$")


# the site's stylesheets, loaded with every page: served without their comments and indentation
# (the notebook page's first load went over its 400 kB with the review's fixes of 2026-12-06)
STYLES = ("assets/stylesheets/reading.css", "assets/stylesheets/validation.css")
# (and again, with the search box keeping its focus, 2026-12-07: whitespace between tokens goes too)
CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
CSS_STRING = re.compile(r"(\"[^\"]*\"|'[^']*')")
CSS_AROUND = re.compile(r"\s*([{};,>])\s*")
# a number's leading zero (0.8em -> .8em; and again, 2026-12-07: a nav entry and the worker's
# device rule took the notebook page 11 bytes over its 400 kB)
CSS_LEADING_ZERO = re.compile(r"(?<![\w.#-])0\.(\d)")


def shrink_styles(path: Path) -> None:
    """A stylesheet as served: without its comments, the whitespace around its
    braces, semicolons, commas, child combinators and after its colons, and the
    leading zeros of its numbers (strings, such as ``content: attr(data-label) ": "``,
    kept as written)."""
    if path.exists():
        parts = CSS_STRING.split(CSS_COMMENT.sub("", path.read_text(encoding="utf-8")))
        for i in range(0, len(parts), 2):  # the parts between strings
            parts[i] = CSS_LEADING_ZERO.sub(r".\1", re.sub(r":\s+", ":", CSS_AROUND.sub(r"\1", re.sub(r"\s+", " ", parts[i]))))
        path.write_text("".join(parts).strip().replace(";}", "}") + "\n", encoding="utf-8")


PRE_BODY = re.compile(r"(<pre\b[^>]*>)(.*?)(</pre>)", re.S)


def _light(search_event):
    """Material's search plugin parses each page's HTML with Python's HTMLParser,
    code blocks included, where every token of highlighted code is a <span>: about
    170 000 tags for the site, most of the plugin's time (a third of the build).
    slim() then drops the code blocks and keeps only the names written in them, so
    the plugin is given each code block as plain text (entities kept) and the page's
    own HTML back afterwards; the index comes out the same."""
    def on_page_context(context, *, page, config, nav):
        html = page.content
        if html:
            page.content = PRE_BODY.sub(lambda m: m.group(1) + TAG.sub("", m.group(2)) + m.group(3), html)
        try:
            return search_event(context, page=page, config=config, nav=nav)
        finally:
            page.content = html
    on_page_context.devguide_light = True  # type: ignore[attr-defined]
    return on_page_context


@event_priority(-100)  # every plugin is registered by now
def on_config(config):
    events = config.plugins.events["page_context"]
    for i, event in enumerate(events):
        owner = getattr(event, "__self__", None)
        if type(owner).__name__ == "SearchPlugin" and not getattr(event, "devguide_light", False):
            events[i] = _light(event)
    return config


def on_post_page(output: str, page, config) -> str:
    """Every page's search runs in the site's worker, not Material's lunr worker."""
    return MATERIAL_WORKER.sub(WORKER, output)


@event_priority(-200)  # after static-i18n has built every language and merged the index
def on_post_build(config) -> None:
    i18n = config.plugins.get("i18n")
    if i18n is None or getattr(i18n, "building", False):
        return  # a nested per-language build: the merged index is not written yet
    site = Path(config.site_dir)
    root = site / "search" / "search_index.json"
    if not root.exists():
        return
    for script in (WORKER, *SHRUNK):
        shrink_worker(site / script)
    for sheet in STYLES:
        shrink_styles(site / sheet)
    index = json.loads(root.read_text(encoding="utf-8"))
    others = [lang for lang in i18n.build_languages if lang != i18n.default_language]
    by_lang: dict[str, list[dict]] = {i18n.default_language: []} | {lang: [] for lang in others}
    for doc in index["docs"]:
        first = doc["location"].split("/", 1)[0]
        by_lang[first if first in others else i18n.default_language].append(doc)
    scripts = {}
    offline = root.with_suffix(".js").exists()  # offline build: file:// pages, the whole index in one script
    for lang, docs in by_lang.items():
        path = root if lang == i18n.default_language else site / lang / "search" / "search_index.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        settings = dict(index["config"])
        settings["families"] = FAMILIES  # the shapes of pasted messages (search-worker.js)
        quoted = quoted_messages(site, docs)  # in the rest of the index: the first part is at its budget
        if lang == "zh":
            settings["synonyms"] = glossary_synonyms(Path(config.docs_dir))
        docs = slim(docs)
        variant_openings(site, docs)
        data = json.dumps(dict(index, config=dict(settings, families=dict(FAMILIES, quoted=quoted)), docs=docs),
                          ensure_ascii=False, separators=(",", ":"))
        scripts[lang] = data
        if not offline:  # served: the first part for Material's request, the rest for the worker
            heads, rests = split_index(docs)
            rest = path.with_name("search_rest.json")
            settings["rest"] = rest.relative_to(site).as_posix()
            rest.write_text(json.dumps({"text": rests, "quoted": quoted}, ensure_ascii=False, separators=(",", ":")),
                            encoding="utf-8")
            data = json.dumps(dict(index, config=settings, docs=heads), ensure_ascii=False, separators=(",", ":"))
        path.write_text(data, encoding="utf-8")
    if offline:
        choices = ",".join(f'"{lang}":{data}' for lang, data in scripts.items())
        root.with_suffix(".js").write_text(  # every index once (not once per branch); lang="zh-Hans" → zh
            f"var __index = (function (all) {{ return all[document.documentElement.lang.split('-')[0]]"
            f' || all["{i18n.default_language}"]; }})({{{choices}}})',
            encoding="utf-8",
        )
    sitemap = site / "sitemap.xml"
    for lang in others:
        if sitemap.exists():
            shutil.copyfile(sitemap, site / lang / "sitemap.xml")


def on_post_template(output_content: str, template_name: str, config) -> str:
    """The same for pages rendered from templates alone (404.html)."""
    return MATERIAL_WORKER.sub(WORKER, output_content)
