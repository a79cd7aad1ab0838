"""What a reader sees around a page's title, on a desktop (1440 px) and a phone (390 px),
in both languages (issue 26): the status line under the title, the report's summary
box, page actions that leave the title its width, a header title and navigation
entries that are not cut, and the notes under blocks that name what is true of them.
"""

import re

import pytest

from devguide import paths

PAGES = ["", "devices/moving/", "async/pinned-memory/", "reference/errors/", "validation/", "getting-started/device-tour/"]
WIDTHS = [1440, 390]


def url(server, lang, path):
    return server + "/" + paths.url_prefix(lang) + path


# the title's box and the lines it and the status line take; a word of the title split
# over two lines (e.g. "PyTo / rch") shows as a word with two client rectangles
LAYOUT = """() => {
  const h1 = document.querySelector('article h1'), article = document.querySelector('article.md-content__inner');
  const lines = e => { if (!e) return 0; const rects = [...e.getClientRects()];
    const r = document.createRange(); r.selectNodeContents(e);
    return new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top))).size; };
  const split = [];
  const walker = document.createTreeWalker(h1, NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode());) {
    for (const m of node.data.matchAll(/[A-Za-z0-9_.]+/g)) {
      const r = document.createRange(); r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top)));
      if (tops.size > 1) split.push(m[0]);
    }
  }
  const tools = document.querySelector('.reader-tools');
  const tb = tools && tools.getBoundingClientRect(), hb = h1.getBoundingClientRect(), ab = article.getBoundingClientRect();
  const cs = getComputedStyle(article);
  const inner = ab.width - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  const title = document.querySelector('.md-header__topic .md-ellipsis');
  return {h1_width: hb.width, inner, split, line: lines(document.querySelector('.validation-line')),
          tools_overlap: !!(tb && tb.width && tb.bottom > hb.top + 2 && tb.left < hb.right && tb.right > hb.left && tb.top < hb.bottom),
          header_cut: title.scrollWidth > title.clientWidth + 1,
          wide: document.documentElement.scrollWidth > document.documentElement.clientWidth};
}"""


@pytest.mark.named_pages
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_status_line_and_title_fit(page, server, lang, width):
    """The status line takes one line on a desktop and two at most on a phone; on a
    phone the page's actions sit above the title, which keeps the column's width and
    breaks only between words; the site's name in the header is not cut."""
    page.set_viewport_size({"width": width, "height": 900})
    for path in PAGES:
        page.goto(url(server, lang, path))
        found = page.evaluate(LAYOUT)
        where = f"{lang} /{path} at {width} px"
        assert found["line"] <= (1 if width > 1000 else 2), f"{where}: the status line takes {found['line']} lines"
        assert not found["split"], f"{where}: the title breaks inside {found['split']}"
        assert not found["header_cut"], f"{where}: the header's title is cut"
        assert not found["wide"], f"{where}: the page scrolls sideways"
        if width < 600:
            assert not found["tools_overlap"], f"{where}: the page's actions squeeze the title"
            assert found["h1_width"] >= found["inner"] - 1, f"{where}: the title is {found['h1_width']} px of {found['inner']}"


@pytest.mark.named_pages
@pytest.mark.parametrize("width", WIDTHS)
def test_navigation_entries_are_not_cut(page, server, width):
    """Every entry of the table of contents and of the navigation shows whole (wrapped,
    not cut with an ellipsis), with the drawer open on a phone; "DataLoader(pin_memory=True)"
    was cut."""
    page.set_viewport_size({"width": width, "height": 900})
    for lang in paths.LANGUAGES:
        page.goto(url(server, lang, "async/pinned-memory/"))
        if width < 1220:  # the navigation and the table of contents are in the drawer
            page.evaluate("() => { for (const id of ['__drawer', '__toc']) { const c = document.getElementById(id); if (c) c.checked = true; } }")
            page.wait_for_timeout(400)
        cut = page.evaluate("""() => [...document.querySelectorAll('.md-nav__link .md-ellipsis, .md-nav__link')]
            .filter(e => e.textContent.trim() && e.getClientRects().length && e.scrollWidth > e.clientWidth + 1).map(e => e.textContent.trim())""")
        assert not cut, f"{lang} at {width} px: cut navigation entries {cut}"
        entries = page.locator(".md-nav--secondary .md-nav__link").evaluate_all("els => els.map(e => e.textContent.trim())")
        assert any("pin_memory=True" in e for e in entries), entries


STATUS_MARKS = re.compile(r"[✓✗○]")


@pytest.mark.named_pages
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_the_status_line_claims_only_what_ran(page, server, lang):
    """A ✓ stands before a part only when every block of its kind passed: the CUDA part
    reads "CUDA: k of n ran on a GPU (torch v)" and has no ✓ while k < n; the GPU run's torch
    is on the line itself (review 2026-12-06, problem 4), the GPU in the part's tooltip."""
    page.goto(url(server, lang, "devices/moving/"))
    parts = page.locator(".validation-line .vr-part").evaluate_all(
        "els => els.map(e => ({text: e.textContent.trim(), title: e.getAttribute('title') || ''}))")
    text = " · ".join(p["text"] for p in parts)
    assert 1 <= text.count("torch ") <= 2, text
    gpu = [p for p in parts if ("GPU" in p["text"])]
    assert len(gpu) == 1, parts
    found = re.search(r"CUDA: (\d+) of (\d+) ran on a GPU \(torch [\d.]+\)" if lang == "en" else r"GPU 上运行过 (\d+)/(\d+) 个 CUDA 示例（torch [\d.]+）", gpu[0]["text"])
    assert found, gpu[0]
    k, n = map(int, found.groups())
    assert gpu[0]["text"].startswith("✓") == (k == n), gpu[0]
    if k:
        assert "torch" in gpu[0]["title"] and "torch" in gpu[0]["text"], gpu[0]


@pytest.mark.named_pages
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_the_report_opens_with_its_numbers(page, server, lang, width):
    """The report's first block under its title is the summary box: CPU passed of
    runnable, CUDA run of CUDA blocks, MPS/XPU never run; a ✓ only where all passed."""
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(url(server, lang, "validation/"))
    first = page.evaluate("() => { const h1 = document.querySelector('article h1'); let e = h1.nextElementSibling;"
                          " while (e && e.classList.contains('validation-line')) e = e.nextElementSibling; return e.className; }")
    assert first == "vr-summary", first
    stats = page.locator(".vr-summary .vr-stat").evaluate_all("els => els.map(e => e.innerText)")
    assert len(stats) == 3, stats
    of = r"(\d+) of (\d+)" if lang == "en" else r"(\d+) / (\d+)"
    for stat, label in zip(stats[:2], ("CPU", "CUDA"), strict=True):
        k, n = map(int, re.search(of, stat).groups())
        assert label in stat and 0 <= k <= n and n > 0, stat
        assert stat.startswith("✓") == (k == n) and not (stat.startswith("✓") and "✗" in stat), stat
    assert re.search(r"MPS and XPU examples never run" if lang == "en" else r"MPS、XPU 示例从未运行", stats[2]), stats[2]
    top = page.locator(".vr-summary").bounding_box()["y"]
    assert top < 900, f"the summary box starts below the first screen ({top} px)"
    # the table follows the same rule: "2 of 8", never "✓ 2 of 8"
    cells = page.locator(".validation-table td").evaluate_all("els => els.map(e => e.textContent)")
    assert cells and not [c for c in cells if re.search(r"✓ \d+ (of|/) \d+", c)]


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_notes_under_blocks_state_facts_about_the_block(built_site, lang):
    """A CUDA block whose GPU output is not shown says so as a fact about the block
    ("has not run on a GPU (since it changed)"), not as a promise about the build."""
    root = built_site / paths.url_prefix(lang)
    text = "".join(p.read_text(encoding="utf-8") for p in [root / "async" / "pinned-memory" / "index.html",
                                                          root / "performance" / "speed-precision" / "index.html"])
    gone = ["No GPU measurement yet", "appears here", "measurement pending", "还没有 GPU 实测数据", "会显示在这里", "待更新"]
    assert not [w for w in gone if w in text]
    home = (root / "index.html").read_text(encoding="utf-8")
    assert not [w for w in ("这次构建没有带上它", "this build does not include it", "release job", "发布流程") if w in home]
