"""The error reference: one page per family of messages, and a hub that lists them.

``docs/<lang>/reference/errors/<family>.md`` holds the entries of one family, each
a level-2 heading with the message as its title and a stable anchor
(``## RuntimeError: … { #anchor }``). The hub, ``reference/errors/index.md``,
writes each family's heading itself and a marker ``<!--devguide:error-list
FAMILY-->`` under it; the marker becomes the list of that family's entries, with
short titles, read from the family page, so the hub never lists an entry that is
not there or misses one. A family page without a marker on the hub fails the
build with both paths named.

Headings keep the whole message (search matches it); the table of contents and
the hub show it short (``short_title``): no exception class, at most about 60
characters.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

from devguide.mkdocs_plugin import words

MARKER = re.compile(r"<!--devguide:error-list ([\w-]+)-->")
ENTRY = re.compile(r"^## (.+?) \{ #([\w-]+) \}[ \t]*$", re.M)
# "RuntimeError: ", "torch.OutOfMemoryError: ", "UserWarning: ", "[rank0]: "…
PREFIX = re.compile(r"^(?:\[rank\d+\]:\s*)?(?:[\w.]*(?:Error|Exception|Warning|Interrupt|Failure)\s*:\s+)")
LIMIT = 60


def short_title(message: str, limit: int = LIMIT) -> str:
    """The message without its exception class and code marks, cut at a word
    boundary near ``limit`` characters."""
    text = PREFIX.sub("", message.replace("`", "").strip()).strip()
    text = re.sub(r"\\(.)", r"\1", text)  # Markdown escapes (\_\_main\_\_)
    if len(text) <= limit:
        return text.rstrip(".")
    cut = text[: limit + 1].rsplit(" ", 1)[0].rstrip(" ,.;:(")
    return cut + " …"


def is_error_page(page) -> bool:
    path = Path(page.file.abs_src_path or "")
    return path.parent.name == "errors" and path.parent.parent.name == "reference"


def entries(path: Path) -> list[tuple[str, str]]:
    """(message, anchor) of each entry of a family page, in page order."""
    return ENTRY.findall(path.read_text(encoding="utf-8"))


# Which releases' strings hold each wording (devguide/dev/wording_history.py writes it)
HISTORY = Path(__file__).with_name("wording_history.json")
HEADING = re.compile(r"^(?:##|####) .+? \{ #([\w-]+) \}[ \t]*$", re.M)


def _history() -> dict:
    return json.loads(HISTORY.read_text(encoding="utf-8")) if HISTORY.exists() else {}


def printed_by(markdown: str, lang: str, record: dict) -> str:
    """Under each entry title and variant heading, the torch releases whose wheels hold
    that wording, as the wording-history tool found them (not indexed for search)."""
    wordings = record.get("wordings", {})
    checked = record.get("releases", [])
    if not checked:
        return markdown

    def line(match: re.Match) -> str:
        found = wordings.get(match.group(1), {}).get("releases")
        if not found:
            return match.group(0)
        text = words.TEXT[lang]["printed_by"].format(
            releases=words.TEXT[lang]["list_sep"].join(spans(found, checked)), first=checked[0], last=checked[-1]
        )
        return f'{match.group(0)}\n\n<p class="devguide-printed-by" data-search-exclude markdown>{text}</p>\n'

    return HEADING.sub(line, markdown)


def spans(found: list[str], checked: list[str]) -> list[str]:
    """Consecutive checked releases as one run: ["1.13.1–2.4.1", "2.13.0"]."""
    runs: list[list[str]] = []
    for v in checked:
        if v in found:
            if runs and checked.index(runs[-1][-1]) == checked.index(v) - 1:
                runs[-1].append(v)
            else:
                runs.append([v])
    return [r[0] if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs]


def on_page_markdown(markdown: str, page, config, files) -> str:
    if not is_error_page(page):
        return markdown
    if page.file.name != "index":
        lang = page.file.src_uri.split("/", 1)[0]
        return printed_by(markdown, lang if lang in words.TEXT else "zh", _history())
    folder = Path(page.file.abs_src_path).parent
    listed = set(MARKER.findall(markdown))
    missing = sorted(p.stem for p in folder.glob("*.md") if p.stem != "index" and p.stem not in listed)
    if missing:
        raise PluginError(
            f"{page.file.src_uri}: no <!--devguide:error-list FAMILY--> for "
            + ", ".join(f"{folder.name}/{m}.md" for m in missing)
            + ": add a heading and the marker for each family page to the hub"
        )

    def expand(match: re.Match) -> str:
        family = match.group(1)
        path = folder / f"{family}.md"
        if not path.exists():
            raise PluginError(f"{page.file.src_uri}: the marker names {family}, but {path} does not exist")
        return "\n".join(f"- [{short_title(message)}]({family}.md#{anchor})" for message, anchor in entries(path))

    return MARKER.sub(expand, markdown)


def on_page_content(content: str, page, config, files) -> str:
    """The table of contents of a family page shows each message short; its entries'
    headings (whole messages, up to 342 characters) are set smaller than a topic's
    section titles (``h2.error-entry``, docs/assets/stylesheets/validation.css;
    review 2026-12-06, problem 12: 13 lines of heading on a phone)."""
    if is_error_page(page) and page.file.name != "index":
        for top in page.toc:
            _shorten(top.children)
        content = content.replace("<h2 id=", '<h2 class="error-entry" id=')
    return content


def _shorten(items) -> None:
    """Entries and the variants under them, at every level."""
    for item in items:
        item.title = html.escape(short_title(html.unescape(item.title)), quote=False)
        _shorten(item.children)
