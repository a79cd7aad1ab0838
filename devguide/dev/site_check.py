"""The built site: checks (internal links and anchors, external requests), a local
server, the Chromium launch and the search box -- shared by the site tests, the
offline tests and ``bench``."""

from __future__ import annotations

import contextlib
import http.server
import re
import threading
import time
from functools import partial
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

# attributes whose URL the browser fetches by itself while loading the page
FETCHED = {("script", "src"), ("img", "src"), ("iframe", "src"), ("source", "src"),
           ("video", "src"), ("audio", "src"), ("embed", "src"), ("object", "data")}
FETCHED_LINK_RELS = {"stylesheet", "preload", "icon", "modulepreload", "prefetch", "manifest", "preconnect", "dns-prefetch"}


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[int, str, str, str]] = []  # line, tag, attr, url

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if a.get(key):
                self.ids.add(a[key])
        line = self.getpos()[0]
        if tag == "a" and a.get("href") is not None:
            self.links.append((line, tag, "href", a["href"]))
        elif tag == "link" and a.get("href"):
            rels = set((a.get("rel") or "").split())
            self.links.append((line, tag, "rel:" + ",".join(sorted(rels)), a["href"]))
        for t, attr in FETCHED:
            if tag == t and a.get(attr):
                self.links.append((line, tag, attr, a[attr]))


def parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def is_external(url: str) -> bool:
    return bool(urlsplit(url).scheme in ("http", "https") or url.startswith("//"))


def check_site(site: Path) -> tuple[list[str], list[str]]:
    """Return (broken internal links/anchors, external requests), each 'file:line: …'."""
    pages = {p: parse(p) for p in site.rglob("*.html")}
    broken, external = [], []
    for path, page in pages.items():
        where = path.relative_to(site).as_posix()
        for line, tag, attr, url in page.links:
            fetched = (tag, attr) in FETCHED or (
                tag == "link" and set(attr.removeprefix("rel:").split(",")) & FETCHED_LINK_RELS
            )
            if is_external(url):
                if fetched:
                    external.append(f"{where}:{line}: <{tag}> loads {url}")
                continue
            if url.startswith(("mailto:", "javascript:", "data:", "tel:")) or tag == "link" and "alternate" in attr and url.endswith(".xml"):
                continue
            parts = urlsplit(url)
            if parts.path.startswith("/"):
                target = site / unquote(parts.path).lstrip("/")
            elif parts.path:
                target = (path.parent / unquote(parts.path)).resolve()
            else:
                target = path
            if target.is_dir() or not parts.path.rsplit("/", 1)[-1] and parts.path:
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{where}:{line}: <{tag} {attr.split(':')[0]}=\"{url}\"> points to a missing file")
                continue
            frag = unquote(parts.fragment)
            if frag and target.suffix == ".html" and target in pages and frag not in pages[target].ids:
                broken.append(f"{where}:{line}: <a href=\"{url}\">: no id=\"{frag}\" in {target.relative_to(site).as_posix()}")
    for css in site.rglob("*.css"):
        for n, text in enumerate(css.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for m in re.finditer(r"(?:@import\s+|url\()\s*['\"]?((?:https?:)?//[^'\")\s]+)", text):
                external.append(f"{css.relative_to(site).as_posix()}:{n}: loads {m.group(1)}")
    return broken, external


# --------------------------------------------------------------------------- serving and browsing

# Chromium flags: headless, no sandbox (CI runs as root), nothing fetched behind our back
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(directory: Path):
    """A loopback HTTP server for ``directory``; yields its base URL."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(directory)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()


def build_site(config_file="mkdocs.yml", site_dir: Path | None = None, cwd: Path | None = None):
    """``mkdocs build --strict``; returns the completed process."""
    import os
    import subprocess
    import sys

    from devguide import paths

    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config_file), "-d", str(site_dir or paths.SITE)],
        cwd=cwd or paths.REPO, env=env, capture_output=True, text=True, timeout=600,
    )


def launch(playwright):
    """The Chromium that devguide.dev.browser found, started with ARGS."""
    from devguide.dev.browser import find_chromium

    return playwright.chromium.launch(executable_path=find_chromium() or "/usr/bin/chromium", args=ARGS)


def search(page, query: str, timeout_ms: int = 10_000) -> tuple[list[str], float]:
    """Type ``query`` into the open page's search box; (result links, seconds to results).

    Results of the previous query are cleared first, so a stale list is never
    read; CJK needs a key event after fill() to trigger the search."""
    box = page.locator("input.md-search__input")
    box.click()
    box.fill("")
    page.wait_for_function("() => document.querySelectorAll('.md-search-result__item').length === 0")
    started = time.perf_counter()
    box.fill(query)
    box.press("End")
    page.wait_for_function(
        "q => document.querySelector('input.md-search__input').value === q && "
        "document.querySelectorAll('.md-search-result__item').length > 0",
        arg=query,
        timeout=timeout_ms,
    )
    elapsed = time.perf_counter() - started
    hrefs = page.locator(".md-search-result__item > a").evaluate_all("els => els.map(e => e.href)")
    return hrefs, elapsed
