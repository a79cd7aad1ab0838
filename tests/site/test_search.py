"""Site search in Chromium: the search benchmark (tests/site/search_queries.toml),
pasted error messages, and a few queries typed into the real box.

One page per language serves every query of this module: a query is set in
Material's search box with a keyup (what Material listens to) and its answer
is read from the rendered result list as soon as the search worker has
answered exactly that query (devguide.dev.searchbench). The typed test goes
through the keyboard, as a reader does.

The real-material benchmark (about a hundred seconds of Chromium per language on
a busy 2-core machine, the largest part of a warm make test) keeps its pass under
``--reuse-unchanged`` while nothing it can see has changed: the page sources
(docs/, mkdocs.yml), the built search index of both languages, the material
(tests/site/real_*.toml), the Chromium binary and everything
``devguide.census.file.environment_fingerprint`` hashes (packages, the harness with
its floors, the environment). After an edit of pages only (devguide.pytest_plugin.reuse)
it scores again the items those pages answer or ranked in the top three, and keeps the
others' results of the last run. CI and make test-all run all of it.
"""

import gzip
import hashlib
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from devguide import paths
from devguide.census import file as census
from devguide.dev import realbench, searchbench
from devguide.dev.browser import chromium_identity
from devguide.pytest_plugin import reuse
from devguide.source import fences

QUERIES = searchbench.load()


@pytest.fixture(scope="module")
def search_page(browser, server):
    """lang → an open page of that language's site with the search ready; every
    request must stay on the local server and succeed."""
    opened, contexts, outside, failed = {}, [], [], []

    def get(lang):
        if lang not in opened:
            context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
            context.on("request", lambda r: outside.append(r.url) if urlsplit(r.url).scheme in ("http", "https")
                       and urlsplit(r.url).hostname != "127.0.0.1" else None)
            context.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
            contexts.append(context)
            opened[lang] = searchbench.open_search(context, server, lang)
        return opened[lang]

    yield get
    for context in contexts:
        context.close()
    assert not outside, "requests to other hosts:\n" + "\n".join(outside)
    assert not failed, "requests that failed:\n" + "\n".join(failed)


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_search_benchmark(search_page, server, lang, record_property):
    """Readers' queries (questions, colloquial words, API names, pasted errors,
    mixed Chinese and English, typos): an acceptable page in the top three for
    at least 90 % of them, none answered with nothing, the examples of issue #15
    always, and no result from the other language's site."""
    queries = searchbench.active(QUERIES, lang)
    assert queries, f"no {lang} queries in {paths.rel(searchbench.QUERIES)}"
    page = search_page(lang)
    searchbench.run(page, server, queries)
    root = searchbench.root_url(server, lang)
    top3 = sum(bool(q.rank and q.rank <= 3) for q in queries) / len(queries)
    record_property("top3", round(top3, 3))
    empty = [f"  {q.q!r} (line {q.line})" for q in queries if not q.got]
    assert not empty, f"{lang}: answerable queries with no result at all:\n" + "\n".join(empty)
    foreign = [f"  {q.q!r}: {link}" for q in queries for link in q.links
               if (lang == "en") != link.startswith(server + "/en/")]
    assert not foreign, f"{lang}: results from the other language's pages:\n" + "\n".join(foreign[:10])
    must = [searchbench.miss(q) for q in queries if q.must and searchbench.miss(q)]
    assert not must, f"{lang}: examples of issue #15 not in the top three:\n" + "\n".join(must)
    assert top3 >= searchbench.TOP3_BUDGET, (
        f"{lang}: {top3:.0%} of {len(queries)} queries have an acceptable page in the top three "
        f"(needs {searchbench.TOP3_BUDGET:.0%}); results under {root}:\n" + "\n".join(searchbench.misses(queries))
    )


def error_sections(lang):
    """(pasted text, page, anchor) for each message of the error reference (one
    page per family under reference/errors/, each message a level-2 heading)."""
    found = []
    for page in sorted((paths.REPO / "docs" / lang / "reference" / "errors").glob("*.md")):
        if page.stem == "index":
            continue
        lines = page.read_text(encoding="utf-8").splitlines()
        for n, level, anchor in fences.heading_anchors(page):
            if level == "##":
                found.append((lines[n - 1][3:].rsplit("{", 1)[0].strip(), f"reference/errors/{page.stem}/", anchor))
    return found


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_pasted_error_messages_find_their_section(search_page, server, lang):
    """Pasting a message of the error reference (its first 60 characters, as
    readers often paste a truncated line) lists its section, with its page
    among the first three."""
    sections = error_sections(lang)
    assert len(sections) >= 60, f"docs/{lang}/reference/errors/ lists {len(sections)} messages"
    page = search_page(lang)
    root = searchbench.root_url(server, lang)
    misses = []
    answers = page.evaluate(searchbench.RUN, [message[:60] for message, _, _ in sections])
    for (message, url, anchor), items in zip(sections, answers, strict=True):
        query = message[:60]
        top = searchbench.page_paths(items, root)[:3]
        links = [link for item in items for link in item]
        section = any(f"/{url}" in h and h.endswith(f"#{anchor}") for h in links)
        if url not in top or not section:
            misses.append(f"{query!r} ({url}#{anchor}): {top}")
    assert not misses, f"{lang}: pasted messages that do not find their section:\n" + "\n".join(misses)


# Two CUDA errors as readers paste them, each under the lines torch adds to every
# CUDA error (pytorch/pytorch's c10/cuda/CUDAException.cpp), and the entry each
# must open: the added lines name no error and must not decide the result
CUDA_BOILERPLATE = ("CUDA kernel errors might be asynchronously reported at some other API call, so the "
                    "stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
                    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")
CUDA_PASTES = [
    ("RuntimeError: CUDA error: out of memory\n" + CUDA_BOILERPLATE, "cuda-runtime/", "cuda-out-of-memory"),
    ("RuntimeError: CUDA error: an illegal memory access was encountered\n" + CUDA_BOILERPLATE,
     "cuda-runtime/", "illegal-memory-access"),
    ("RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable\n" + CUDA_BOILERPLATE,
     "cuda-setup/", "cuda-devices-busy-unavailable"),  # Tencent-Hunyuan/InstantCharacter#21
]


@pytest.mark.named_pages
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_the_lines_every_cuda_error_carries_do_not_decide_the_result(search_page, server, lang):
    """A pasted CUDA error finds its entry among the first three results, not
    only the pages about CUDA_LAUNCH_BLOCKING that its added lines mention."""
    page = search_page(lang)
    answers = page.evaluate(realbench.PASTE, [text for text, _, _ in CUDA_PASTES])  # pasted, as a reader does
    for (text, url, anchor), items in zip(CUDA_PASTES, answers, strict=True):
        top = [urlsplit(link) for item in items[:3] for link in item]
        assert any(p.path.endswith(f"reference/errors/{url}") and p.fragment == anchor for p in top), (
            f"{lang}: the first three results for {text.splitlines()[0]!r} are {items[:3]}, "
            f"without reference/errors/{url}#{anchor}")


TYPED = {"zh": ["锁页内存", "怎么把模型放到GPU上"], "en": ["pinned memory", "torch.cuda.synchronize"]}


@pytest.mark.named_pages
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_typed_queries_show_results(search_page, server, lang, record_property):
    """The reader's path: keys pressed in the search box, results on screen (the
    benchmark's path sets the box's value instead)."""
    page = search_page(lang)
    root = searchbench.root_url(server, lang)
    for query in TYPED[lang]:
        expected = next(q for q in QUERIES if q.lang == lang and q.q == query)
        ms = searchbench.typed(page, query)
        record_property(f"ms {query}", round(ms))
        links = page.locator(".md-search-result__item > a:first-child").evaluate_all("els => els.map(e => e.href)")
        top = [h.split("#")[0].split("?")[0].removeprefix(root) for h in links[:3]]
        assert set(expected.pages) & set(top), f"{lang} typed {query!r}: top three {top}, expected one of {expected.pages}"
        assert ms < 2000, f"{lang} typed {query!r}: {ms:.0f} ms from the last key to the results"


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_the_first_answer_needs_only_the_first_part_of_the_index(browser, server, built_site, lang):
    """Bytes before the first result ≤ 150 kB gzip (issue #15): the worker and the
    first part of the index answer the first query while the rest of the index is
    held back; the worker asks for the rest only after that answer, then answers
    the same query again from the whole index."""
    root = built_site / paths.url_prefix(lang) / "search"
    first = sum(len(gzip.compress(path.read_bytes())) for path in
                (root / "search_index.json", built_site / "assets" / "javascripts" / "search-worker.js"))
    assert first <= 150_000, f"{lang}: worker and first part of the index are {first / 1e3:.0f} kB gzip (budget 150 kB)"
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(searchbench.HOOK)
    held = []
    page.route("**/search_rest.json", lambda route: held.append(route))
    page.goto(searchbench.root_url(server, lang), wait_until="networkidle")
    query = searchbench.COLD_QUERIES[lang][0]
    page.evaluate(searchbench.COLD, query)
    page.wait_for_function("() => window.__devguideSearch.firstResult !== null", timeout=20_000)
    page.wait_for_timeout(100)  # the worker's request for the rest, if it makes one now
    state = page.evaluate("() => window.__devguideSearch")
    assert not state["complete"] and state["results"][0] == {"query": query, "items": state["results"][0]["items"], "complete": False}
    assert len(held) == 1, f"{lang}: the worker asked for the rest of the index {len(held)} times after its first answer"
    held[0].continue_()
    page.wait_for_function("() => window.__devguideSearch.complete", timeout=20_000)
    page.wait_for_function("q => window.__devguideSearch.results.some(r => r.query === q && r.complete)", arg=query)
    again = [r for r in page.evaluate("() => window.__devguideSearch.results") if r["complete"]]
    assert again[-1]["query"] == query and again[-1]["items"] > 0, again
    assert page.evaluate("() => window.__devguideSearch.restFailed") is None
    assert page.locator(".md-search-result__item").count() > 0
    context.close()


# ------------------------------------------------------------------ what a reader who pastes gets

TRACEBACK = """Traceback (most recent call last):
  File "/home/alice/proj/train.py", line 52, in <module>
    loss = model(x.to(device)).sum()
           ^^^^^^^^^^^^^^^^^^^
  File "/home/alice/.conda/envs/py311/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1751, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument mat1 in method wrapper_CUDA_addmm)
"""
ANSWER = ("reference/errors/devices/", "expected-all-tensors-same-device")


def _results(page, root):
    page.wait_for_selector(".md-search-result__item a.md-search-result__link", timeout=10_000)
    return page.locator(".md-search-result__item").evaluate_all(
        "items => items.map(li => Array.from(li.querySelectorAll('a.md-search-result__link')).map(a => a.href))")


def _answered(page, value):
    page.wait_for_function("v => (window.__devguideSearch.answered || []).includes(v)", arg=value, timeout=10_000)


def _paste_without_a_key(page, text):
    """What a paste from the context menu or a phone's long press does: "input" only, no key."""
    page.evaluate("""text => {
      const box = document.querySelector("input.md-search__input");
      box.value = text;
      box.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertFromPaste" }));
    }""", text)
    _answered(page, text)


@pytest.fixture
def fresh_search(browser, server):
    contexts = []

    def open_(lang):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        contexts.append(context)
        page = searchbench.open_search(context, server, lang)
        page.evaluate("() => { window.__devguideSearch.answered = []; }")
        return page, searchbench.root_url(server, lang)

    yield open_
    for context in contexts:
        context.close()


@pytest.mark.named_pages
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_a_paste_or_an_input_method_searches_without_a_key(fresh_search, lang):
    """Text put into the box without a key event (a paste from the context menu or
    a phone's long press fires only "input"; an input method commits with
    "compositionend") is searched at once."""
    page, root = fresh_search(lang)
    _paste_without_a_key(page, "Cannot re-initialize CUDA in forked subprocess")
    top = searchbench.page_paths(_results(page, root), root)[:3]
    assert "reference/errors/cuda-runtime/" in top, f"{lang}: a paste without a key: top three {top}"
    word = "锁页内存" if lang == "zh" else "pinned memory"
    page.evaluate("""word => {
      const box = document.querySelector("input.md-search__input");
      box.dispatchEvent(new CompositionEvent("compositionstart", { bubbles: true }));
      box.value = word;
      box.dispatchEvent(new InputEvent("input", { bubbles: true, isComposing: true }));
      box.dispatchEvent(new CompositionEvent("compositionend", { bubbles: true, data: word }));
    }""", word)
    _answered(page, word)
    top = searchbench.page_paths(_results(page, root), root)[:3]
    assert "async/pinned-memory/" in top, f"{lang}: an input method's commit: top three {top}"


@pytest.mark.named_pages
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_a_pasted_traceback_is_read_for_its_error_and_finds_the_entry(fresh_search, lang):
    """A whole traceback pasted (frames, paths, line numbers, a caret line, the
    reader's device index): the box keeps the error line without the frames and
    the entry's page is the first result, opening the entry's section."""
    page, root = fresh_search(lang)
    page.evaluate("""text => {
      const box = document.querySelector("input.md-search__input");
      box.focus();
      const clipboard = new DataTransfer();
      clipboard.setData("text/plain", text);
      box.dispatchEvent(new ClipboardEvent("paste", { clipboardData: clipboard, bubbles: true, cancelable: true }));
    }""", TRACEBACK)
    value = page.locator("input.md-search__input").input_value()
    assert value.startswith("RuntimeError: Expected all tensors to be on the same device"), value
    assert "File " not in value and "site-packages" not in value, value
    _answered(page, value)
    items = _results(page, root)
    first = items[0][0]
    assert first.removeprefix(root).split("?")[0].split("#")[0] == ANSWER[0], items[:3]
    assert first.split("#")[-1] in _entry_ids(page, first.split("#")[0]), (
        f"{lang}: the first result does not open the entry #{ANSWER[1]} or a part of it: {first}")


ASSERT_TRACEBACK = """../aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [0,0,0] Assertion `t >= 0 && t < n_classes` failed.
../aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [1,0,0] Assertion `t >= 0 && t < n_classes` failed.
Traceback (most recent call last):
  File "/home/alice/proj/train.py", line 40, in <module>
    loss = criterion(model(x), y)
RuntimeError: CUDA error: device-side assert triggered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
"""


@pytest.mark.named_pages
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_a_paste_made_before_the_box_script_loads_is_read_and_searched(browser, server, lang):
    """Review 2026-12-06, problem 14: search-box.js loads when the reader goes for the box;
    a paste made at once (press "/", paste) came before it, was not cleaned and started
    no search. The page's loader holds it for the script. The kernel's "Assertion `…`
    failed" line, the one that says what went wrong, is kept once and read first."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.add_init_script(searchbench.HOOK)
        page.goto(searchbench.root_url(server, lang))
        loaded = page.evaluate("""text => {
          const box = document.querySelector("input.md-search__input");
          box.focus();
          const loaded = typeof window.devguideSearchPaste;
          const clipboard = new DataTransfer();
          clipboard.setData("text/plain", text);
          box.dispatchEvent(new ClipboardEvent("paste", { clipboardData: clipboard, bubbles: true, cancelable: true }));
          return loaded;
        }""", ASSERT_TRACEBACK)
        assert loaded == "undefined", "search-box.js had loaded before the paste: the test proves nothing"
        page.wait_for_function("() => document.querySelector('input.md-search__input').value !== ''", timeout=10_000)
        value = page.locator("input.md-search__input").input_value()
        assert value.startswith("Assertion `t >= 0 && t < n_classes` failed. RuntimeError: CUDA error: device-side assert"), value
        assert value.count("Assertion") == 1 and "thread" not in value and "Loss.cu" not in value, value
        items = _results(page, searchbench.root_url(server, lang))
        assert items and items[0], f"{lang}: the held paste was not searched"
    finally:
        context.close()


@pytest.mark.named_pages
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_a_result_card_shows_its_own_sections_text_under_its_title(search_page, server, lang):
    """Review 2026-12-06, problem 10: a card's title is the best section of its page and
    Material showed no text of that section, the next section's title and text under it;
    the card read as one section's title over another's excerpt. The title's own text
    (with the query's words marked) is now under it."""
    page = search_page(lang)
    query = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB"
    page.evaluate(searchbench.RUN, [query])
    cards = page.evaluate("""() => Array.from(document.querySelectorAll('.md-search-result__item')).map(li => {
        const h1 = li.querySelector('article h1'), own = h1 && h1.querySelector('.devguide-teaser');
        return {sections: li.querySelectorAll('a.md-search-result__link').length,
                own: own ? own.textContent.trim() : null, link: li.querySelector('a').href};
    })""")
    grouped = [c for c in cards if c["sections"] > 1 and "#" in c["link"]]
    assert grouped, f"{lang}: no card groups several sections: {cards}"
    for card in grouped:
        assert card["own"], f"{lang}: the card {card['link']} shows no text of its own section under its title"


def _entry_ids(page, url):
    """The ids of the entry ANSWER (its heading and the headings under it) on the built page."""
    html = page.request.get(url).text()
    start = html.index(f'id="{ANSWER[1]}"')
    end = html.find("<h2", start)
    return {ANSWER[1], *re.findall(r'<h[3-6][^>]* id="([^"]+)"', html[start:end if end > 0 else None])}


LONG_MESSAGE = ("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
                "cuda:0 and cpu!")


@pytest.mark.named_pages
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_a_result_opens_its_section_with_the_words_highlighted(fresh_search, lang):
    """Following the first result of a pasted message lands on the entry (its
    anchor, not the top of the page) with words of the message highlighted in it."""
    page, root = fresh_search(lang)
    _paste_without_a_key(page, LONG_MESSAGE)
    first = _results(page, root)[0][0]
    assert "h=" in first, f"{lang}: the first result carries no words to highlight: {first}"
    anchor = first.split("#")[-1]
    assert anchor in _entry_ids(page, first.split("#")[0]), f"{lang}: the first result is not the entry: {first}"
    page.locator(".md-search-result__item a.md-search-result__link").first.click()
    page.wait_for_url(f"**/{ANSWER[0]}**", timeout=10_000)
    assert page.url.endswith("#" + anchor), page.url
    page.wait_for_selector(f"[id='{anchor}'] ~ * mark, [id='{anchor}'] mark", timeout=10_000)
    marks = page.evaluate("""id => {
      const heading = document.getElementById(id);
      let n = heading.querySelectorAll("mark").length;
      for (let el = heading.nextElementSibling; el && el.tagName !== "H2"; el = el.nextElementSibling) n += el.querySelectorAll("mark").length;
      return n;
    }""", anchor)
    assert marks > 0, f"{lang}: no word of the message is highlighted in the entry ({page.url})"
    assert "h=" not in page.url, f"{lang}: the words stay in the address after they are marked: {page.url}"


# LONG_MESSAGE is one of the other forms of the entry ANSWER (a level-4 heading at the entry's end)
VARIANT = "same-device-found-two-devices"
# words every CUDA error shares, and what the review found marked across a whole page
NOT_DISTINCTIVE = {"cuda", "error", "out", "see", "free", "total", "gpu", "pytorch", "torch"}


@pytest.mark.named_pages
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_a_result_for_another_form_opens_the_entry_with_the_form_marked(fresh_search, lang):
    """Review 2026-12-06, problems 1 and 5: a pasted message that is one of the other
    forms of an entry's message opens the entry's title (the message, the cause and
    the fix follow it), not the form's heading at the entry's end; the form is
    outlined where it stands and a line under the title links down to it. Words are
    marked only inside the entry, never a word every CUDA error shares nor one letter."""
    page, root = fresh_search(lang)
    _paste_without_a_key(page, LONG_MESSAGE)
    first = _results(page, root)[0][0]
    parts = urlsplit(first)
    assert parts.fragment == ANSWER[1], f"{lang}: the first result does not open the entry #{ANSWER[1]}: {first}"
    assert parse_qs(parts.query).get("v") == [VARIANT], f"{lang}: the first result does not name the form: {first}"
    page.locator(".md-search-result__item a.md-search-result__link").first.click()
    page.wait_for_url(f"**/{ANSWER[0]}**", timeout=10_000)
    page.wait_for_selector(".devguide-variant-note", timeout=10_000)
    seen = page.evaluate("""([entry, variant]) => {
      const heading = document.getElementById(entry), form = document.getElementById(variant);
      const inside = new Set([heading]);
      for (let el = heading.nextElementSibling; el && el.tagName !== "H2"; el = el.nextElementSibling) inside.add(el);
      const marks = Array.from(document.querySelectorAll("article mark"));
      const note = heading.nextElementSibling;
      return {
        top: heading.getBoundingClientRect().top,
        height: window.innerHeight,
        outlined: form.classList.contains("devguide-variant") && getComputedStyle(form).outlineStyle !== "none",
        note: note.classList.contains("devguide-variant-note") ? note.querySelector("a").getAttribute("href") : null,
        words: marks.map(m => m.textContent),
        outside: marks.filter(m => !Array.from(inside).some(el => el.contains(m))).length,
        url: location.href,
      };
    }""", [ANSWER[1], VARIANT])
    assert 0 <= seen["top"] < seen["height"] / 3, f"{lang}: the entry's title is not at the top of the screen: {seen['top']} px"
    assert seen["outlined"], f"{lang}: the form #{VARIANT} is not marked where it stands"
    assert seen["note"] == f"#{VARIANT}", f"{lang}: no line under the entry's title links to the form: {seen['note']}"
    assert seen["words"], f"{lang}: no word of the message is marked in the entry"
    assert seen["outside"] == 0, f"{lang}: {seen['outside']} marks outside the entry"
    generic = sorted({w for w in seen["words"] if w.lower() in NOT_DISTINCTIVE or len(w) < 2})
    assert not generic, f"{lang}: words that tell nothing apart are marked: {generic}"
    assert "v=" not in seen["url"] and "h=" not in seen["url"], seen["url"]


HUBS = ("validation/", "reference/glossary/", "print/", "reference/errors/")


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_hub_pages_do_not_outrank_the_page_that_answers(search_page, server, lang):
    """The validation report, the glossary, the print page and the error index
    gather the other pages' words: for the benchmark's queries whose answer is a
    page of its own, no such hub is the first result."""
    queries = [q for q in searchbench.active(QUERIES, lang) if not any(p in HUBS for p in q.pages)]
    page = search_page(lang)
    searchbench.run(page, server, queries)
    first_hubs = [f"  {q.q!r}: {q.got[:3]}" for q in queries if q.got and q.got[0] in HUBS]
    assert not first_hubs, f"{lang}: a hub page is the first result:\n" + "\n".join(first_hubs)


REAL = {split: (realbench.load_questions(split=split), realbench.load_errors(split=split)) for split in realbench.SPLITS}


def realbench_key(built_site: Path, lang: str) -> str:
    """What the real-material benchmark of ``lang`` sees, hashed (see above)."""
    digest = hashlib.sha256(f"{lang} {census.environment_fingerprint(())}".encode())
    files = [paths.REPO / "mkdocs.yml", *sorted(p for p in paths.DOCS.rglob("*") if p.is_file()),
             *sorted((paths.REPO / "tests" / "site").glob("**/real_*.toml")),
             *sorted(p for p in built_site.glob("**/search/search_*.json"))]
    for path in files:
        digest.update(f"{path.relative_to(paths.REPO) if path.is_relative_to(paths.REPO) else path}".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    digest.update(chromium_identity().encode())
    return digest.hexdigest()


@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_real_questions_and_pasted_errors(search_page, server, built_site, lang, record_property, request):
    """The material real users posted (tests/site/real_*.toml and the frozen split in
    tests/site/heldout/, with sources): the questions of this language find a page that
    answers them in the top three, every message pasted whole into this language's box
    finds its entry's page in the top three, and a message of a family the site has no
    entry for opens its family page with the not-documented notice, at least as often
    as devguide.dev.realbench's floors say for each split; each message's entry is on
    both sites at least that often. Misses are listed for the tuning split only: the
    held-out split is scored, never read to decide what to change."""
    passed = paths.BUILD / f"realbench-passed-{lang}.txt"
    key = realbench_key(built_site, lang)
    if request.config.getoption("reuse_unchanged") and passed.is_file() and passed.read_text().strip() == key:
        record_property("reused", True)
        return  # passed with this index, these pages and this Chromium: same answers again
    passed.unlink(missing_ok=True)
    page = search_page(lang)
    low = []
    # a page edit (devguide.pytest_plugin.reuse): the items the edited pages answer or ranked
    # run again, the others keep what they got in the last run
    edited = reuse.edited_pages(request.config)
    outcomes = paths.BUILD / f"realbench-outcomes-{lang}.json"
    restored = edited is not None and realbench.restore_outcomes(outcomes, lang, REAL)
    addresses = {reuse.page_address(stem) for stem in edited or ()}
    for split, (questions, pastes) in REAL.items():
        again = realbench.touched(questions, pastes, lang, addresses) if restored else (questions, pastes)
        realbench.run(page, server, lang, *again)
        record_property(f"{split} scored again", sum(map(len, again)))
        numbers = realbench.numbers(questions, pastes, built_site)[lang]
        for name, value in numbers.items():
            record_property(f"{split} {name}", round(value, 3))
        floors = realbench.FLOORS[split][lang]
        low += [f"{split}: {name} {numbers[name]:.0%} < {floor:.0%}" for name, floor in floors.items()
                if numbers[name] < floor]
    questions, pastes = REAL["tuning"]
    realbench.save_outcomes(outcomes, lang, REAL)
    assert not low, f"{lang}: " + "; ".join(low) + "\n" + "\n".join(realbench.misses(questions, pastes, lang)[:40])
    passed.write_text(key + "\n", encoding="utf-8")


UNDOCUMENTED_PASTE = (  # a cuBLAS status no page quotes (the site has two others), as pasted
    "Traceback (most recent call last):\n"
    '  File "train.py", line 12, in <module>\n'
    "    out = model(x)\n"
    "RuntimeError: CUDA error: CUBLAS_STATUS_ARCH_MISMATCH when calling `cublasGemmEx( handle, opa, opb, m, n, k, "
    "&falpha, a, CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &fbeta, c, CUDA_R_16BF, ldc, CUDA_R_32F, "
    "CUBLAS_GEMM_DEFAULT_TENSOR_OP)`\n"
    "torch version: 2.1.0\n"
)


# Real pastes no page quotes (tests/site/real_errors.toml has their sources) and the family
# page each must open with the notice: a conda build path and a C++ frame that quoted
# tracebacks share do not make a message documented (facebookresearch/DeepSDF#40); a log
# prefix and a second warning line of another family do not hide the message
# (meta-pytorch/torchtune#2676); a warning whose words a topic page's advice has still opens
# the error reference (ZhangGongjie/Meta-DETR#60). The three pastes this test held before
# (a GPU busy or unavailable in both wordings, destroy_process_group not called) have
# entries now, and test_the_lines_every_cuda_error_carries_do_not_decide_the_result and
# test_a_documented_message_in_the_askers_words_gets_no_notice check two of them.
UNDOCUMENTED_FAMILIES = [
    ("RuntimeError: CUDA error: unspecified launch failure\n"
     "terminate called after throwing an instance of 'c10::Error'\n"
     "  what():  CUDA error: unspecified launch failure (insert_events at /opt/conda/conda-bld/"
     "pytorch_1544202130060/work/aten/src/THC/THCCachingAllocator.cpp:470)\n"
     "frame #0: c10::Error::Error(c10::SourceLocation, std::string const&) + 0x45\n",
     ["reference/errors/cuda-runtime/"]),
    ("[rank2]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out "
     "waiting 1800000ms for recv operation to complete\n"
     "[W503 01:52:07.597517393 socket.cpp:204] [c10d] The hostname of the client socket cannot be retrieved. "
     "err=-3\n", ["reference/errors/distributed/"]),
    ("Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused "
     "parameters in the forward pass.\n", ["reference/errors/distributed/"]),
    # a worker's message under torchrun's launcher line, which its own entry documents
    # (huawei-noah/Efficient-Computing#90): the worker's message decides
    ("RuntimeError: Function argument device_ids not supported for the selected backend gloo\n"
     "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 23812) of binary: "
     "E:\\Conda\\envs\\GoldYolo\\python.exe\n", ["reference/errors/distributed/"]),
    # an older form of a CUDA status no page has (MVIG-SJTU/AlphaPose#175)
    ("RuntimeError: cuda runtime error (3) : initialization error at /pytorch/aten/src/THC/generic/THCStorage.c:60",
     ["reference/errors/cuda-setup/"]),
    # names in single quotes tell messages apart (only an operator in double quotes stands for any):
    # this is not the entry "module 'torch' has no attribute …" (tuning corpus, torch-compiler-attribute-missing)
    ("10/24 18:04:14 - mmengine - WARNING - WARNING: command error: 'module 'torch.compiler' has no attribute "
     "'is_compiling''!", ["reference/errors/compile/"]),
    # the collection of 2026-12-08 (tuning corpus): a c10d log line's prefix is no wording (its
    # quoted NCCL entries have it too: yflyzhang/simpleR1#1), Triton's resource message is not
    # DataLoader's shared memory (facebookresearch/sam2#592), cuDNN's library by its file name
    # (sjtuplayer/anomalydiffusion#76), a kernel's source and its "tl.constexpr" (woct0rdho/triton-windows#30)
    ("[rank0]:[E608 14:09:10.210136079 ProcessGroupNCCL.cpp:1484] [PG ID 0 PG GUID 0(default_pg) Rank 0] "
     "ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued "
     "collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking the watchdog",
     ["reference/errors/nccl/"]),
    ("out of resource: shared memory, Required: 131072, Hardware limit: 101376. Reducing block sizes or "
     "`num_stages` may help.", ["reference/errors/compile/"]),
    ("Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: No such "
     "file or directory", ["reference/errors/cuda-libraries/"]),
    ("CompilationError: at 8:11: def triton_(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):",
     ["reference/errors/compile/"]),
]


@pytest.mark.named_pages
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_boilerplate_paths_and_a_topic_page_do_not_hide_an_undocumented_message(search_page, server, lang):
    page = search_page(lang)
    root = searchbench.root_url(server, lang)
    found = page.evaluate(realbench.PASTE, [text for text, _ in UNDOCUMENTED_FAMILIES])
    for (text, family_pages), items in zip(UNDOCUMENTED_FAMILIES, found, strict=True):
        first = items[0][0] if items and items[0] else ""
        assert realbench.UNDOCUMENTED in first, (text, items[:2])
        assert first.removeprefix(root).split("?")[0] in family_pages, (text, items[:2])


@pytest.mark.named_pages
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_a_message_no_page_quotes_opens_its_family_page_with_a_notice_and_a_report(search_page, server, lang):
    """Issue 35: the first result for an undocumented message is its family's page (a
    cuBLAS status: the CUDA libraries page), said in the reader's language to be not yet
    documented; the page it opens shows the message above its title and links a report
    whose title is the message and whose body names the page and the pasted torch."""
    page = search_page(lang)
    (items,) = page.evaluate(realbench.PASTE, [UNDOCUMENTED_PASTE])
    first = items[0][0]
    root = searchbench.root_url(server, lang)
    assert first.removeprefix(root).split("?")[0] == "reference/errors/cuda-libraries/", items[:2]
    assert realbench.UNDOCUMENTED in first and "torch=2.1.0" in first, first
    title = page.locator(".md-search-result__item").first.inner_text()
    assert ("尚未收录" if lang == "zh" else "not documented yet") in title, title
    documented = page.evaluate(realbench.PASTE, [
        "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, "
        "&alpha, a, lda, b, ldb, &beta, c, ldc)`"])[0]
    assert realbench.UNDOCUMENTED not in documented[0][0], "a quoted message got the notice"
    opened = page.context.new_page()
    try:
        opened.goto(first)
        notice = opened.locator(".devguide-undocumented")
        assert "CUBLAS_STATUS_ARCH_MISMATCH" in notice.inner_text()
        report = opened.locator(".devguide-undocumented__report").get_attribute("href")
        query = parse_qs(urlsplit(report).query)
        assert "/issues/new?" in report and "CUBLAS_STATUS_ARCH_MISMATCH" in query["title"][0], report
        assert "2.1.0" in query["body"][0] and "reference/errors/cuda-libraries/" in query["body"][0], query["body"]
    finally:
        opened.close()


# messages the site quotes only in a text block (another form of an entry, "Also pasted as"), pasted
# as users pasted them (tuning corpus: microsoft/human-pose-estimation.pytorch#23, gistvision/e2sri#13,
# kuleshov-group/caduceus#58), and the section that quotes them
QUOTED_ONLY = [
    ("RuntimeError: cuda runtime error (35) : CUDA driver version is insufficient for CUDA runtime version "
     "at /pytorch/aten/src/THC/THCGeneral.cpp:51", "reference/errors/cuda-setup/", "#nvidia-driver-too-old"),
    ("RuntimeError: no valid convolution algorithms available in CuDNN", "reference/errors/cuda-libraries/",
     "#cudnn-no-valid-algorithm"),
    ("OSError: [Errno 24] Too many open files", "reference/errors/data-loading/", "#too-many-open-files"),
]


@pytest.mark.named_pages
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_a_message_quoted_only_in_a_text_block_opens_that_entry_without_the_notice(search_page, server, lang):
    """The index leaves code and text blocks out of its texts, and a message an entry quotes only
    in one (its other forms, what users pasted) was "not documented": the notice that the site
    lacks it came first. The worker reads those blocks (search_per_language.quoted_messages),
    and an exception's name or an OS error's number does not stop the match."""
    page = search_page(lang)
    root = searchbench.root_url(server, lang)
    found = page.evaluate(realbench.PASTE, [text for text, _, _ in QUOTED_ONLY])
    for (text, entry_page, anchor), items in zip(QUOTED_ONLY, found, strict=True):
        assert items and realbench.UNDOCUMENTED not in items[0][0], (text, items[:2])
        assert items[0][0].removeprefix(root).split("#")[0].split("?")[0] == entry_page, (text, items[:2])
        assert any(link.endswith(anchor) for link in items[0]), (text, items[:2])


# tracebacks cut before their message, as users pasted them (tuning corpus:
# facebookresearch/UnsupervisedMT#17, its last frames)
CUT_TRACEBACK = (
    '  File "/home/xutan/anaconda3/lib/python3.6/site-packages/torch/multiprocessing/reductions.py", line 201, '
    'in rebuild_storage_fd\n    fd = df.detach()\n'
    '  File "/home/xutan/anaconda3/lib/python3.6/multiprocessing/reduction.py", line 182, in recv_handle\n'
    '    return recvfds(s, 1)[0]\n'
    '  File "/home/xutan/anaconda3/lib/python3.6/multiprocessing/reduction.py", line 161, in recvfds\n'
    '    len(ancdata))  # the line it raised in\n')


@pytest.mark.named_pages
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_a_traceback_cut_before_its_message_is_searched_by_its_last_frame(search_page, server, lang):
    """A paste of frames only (the message left out) searched nothing: the box read only the
    lines that name an error. It now searches the innermost frame's function and the line it
    raised in, without its comment, and the entry that line belongs to is in the top three."""
    page = search_page(lang)
    assert page.evaluate("t => window.devguideSearchPaste(t)", CUT_TRACEBACK) == "recvfds len(ancdata))"
    (items,) = page.evaluate(realbench.PASTE, [CUT_TRACEBACK])
    root = searchbench.root_url(server, lang)
    assert "reference/errors/data-loading/" in searchbench.page_paths(items, root)[:3], items[:3]


# pasted as users pasted them (tuning corpus: DonsetPG/graph-physics#22, Linesight-RL/linesight#51,
# xuguodong03/SSKD#3): a short message inside the asker's sentence, a module path the page writes
# out, a full-width colon after the exception's name, a C++ warning under its log prefix
DOCUMENTED_AS_PASTED = [
    ("**Error**: `RuntimeError: received 0 items of ancdata` raised during validation when running "
     "training on GPU nodes on cluster Laffitte.", "reference/errors/data-loading/"),
    ("FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
     "`torch.amp.GradScaler('cuda', args...)` instead.", "reference/errors/amp-and-optimizers/"),    ("[rank0]:[W730 15:32:17.841273251 ProcessGroupNCCL.cpp:1479] Warning: WARNING: destroy_process_group() was not "
     "called before program exit, which can leak resources. For more info, please see "
     "https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())\n",
     "reference/errors/nccl/"),  # anhvth/opensloth#17, with its log prefix
    # CUDA's out-of-memory message with XPU in its place (intel/torch-xpu-ops#5046): every phrase
    # but the first is on the CUDA entry too; the device the message begins with decides
    ("torch.OutOfMemoryError: XPU out of memory. Tried to allocate 16.00 GiB. GPU 0 has a total capacity of "
     "16.48 GiB of which 16.07 GiB is free. Of the allocated memory 0 bytes is allocated by PyTorch, and 0 "
     "bytes is reserved by PyTorch but unallocated. Please use `empty_cache` to release all unoccupied cached "
     "memory.\n", "reference/errors/xpu/"),
    # Markdown's emphasis around a message (yxlijun/Pelee.Pytorch#3); a short message after the asker's
    # Chinese words (WZMIAOMIAO/deep-learning-for-image-processing#845) and after their own words and
    # a colon (mosaicml/llm-foundry#414); another operator in double quotes than the entry's
    # (chaofengc/IQA-PyTorch#187); the source line of a
    # traceback, with its format field (speechbrain/speechbrain#912)
    ("_OSError: [Errno 24] Too many open files_", "reference/errors/data-loading/"),
    ("用VOC2012数据集跑mask RCNN的时候报错OSError: [Errno 24] Too many open files", "reference/errors/data-loading/"),
    ("LORA + FSDP: ValueError: `FlatParameter` requires uniform `requires_grad`", "reference/errors/distributed/"),
    ("RuntimeError: \"LayerNormKernelImpl\" not implemented for 'Half'", "reference/errors/dtypes/"),
    ("raise RuntimeError('received %d items of ancdata' %", "reference/errors/data-loading/"),
    # older forms of a CUDA status and an NCCL error (NVIDIA/apex#124, linjieli222/VQA_ReGAT#41), a
    # kernel's assertion pasted with its kernel's signature (joe-siyuan-qiao/DetectoRS#13), another
    # exception's name inside the message (nmhkahn/CARN-pytorch#58)
    ("THCudaCheck FAIL file=/pytorch/aten/src/THC/THCTensorCopy.cu line=84 error=74 : misaligned address",
     "reference/errors/cuda-runtime/"),
    ("terminate called after throwing an instance of 'std::runtime_error'\n  what():  NCCL Error 1: unhandled cuda "
     "error\nAborted (core dumped)", "reference/errors/nccl/"),
    ("/pytorch/aten/src/THCUNN/SpatialClassNLLCriterion.cu:104: void cunn_SpatialClassNLLCriterion_updateOutput_kernel("
     "T *, T *, T *, long *, T *, int, int, int, int, int, long) [with T = float, AccumT = float]: block: [0,0,0], "
     "thread: [455,0,0] Assertion `t >= 0 && t < n_classes` failed.",
     ("reference/errors/cuda-runtime/", "async/debugging/")),  # both quote and explain that assertion
    ("IndexError: Caught IndexError in DataLoader worker process 0.", "reference/errors/data-loading/"),
    # with the two sentences torch.compile adds under each of its errors (edenaion/EZ-CorridorKey#11)
    ("19:37:45 [ERROR  ] ui.workers.gpu_job_worker: Unexpected error: RuntimeError: Compiler: cl is not found. Set "
     "TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this especially if you're reporting a bug to "
     "PyTorch). For even more developer context, set TORCH_LOGS=\"+dynamo\"", "reference/errors/compile/"),
]


@pytest.mark.named_pages
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_a_documented_message_in_the_askers_words_gets_no_notice(search_page, server, lang):
    """A documented message got the notice that the site lacks it when the paste and the page
    differed only in what the worker leaves out of a paste (module paths, exception names: the
    page's text kept them), or when the message is shorter than a phrase and the asker's words
    stood around it. Both sides now lose the same things, and a paste that holds an entry's whole
    short title is documented (real-bench, tuning: documented messages given the notice 10.6 % ->
    6.8 %, undocumented pastes landed unchanged). Then (search-worker.js, wording and phrasesOf):
    full-width punctuation, Markdown's underscores, a traceback's source line, a short message after
    the asker's words, another operator in double quotes or exception's name inside the message,
    the older forms of a CUDA status and an NCCL error (which open their entry first), a kernel's
    assertion with its kernel's signature (real-bench, tuning corpus: zh 28 -> 11 and en 26 -> 10
    of 818 documented messages given the notice; found 830 of 833 in both, undocumented landed
    15 of 15)."""
    page = search_page(lang)
    root = searchbench.root_url(server, lang)
    found = page.evaluate(realbench.PASTE, [text for text, _ in DOCUMENTED_AS_PASTED])
    for (text, entry_page), items in zip(DOCUMENTED_AS_PASTED, found, strict=True):
        assert items and realbench.UNDOCUMENTED not in items[0][0], (text, items[:2])
        pages = entry_page if isinstance(entry_page, tuple) else (entry_page,)
        assert items[0][0].removeprefix(root).split("#")[0].split("?")[0] in pages, (text, items[:2])


# questions that name an error, typed as users asked them (tuning corpus: justinkay/aldi#45), and the
# topic page that answers each
ASKED_ABOUT_AN_ERROR = [
    ("Is there an error in the calculation of cross-entropy loss?", "training/losses/"),
]


@pytest.mark.named_pages
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_a_question_that_names_an_error_is_asked_not_pasted(search_page, server, lang):
    """A question holding "error" was read as a pasted message: the error reference kept its full
    weight and the first result was the notice that "this exact message" (the question) is not
    documented, on a family page its words happened to rank first (the distributed one). A text with
    a question mark, no exception's name and no start as a message has is now a question: no
    notice, and its topic page first (real-bench, tuning: questions top-3 unchanged, zh 94.2 %, en
    91.6 %; pasted messages unchanged); and so is a long line of prose in the asker's voice ("I",
    "my", no long quote), which was read as a log line (en 91.6 -> 92.1 %)."""
    page = search_page(lang)
    root = searchbench.root_url(server, lang)
    found = page.evaluate(searchbench.RUN, [q for q, _ in ASKED_ABOUT_AN_ERROR])
    for (q, topic), items in zip(ASKED_ABOUT_AN_ERROR, found, strict=True):
        assert items and realbench.UNDOCUMENTED not in items[0][0], (q, items[:2])
        assert searchbench.page_paths(items, root)[0] == topic, (q, items[:2])
    # a long line of prose in the asker's voice, no question mark (stevenygd/PointFlow#15): no log
    # line either, and no notice
    prose = ("I am training your code with 8 GPUs, and I see that every process leaves some space on GPU:0. This "
             "limits the GPU utilization. I was wondering if this behavior should be expected, and if you know what "
             "might be the cause of this.")
    (items,) = page.evaluate(searchbench.RUN, [prose])
    assert items and realbench.UNDOCUMENTED not in items[0][0] and "reference/errors/" not in items[0][0], items[:2]


# questions that name a GPU by its number, as users asked them (tuning corpus: OpenNMT/OpenNMT-py#1707,
# https://discuss.pytorch.org/t/train-with-nn-distributeddataparallel-gpu0-will-occupy-much-more-memory-memory/66080),
# and the page that answers each, in the first three results on both sites (the Chinese one, of the tuning
# corpus too, on the Chinese site)
BY_GPU_NUMBER = [
    ("How to train on GPU 1, while leaving GPU 0?", "devices/", paths.LANGUAGES),
    ("Train with nn.DistributedDataParallel, gpu0 will occupy much more memory memory", "distributed/dp-vs-ddp/",
     paths.LANGUAGES),
    ("多卡sft断点续训时，其余卡的子进程会占用0卡显存", "devices/multi-gpu/", ("zh",)),
]


@pytest.mark.named_pages
@pytest.mark.parametrize("lang", paths.LANGUAGES)
def test_a_gpu_named_by_its_number_finds_the_sections_about_it(search_page, server, lang):
    """Numbers are no query terms, and "GPU 1", "gpu0", "cuda:1" or "0卡" lost what the question
    was about. Each way of writing a GPU's number is also the term gpu0, gpu1… in the pages and
    in a query (real-bench, tuning: questions top-3 zh 275 -> 276 of 292, en 435 -> 438 of 479;
    pasted messages unchanged)."""
    page = search_page(lang)
    root = searchbench.root_url(server, lang)
    asked = [(q, answer) for q, answer, languages in BY_GPU_NUMBER if lang in languages]
    found = page.evaluate(searchbench.RUN, [q for q, _ in asked])
    for (q, answer), items in zip(asked, found, strict=True):
        top3 = searchbench.page_paths(items, root)[:3]
        assert any(page.startswith(answer) for page in top3), (q, top3)


# questions in readers' English for the pages' words (tuning corpus: xcmyz/FastSpeech#11,
# open-mmlab/mmdetection#4253), and the page that answers each
IN_READERS_WORDS = [
    ("Training slower with multiple GPU's", "distributed/dp-vs-ddp/"),
    ("How to close/clear/deinitialize a model?", "performance/gpu-memory/"),
]


@pytest.mark.named_pages
def test_readers_words_for_the_pages_words_find_the_page(search_page, server):
    """"Multiple GPUs" are the pages' "several GPUs", and memory "released", "cleared" or a model
    "deinitialized" is memory the pages free (search-worker.js SYNONYMS; real-bench, tuning: en
    questions top-3 439 -> 441 of 479, pasted messages unchanged)."""
    page = search_page("en")
    root = searchbench.root_url(server, "en")
    found = page.evaluate(searchbench.RUN, [q for q, _ in IN_READERS_WORDS])
    for (q, answer), items in zip(IN_READERS_WORDS, found, strict=True):
        top3 = searchbench.page_paths(items, root)[:3]
        assert any(page.startswith(answer) for page in top3), (q, top3)


@pytest.mark.named_pages
def test_the_box_keeps_torch_compiles_outer_exception_line(search_page):
    """torch.compile raises a backend's failure as BackendCompilerFailed, a name that does not end
    in "Error": the box kept only the inner message ("AssertionError: libcuda.so cannot found!") and
    lost the line that names the family (MIC-DKFZ/nnUNet#2164, tuning corpus)."""
    page = search_page("en")
    text = ("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
            "AssertionError: libcuda.so cannot found!\n")
    read = page.evaluate("t => window.devguideSearchPaste(t)", text)
    assert read.startswith("torch._dynamo.exc.BackendCompilerFailed") and "libcuda.so cannot found" in read, read
