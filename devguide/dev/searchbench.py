"""The site search benchmark (tests/site/search_queries.toml) in Chromium.

Shared by the site tests (tests/site/test_search.py: one page per language runs
every query) and ``make bench`` (``python -m devguide bench``, or
``python -m devguide search-bench [SITE]`` for the search numbers alone).

Queries run through Material's own search box: the value is set, a keyup
sent (what Material listens to), and the answer read from the rendered result
list as soon as the search worker has answered exactly that query. An init
script (``HOOK``) wraps the page's ``Worker`` to see those answers; nothing in
the site itself is there for the tests.
"""

from __future__ import annotations

import gzip
import statistics
import time
import tomllib
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from devguide import paths

QUERIES = paths.REPO / "tests" / "site" / "search_queries.toml"
KINDS = ("question", "colloquial", "keyword", "api", "error", "mixed", "typo")
TOP3_BUDGET = 0.90  # share of a language's active queries with an acceptable page in the top three

# Installed before any page script: records when the reader last touched the
# search box and when the worker's answer to each query has been rendered
# (Material renders in the worker's message handler; ours runs after it).
HOOK = """
(() => {
  const Native = window.Worker;
  if (!Native || Native.__devguide) return;
  const state = window.__devguideSearch = { ready: false, answered: [], results: [], latency: {}, firstTouch: null, firstResult: null };
  let typed = { value: null, at: 0 };
  document.addEventListener("keyup", ev => {
    if (ev.target && ev.target.matches && ev.target.matches("input.md-search__input")) typed = { value: ev.target.value, at: performance.now() };
  }, true);
  document.addEventListener("focusin", ev => {
    if (state.firstTouch === null && ev.target && ev.target.matches && ev.target.matches("input.md-search__input")) state.firstTouch = performance.now();
  }, true);
  function Wrapped(url, options) {
    const worker = new Native(url, options);
    state.worker = worker;
    const post = worker.postMessage.bind(worker);
    worker.postMessage = (message, ...rest) => {
      if (message && message.type === 0 && state.setupAt === undefined) state.setupAt = performance.now();
      return post(message, ...rest);
    };
    worker.addEventListener("message", ev => {
      const data = ev.data || {};
      if (data.type === 1) { state.ready = true; state.readyAt = performance.now(); state.buildMs = data.ms; state.complete = data.complete !== false; }
      if (data.type === 102) { state.complete = true; state.restFailed = data.failed || null; state.restBuildMs = data.ms; }
      if (data.type !== 3) return;
      // the site's worker names the query it answers; Material's lunr worker does not
      const query = "query" in data ? data.query : typed.value;
      const msgAt = performance.now();
      state.results.push({ query: query, items: data.data.items.length, complete: data.complete !== false });
      setTimeout(() => {
        const now = performance.now();
        if (typed.value === query) state.latency[query] = now - typed.at;
        if (query && state.firstResult === null && data.data.items.length) { state.firstResult = now; state.firstSearchMs = data.ms; state.firstResultMessage = msgAt; }
        state.answered.push(query);
        document.dispatchEvent(new CustomEvent("devguide:search", { detail: query }));
      }, 0);
    });
    return worker;
  }
  Wrapped.prototype = Native.prototype;
  Wrapped.__devguide = true;
  window.Worker = Wrapped;
})();
"""

# Runs queries one after the other in the open page (one call for all of them:
# no round trip to the test driver per query); resolves to the rendered results
# of each: one list of links per result item (its page first, then its sections).
RUN = """
async (queries) => {
  const box = document.querySelector("input.md-search__input");
  const answer = q => new Promise(resolve => {
    const seen = ev => { if (ev.detail === q) { document.removeEventListener("devguide:search", seen); resolve(); } };
    document.addEventListener("devguide:search", seen);
  });
  const send = async q => {
    const done = answer(q);
    box.value = q;
    box.dispatchEvent(new KeyboardEvent("keyup", { bubbles: true }));
    await done;
  };
  const out = [];
  for (const query of queries) {
    if (box.value === query) await send("");
    await send(query);
    out.push(Array.from(document.querySelectorAll(".md-search-result__item")).map(
      li => Array.from(li.querySelectorAll("a.md-search-result__link")).map(a => a.href)));
  }
  return out;
}
"""


# How the worker reads each query (its EXPLAIN message): Chinese characters in
# index words when cut by Intl.Segmenter alone and by the worker's cut
EXPLAIN = """
async (queries) => {
  const worker = window.__devguideSearch.worker;
  const out = [];
  for (const q of queries) {
    out.push(await new Promise(resolve => {
      const seen = ev => {
        if (ev.data && ev.data.type === 101 && ev.data.query === q) { worker.removeEventListener("message", seen); resolve(ev.data.data); }
      };
      worker.addEventListener("message", seen);
      worker.postMessage({ type: 100, data: q });
    }));
  }
  return out;
}
"""


@dataclass
class Query:
    lang: str
    kind: str
    q: str
    pages: list[str]
    source: str
    must: bool = False
    line: int = 0
    got: list[str] = field(default_factory=list)  # result pages, in order
    links: list[str] = field(default_factory=list)  # every result link (pages and sections)

    @property
    def rank(self) -> int | None:
        return next((i + 1 for i, p in enumerate(self.got[:5]) if p in self.pages), None)


def page_source(root: Path, lang: str, url: str) -> Path | None:
    """The source of a page named by its URL path under the language root, if any."""
    docs = root / "docs" / lang
    stem = url.strip("/")
    candidates = [docs / "index.md"] if not stem else [
        docs / f"{stem}.md", docs / f"{stem}.py", docs / stem / "index.md"]
    return next((c for c in candidates if c.is_file()), None)


def header_lines(path: Path, header: str) -> list[int]:
    """The line of each ``header`` (a TOML array-of-tables entry) in ``path``, so that a
    bad entry is reported with its line."""
    return [i + 1 for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()) if line.strip() == header]


def load(path: Path = QUERIES, root: Path = paths.REPO) -> list[Query]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    lines = header_lines(path, "[[query]]")
    out = []
    for entry, line in zip(data["query"], lines, strict=True):
        unknown = set(entry) - {"lang", "kind", "q", "pages", "source", "must"}
        assert not unknown, f"{path}:{line}: unknown fields {sorted(unknown)}"
        assert entry["kind"] in KINDS, f"{path}:{line}: kind {entry['kind']!r} is not one of {KINDS}"
        pages = list(entry.get("pages", []))
        assert pages, f"{path}:{line}: no acceptable pages: name at least one (e.g. pages = [\"devices/moving/\"])"
        for url in pages:
            assert page_source(root, entry["lang"], url), (
                f"{path}:{line}: {url!r} is no page of docs/{entry['lang']}/ (write the URL path: "
                f"devices/moving/ for docs/{entry['lang']}/devices/moving.md)"
            )
        out.append(Query(lang=entry["lang"], kind=entry["kind"], q=entry["q"], pages=pages,
                         source=entry.get("source", ""), must=entry.get("must", False), line=line))
    return out


def active(queries: list[Query], lang: str | None = None) -> list[Query]:
    return [q for q in queries if lang is None or q.lang == lang]


def root_url(server: str, lang: str) -> str:
    return server + "/" + paths.url_prefix(lang)


def open_search(context, server: str, lang: str):
    """A page of the ``lang`` site with the search worker ready."""
    page = context.new_page()
    page.add_init_script(HOOK)
    page.goto(root_url(server, lang))
    page.locator("input.md-search__input").click()
    # the whole index: its first part (ready) and the rest the worker fetches after it (complete)
    page.wait_for_function("() => window.__devguideSearch && window.__devguideSearch.ready", timeout=20_000)
    page.wait_for_function("() => window.__devguideSearch.complete", timeout=20_000)
    failed = page.evaluate("() => window.__devguideSearch.restFailed")
    assert not failed, f"the search worker could not load the rest of the {lang} index: {failed}"
    return page


def page_paths(items: list[list[str]], root: str) -> list[str]:
    return [links[0].split("#")[0].split("?")[0].removeprefix(root) for links in items if links]


def run(page, server: str, queries: list[Query]) -> list[Query]:
    """Run each query in ``page`` (one language); fills ``got`` (result pages in order)."""
    with unlaid(page):
        answers = page.evaluate(RUN, [q.q for q in queries])
    for q, items in zip(queries, answers, strict=True):
        q.got = page_paths(items, root_url(server, q.lang))
        q.links = [link for item in items for link in item]
    return queries


@contextmanager
def unlaid(page):
    """The results of a benchmark's queries rendered but not laid out or painted (``display:
    none``): the benchmarks read the results' links, which the rendering puts in the page all the
    same, in the same order (300 real pastes: identical first ten results), and the layout and
    painting of each result list took a third of the benchmark's CPU time (13.7 -> 9.0 CPU-s for
    300 pastes). How results look is checked by the tests that open them."""
    style = page.add_style_tag(content=".md-search-result { display: none !important; }")
    try:
        yield page
    finally:
        style.evaluate("element => element.remove()")


def miss(q: Query) -> str:
    """'' when an acceptable page is in the top three, else what came instead."""
    if q.rank and q.rank <= 3:
        return ""
    return f"  {q.lang} {q.kind:<10} {q.q!r} (line {q.line}): top three {q.got[:3]}, expected one of {q.pages}"


def misses(queries: list[Query]) -> list[str]:
    return [m for m in map(miss, queries) if m]


def table(queries: list[Query]) -> list[str]:
    """top-1, top-3, MRR@5 and empty answers per language and kind."""
    rows = defaultdict(list)
    for q in queries:
        rows[(q.lang, "all")].append(q)
        rows[(q.lang, q.kind)].append(q)
    out = [f"  {'lang':<5}{'kind':<12}{'n':>4}{'top-1':>8}{'top-3':>8}{'MRR@5':>8}{'empty':>7}"]
    for lang in paths.LANGUAGES:
        for kind in ("all", *KINDS):
            group = rows.get((lang, kind))
            if not group:
                continue
            n = len(group)
            top1 = sum(q.rank == 1 for q in group) / n
            top3 = sum(bool(q.rank and q.rank <= 3) for q in group) / n
            mrr = sum(1 / q.rank if q.rank else 0 for q in group) / n
            empty = sum(not q.got for q in group)
            out.append(f"  {lang:<5}{kind:<12}{n:>4}{top1:>8.0%}{top3:>8.0%}{mrr:>8.2f}{empty:>7}")
    return out


# ------------------------------------------------------------------ speed and bytes

def typed(page, query: str) -> float:
    """Type ``query`` into the real box (fill, then End: CJK needs a key event);
    milliseconds from that last keystroke to its results on screen."""
    box = page.locator("input.md-search__input")
    if box.input_value():
        page.evaluate("() => { window.__devguideSearch.answered = []; }")
        box.fill("")
        box.press("End")
        page.wait_for_function("() => window.__devguideSearch.answered.includes('')")
    page.evaluate("() => { window.__devguideSearch.answered = []; }")
    box.fill(query)
    box.press("End")
    page.wait_for_function("q => window.__devguideSearch.answered.includes(q)", arg=query)
    return page.evaluate("q => window.__devguideSearch.latency[q]", query)


COLD = """
(query) => {
  const box = document.querySelector("input.md-search__input");
  const state = window.__devguideSearch;
  state.coldStart = performance.now();
  box.dispatchEvent(new PointerEvent("pointerover", { bubbles: true }));  // the reader goes for the box
  box.focus();
  box.value = query;
  box.dispatchEvent(new KeyboardEvent("keyup", { bubbles: true }));
}
"""


def cold(browser, server: str, lang: str, query: str) -> tuple[float, int, int, int]:
    """A fresh browser context (empty cache) loads the page; then the reader
    goes for the search box and the query is there at once (in-page, so that no
    time of the test driver is counted). Returns (ms from that moment to the
    first result on screen: index download, its parsing, the worker's index
    build, the search and Material's rendering; gzip bytes the search needed:
    its worker, the first part of its index and anything else asked for after
    that moment; gzip bytes of the page load before it; gzip bytes of the rest
    of the index, which the worker asks for only after its first answer)."""
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(HOOK)
    bodies = []
    touched: list[bool] = []
    page.on("response", lambda r: bodies.append((r.url, bool(touched), r)))
    page.goto(root_url(server, lang), wait_until="networkidle")
    touched.append(True)
    page.evaluate(COLD, query)
    page.wait_for_function("() => window.__devguideSearch.firstResult !== null", timeout=20_000)
    ms = page.evaluate("() => window.__devguideSearch.firstResult - window.__devguideSearch.coldStart")
    page.wait_for_function("() => window.__devguideSearch.complete", timeout=20_000)
    search_bytes = page_bytes = rest_bytes = 0
    for url, after, response in bodies:
        try:
            size = len(gzip.compress(response.body())) if response.ok else 0
        except Exception:  # noqa: BLE001 - a response without a body (redirect)
            size = 0
        if url.endswith("/search_rest.json"):
            rest_bytes += size
        elif after or "search-worker" in url:
            search_bytes += size
        else:
            page_bytes += size
    context.close()
    return ms, search_bytes, page_bytes, rest_bytes


# answered by any search (Material's lunr too, for comparisons): the first result has to come
COLD_QUERIES = {"zh": ["锁页内存", "non_blocking"], "en": ["pinned memory", "non_blocking"]}
WARM_QUERIES = {
    "zh": ["锁页内存", "怎么把模型放到GPU上", "torch.cuda.synchronize", "多卡训练", "爆显存了怎么办",
           "Expected all tensors to be on the same device", "non_blocking", "dataloder多进程"],
    "en": ["pinned memory", "how to move model to gpu", "torch.cuda.synchronize", "data loader",
           "multi gpu", "Expected all tensors to be on the same device", "set_to_none", "pinnned memory"],
}


def speed(browser, server: str, lang: str, rounds: int = 5) -> dict[str, float]:
    colds = [cold(browser, server, lang, COLD_QUERIES[lang][i % 2]) for i in range(rounds)]
    context = browser.new_context()
    page = open_search(context, server, lang)
    warm = [typed(page, q) for q in WARM_QUERIES[lang] for _ in range(2)]
    context.close()
    return {
        "warm_median_ms": statistics.median(warm),
        "warm_max_ms": max(warm),
        "cold_median_ms": statistics.median(c[0] for c in colds),
        "search_kb_gzip": colds[0][1] / 1e3,
        "page_kb_gzip": colds[0][2] / 1e3,
        "rest_kb_gzip": colds[0][3] / 1e3,
    }


def main(site_dir: Path | None = None) -> int:
    """Print the benchmark and the speed numbers for a built site."""
    from playwright.sync_api import sync_playwright

    from devguide.dev import site_check

    site_dir = site_dir or paths.SITE
    queries = load()
    started = time.perf_counter()
    with site_check.serve(site_dir) as server, sync_playwright() as p:
        browser = site_check.launch(p)
        numbers = {}
        for lang in paths.LANGUAGES:
            context = browser.new_context()
            page = open_search(context, server, lang)
            run(page, server, active(queries, lang))
            ours = page.evaluate("() => window.__devguideSearch.buildMs !== undefined")  # not Material's lunr
            read = page.evaluate(EXPLAIN, [q.q for q in active(queries, lang)]) if ours else []
            context.close()
            numbers[lang] = speed(browser, server, lang)
            chars = sum(r["chars"] for r in read)
            if chars:
                numbers[lang]["in_index_segmenter"] = sum(r["segmenter"] for r in read) / chars
                numbers[lang]["in_index_cut"] = sum(r["cut"] for r in read) / chars
        browser.close()
    ran = active(queries)
    print(f"search benchmark: {len(ran)} queries ({sum(q.lang == 'zh' for q in ran)} zh); "
          f"{time.perf_counter() - started:.1f} s")
    print("\n".join(table(ran)))
    for lang, n in numbers.items():
        print(f"  {lang}: warm {n['warm_median_ms']:.0f} ms median (max {n['warm_max_ms']:.0f}) budget 50 ms; "
              f"cold {n['cold_median_ms']:.0f} ms budget 300 ms; search bytes before the first result "
              f"{n['search_kb_gzip']:.0f} kB gzip budget 150 kB (the rest of the index, after it: "
              f"{n['rest_kb_gzip']:.0f} kB; the page itself: {n['page_kb_gzip']:.0f} kB gzip)")
    for lang, n in numbers.items():
        if "in_index_cut" in n:
            print(f"  {lang}: Chinese characters of the queries that fall in words the index has: "
                  f"{n['in_index_segmenter']:.0%} cut by Intl.Segmenter alone, {n['in_index_cut']:.0%} "
                  "cut by the worker (jieba-style, over the index's own words)")
    missed = misses(ran)
    if missed:
        print("not in the top three:")
        print("\n".join(missed))
    return 0
