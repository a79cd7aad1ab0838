"""The whole guide as a PDF per language (``make pdf``), printed by the Chromium the
site tests already drive (Playwright's ``page.pdf``) from each language's print
page (``devguide.mkdocs_plugin.reader.printing``).

``make pdf`` prints them from the offline build (``build/offline``, ``make
offline``: the one build the release job makes besides mike's, read from its
folder) into ``build/artifacts/pdf/``. Before printing, every ``<details>`` is
opened (a closed one prints only its summary) and every link that leaves the
print page is made absolute on the published site (``site_url``), so that the
PDF's links lead to the site, not to the folder it was printed from; links to a
page inside the print page stay internal. The print stylesheet
(``docs/assets/stylesheets/validation.css``) wraps long code lines instead of
cutting them.

With ``PRINT_PDFS`` naming that folder (the release job, ``.ci/deploy``), a build
publishes the PDFs at ``downloads/`` and links them beside the print page
(``devguide.mkdocs_plugin.reader.takeaways``, ``devguide.mkdocs_plugin.reader.downloads.downloads_list``).

    python -m devguide pdf [SITE] [OUT]   # defaults: build/offline build/artifacts/pdf
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from devguide import paths, settings

PDFS_ENV = "PRINT_PDFS"  # the folder of the PDFs to publish with the site (.ci/deploy)
OUT = paths.BUILD / "artifacts" / "pdf"


def pdf_name(lang: str) -> str:
    return f"pytorch-device-guide-{lang}.pdf"


def print_page(site: Path, lang: str) -> Path:
    """A built site's print page of ``lang``: print.html (offline build) or print/index.html."""
    root = site / paths.url_prefix(lang)
    flat = root / "print.html"
    return flat if flat.exists() else root / "print" / "index.html"


def published(env: dict | None = None) -> dict[str, Path]:
    """The PDFs this build publishes: language → file (``PRINT_PDFS``; none when unset).
    A folder that lacks one of them stops the build: the home page would offer it."""
    folder = settings.current(env).print_pdfs
    if not folder:
        return {}
    found = {lang: Path(folder) / pdf_name(lang) for lang in paths.LANGUAGES}
    missing = [str(p) for p in found.values() if not p.is_file()]
    if missing:
        from mkdocs.exceptions import PluginError

        raise PluginError(f"{PDFS_ENV}={folder}: missing {', '.join(missing)}; make them with `make pdf` first")
    return found


def site_url() -> str:
    text = (paths.REPO / "mkdocs.yml").read_text(encoding="utf-8")
    found = re.search(r"^site_url:\s*(\S+)", text, re.M)
    url = found.group(1) if found else "https://example.invalid/"
    return url if url.endswith("/") else url + "/"


# Run in the print page before printing: the site's name as the title, with the
# torch version, the date and the site's address under it; open every <details>; make each link
# that leaves the page absolute on the published site (folder-style addresses:
# the offline build's moving.html and index.html become moving/ and ./).
PREPARE = """([root, base, subtitle]) => {
  for (const d of document.querySelectorAll("details")) d.open = true;
  const h1 = document.querySelector("article h1");
  const name = document.querySelector(".md-header__topic .md-ellipsis");
  if (h1 && name) {
    h1.textContent = name.textContent.trim();
    const p = document.createElement("p");
    p.className = "print-subtitle";
    p.textContent = subtitle;
    h1.after(p);
  }
  for (const a of document.querySelectorAll("a[href]")) {
    const href = a.getAttribute("href");
    if (!href || href.startsWith("#")) continue;
    const url = new URL(href, location.href);
    if (!url.href.startsWith(root)) continue;
    let rest = url.href.slice(root.length);
    rest = rest.replace(/(^|\\/)index\\.html(?=$|[#?])/, "$1").replace(/\\.html(?=$|[#?])/, "/");
    a.setAttribute("href", base + rest);
  }
}"""

FOOTER = (
    '<div style="width:100%;font-size:8px;color:#666;text-align:center;font-family:sans-serif">'
    '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
)


def _subtitle(lang: str, base: str) -> str:
    import datetime

    from devguide.mkdocs_plugin.words import date

    torch = settings.current().site_torch or paths.pinned_torch()
    today = date(lang, datetime.date.today().isoformat())
    return f"torch {torch} · {today} · {base}"


def make(site: Path, out: Path = OUT, langs=None, base: str | None = None, browser=None) -> dict[str, Path]:
    """Print each language's print page of ``site`` to ``out``; language → PDF.
    ``browser``: a Chromium already started with Playwright (the tests'), else one is."""
    if browser is None:
        from playwright.sync_api import sync_playwright

        from devguide.dev.site_check import launch

        with sync_playwright() as p:
            started = launch(p)
            try:
                return make(site, out, langs, base, started)
            finally:
                started.close()
    out.mkdir(parents=True, exist_ok=True)
    base = base or site_url()
    site = site.resolve()
    root = site.as_uri() + "/"
    made = {}
    context = browser.new_context(viewport={"width": 1000, "height": 1400})
    try:
        page = context.new_page()
        for lang in langs or paths.LANGUAGES:
            source = print_page(site, lang)
            if not source.is_file():
                raise FileNotFoundError(f"{paths.rel(source)}: no print page (build the site first)")
            page.goto(source.as_uri(), wait_until="load", timeout=300_000)
            page.emulate_media(media="print")
            page.evaluate(PREPARE, [root, base, _subtitle(lang, base)])
            target = out / pdf_name(lang)
            # not tagged: a tagged PDF of the guide is twice the size (about 29 MB instead of 13 MB)
            page.pdf(
                path=str(target), format="A4", print_background=True, outline=True,
                margin={"top": "14mm", "bottom": "16mm", "left": "12mm", "right": "12mm"},
                display_header_footer=True, header_template="<span></span>", footer_template=FOOTER,
            )
            made[lang] = target
    finally:
        context.close()
    return made


def page_count(pdf: Path) -> int:
    """The number of pages of a PDF that Chromium wrote (its page objects)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf.read_bytes()))


def main(argv: list[str]) -> int:
    site = Path(argv[0]) if argv else paths.BUILD / "offline"
    out = Path(argv[1]) if len(argv) > 1 else OUT
    for lang, path in make(site, out).items():
        print(f"{paths.rel(path)}: {page_count(path)} pages, {path.stat().st_size / 2**20:.1f} MB ({lang})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
