"""One printable page per language: every page of the navigation, in order.

Material has no PDF export; a browser prints this page (or saves it as PDF) with
Material's print stylesheet, which drops the header, navigation and footer. The
site's hook makes it a page of each language (``print/``, not in the navigation,
left out of search) whose ``<!-- print-all -->`` is replaced by ``combine`` with
the rendered content of every page.

Each page's HTML was written for its own address, so ``combine`` rewrites it:

* ids (and what refers to them: ``href="#…"``, ``for``, ``name``, ``aria-*``) get
  the page's prefix, so two pages' ``#usage`` or tab groups do not collide;
* a link to a page that is on the print page becomes a link inside it
  (``../moving/#to-returns`` → ``#devices-moving--to-returns``);
* every other relative link and image is rebased onto the print page's address.
"""

from __future__ import annotations

import html as htmllib
import posixpath
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

MARKER = "<!-- print-all -->"

TEXT = {
    "zh": {
        "title": "全站打印版",
        "intro": (
            "这一页按导航顺序收录了本站每一页的内容（代码块与各页相同），用浏览器的“打印”即可打印，"
            "或选择“另存为 PDF”保存。打印时页眉、导航和页脚会被去掉，每一页从新的一张纸开始。"
        ),
        "contents": "目录",
        "pdf": "也可以直接下载排好版的 [PDF]({pdf})（{size}）。",
    },
    "en": {
        "title": "The whole guide on one page",
        "intro": (
            "This page holds every page of the site in the order of the navigation (the code blocks "
            "are those of the pages): print it from the browser, or choose \"Save as PDF\". Printing "
            "drops the header, navigation and footer, and starts each page on a new sheet."
        ),
        "contents": "Contents",
        "pdf": " It also comes ready-made as a [PDF]({pdf}) ({size}).",
    },
}


def text(lang: str) -> dict:
    return TEXT.get(lang, TEXT["en"])


def source(lang: str, pdf: tuple[str, int] | None = None) -> str:
    """The Markdown of the print page (a generated page: no file in docs/); ``pdf``:
    the link to its PDF from the page's source and the PDF's size, when the build has it."""
    from devguide.mkdocs_plugin.reader.downloads import size_text

    t = text(lang)
    # the intro speaks to a reader on screen: printed (the PDF), it is left out
    intro = t["intro"] + (t["pdf"].format(pdf=pdf[0], size=size_text(pdf[1])) if pdf else "") + "\n{: .print-intro }"
    return (
        "---\nsearch:\n  exclude: true\n---\n\n"
        f"# {t['title']} {{ #print }}\n\n{intro}\n\n{MARKER}\n"
    )


@dataclass
class PrintedPage:
    url: str  # the page's address from the site's root: "devices/moving/", "en/", "devices/moving.html"
    title: str
    content: str  # its rendered article HTML


def page_id(url: str) -> str:
    """A page's anchor on the print page: ``en/devices/moving/`` → ``en-devices-moving``."""
    path = re.sub(r"(index)?\.html$", "", url).strip("/")
    return re.sub(r"[^\w-]+", "-", path) or "home"


def _dir(url: str) -> str:
    return url.rstrip("/") if url.endswith("/") or not url else posixpath.dirname(url)


def _key(path: str) -> str:
    path = re.sub(r"(^|/)index\.html$", "", path)
    return posixpath.normpath(path) if path else "."


STYLE = re.compile(r"<style\b[^>]*>.*?</style>", re.S)
ID_ATTRS = ("id", "for", "name", "aria-controls", "aria-labelledby", "aria-describedby")
ATTR = re.compile(r'(?P<pre>\s)(?P<name>[\w:-]+)="(?P<value>[^"]*)"')


def rewrite(content: str, page: PrintedPage, pages: dict[str, str], print_url: str) -> str:
    """One page's HTML made to work inside the print page at ``print_url``
    (``pages``: key of each printed page's address → its anchor)."""
    prefix = page_id(page.url) + "--"
    base = _dir(page.url)

    def link(value: str) -> str:
        if value.startswith("#"):
            return "#" + prefix + value[1:] if len(value) > 1 else value
        parts = urlsplit(value)
        if parts.scheme or parts.netloc or value.startswith(("/", "data:", "mailto:", "javascript:")):
            return value
        target = posixpath.normpath(posixpath.join(base, htmllib.unescape(parts.path))) if parts.path else base
        anchor = pages.get(_key(target))
        if anchor is not None:
            return "#" + (f"{anchor}--{parts.fragment}" if parts.fragment else anchor)
        rebased = posixpath.relpath(target, _dir(print_url) or ".")
        if parts.path.endswith("/") and not rebased.endswith("/"):
            rebased += "/"
        return rebased + (f"?{parts.query}" if parts.query else "") + (f"#{parts.fragment}" if parts.fragment else "")

    def attr(m: re.Match) -> str:
        name, value = m.group("name"), m.group("value")
        if name in ID_ATTRS and value:
            new = " ".join(prefix + v for v in value.split()) if name.startswith("aria-") else prefix + value
        elif name in ("href", "src", "xlink:href") and value:
            new = link(value)
        else:
            return m.group(0)
        return f'{m.group("pre")}{name}="{new}"'

    # only inside tags: text and code that merely show `id="x"` are left alone
    return re.sub(r"<[a-zA-Z][^<>]*>", lambda tag: ATTR.sub(attr, tag.group(0)), content)


def combine(printed: list[PrintedPage], print_url: str, lang: str) -> str:
    """The print page's body: a table of contents, then each page in its own section."""
    # with directory URLs a page's address is its folder: "devices/moving/" → "devices/moving"
    anchors = {_key(p.url.rstrip("/")): page_id(p.url) for p in printed}
    toc = "".join(f'<li><a href="#{page_id(p.url)}">{htmllib.escape(p.title)}</a></li>' for p in printed)
    out = [f'<nav class="print-contents"><h2 id="print-contents">{text(lang)["contents"]}</h2><ol>{toc}</ol></nav>']
    seen: set[str] = set()

    def once(m: re.Match) -> str:  # notebooks repeat nbconvert's stylesheets: keep one copy
        if m.group(0) in seen:
            return ""
        seen.add(m.group(0))
        return m.group(0)

    for p in printed:
        body = STYLE.sub(once, rewrite(p.content, p, anchors, print_url))
        out.append(f'<section class="print-page" id="{page_id(p.url)}">{body}</section>')
    return "\n".join(out)
