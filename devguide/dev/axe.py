"""Accessibility checks of the built site with axe-core (Deque's engine, run in Chromium).

``make axe`` unpacks axe-core from the npm registry's tarball into ``build/vendor/axe-core/``
(devguide.dev.vendor, checksum pinned, no npm; ``make offline`` does the same for the iframe-worker shim); the browser tests inject
it into a page and run it in the light and the dark scheme. A serious or
critical violation fails: tests/site/test_browser.py checks a sample of pages in
every ``make test``, ``make test-a11y`` every page (tests/site/a11y_all.py).
"""

from __future__ import annotations

from devguide import paths
from devguide.dev import vendor

VERSION = vendor.PACKAGES["axe-core"].version
AXE = paths.BUILD / "vendor" / "axe-core" / "axe.min.js"
SCHEMES = ("default", "slate")  # Material's light and dark palettes
FAILING = ("serious", "critical")
COLOUR_RULES = ["color-contrast", "link-in-text-block"]


def axe_violations(page, source: str, within: str | None = None) -> list[str]:
    """Serious and critical violations on the loaded page, in each colour scheme.

    The scheme is switched the way Material's toggle does it (an attribute on
    <body>), so the page is loaded and axe injected once for both; the dark
    scheme is checked for what it changes, the colours."""
    page.add_script_tag(content=source)
    # Material fades colours (transition: color 125ms): measure the final ones
    page.add_style_tag(content="*, *::before, *::after { transition: none !important; }")
    found = []
    for scheme in SCHEMES:
        page.evaluate("s => document.body.setAttribute('data-md-color-scheme', s)", scheme)
        # every rule in the first scheme; in the others only what colours change
        options: dict[str, object] = {"resultTypes": ["violations"]}
        if scheme != SCHEMES[0]:
            options["runOnly"] = {"type": "rule", "values": COLOUR_RULES}
        result = page.evaluate(
            "([within, options]) => axe.run(within ? {include: [within]} : document, options)", [within, options]
        )
        for v in result["violations"]:
            if v["impact"] in FAILING:
                nodes = "; ".join(n["html"][:120] for n in v["nodes"][:3])
                found.append(f"[{scheme}] {v['id']} ({v['impact']}, {len(v['nodes'])} nodes): {nodes}")
    return found


def site_paths() -> list[str]:
    """Every page of the built site, as a path under the server's root (both languages,
    the print pages that hold the whole guide, and the 404 pages)."""
    from devguide.source.fences import notebooks, pages

    urls = []
    for source in [*pages(), *notebooks()]:
        lang, *parts = source.relative_to(paths.DOCS).parts
        stem = "/".join(parts).rsplit(".", 1)[0]
        folder = "" if stem == "index" else stem.removesuffix("/index") + "/"
        urls.append("/" + paths.url_prefix(lang) + folder)
    urls += ["/" + paths.url_prefix(lang) + "print/" for lang in paths.LANGUAGES]
    return sorted(urls) + ["/404.html"] + [f"/{paths.url_prefix(x)}404.html" for x in paths.LANGUAGES[1:]]
