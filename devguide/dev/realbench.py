"""The benchmark on real material: questions and error messages that users posted.

``tests/site/real_questions_{en,zh}.toml`` and ``tests/site/real_errors.toml`` were
collected from public GitHub issues and forum pages, with their sources, in the
askers' own words (never written by this project). Which entry answers a message
is our judgement and lives apart from the corpus, in
``tests/site/real_errors_answers.toml`` (one table row per message family).

Measured, per language site, in Chromium through the real search box
(``devguide.dev.searchbench``):

* questions: top-1, top-3 and MRR@5 of the pages that answer them;
* errors: the share whose entry is on both sites (its anchor is on the built
  page of each language), the share found by pasting the whole message (the
  entry's page among the first three results) and the share whose result list
  links the entry's section itself.

``make bench`` prints the numbers (``python -m devguide real-bench``);
tests/site/test_search.py holds both splits to the floors in ``FLOORS`` (today's
numbers less a margin); ``GOAL`` is what issues 24 and 35 ask for.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from devguide import paths
from devguide.dev import searchbench

SITE_TESTS = paths.REPO / "tests" / "site"
# The corpus in two splits (issue 35): "tuning" is what pages and ranking were written
# against; "held-out" is 30 % of the 2026-12-06 collection, frozen before any page was
# written for it, and only ever scored.
SPLITS = {"tuning": SITE_TESTS, "held-out": SITE_TESTS / "heldout"}
ANSWERS = SITE_TESTS / "real_errors_answers.toml"
# in a result's address: the family page opened for a message no page quotes
UNDOCUMENTED = "?undocumented="

# The goal (issue 24): 90 % of each language's questions answered in the top three,
# 90 % of the messages on both sites and found by pasting them whole.
GOAL = {"question_top3": 0.90, "errors_on_both": 0.90, "errors_found": 0.90}
# Issue 35: a pasted message that no page quotes opens its family's page, with the
# notice that it is not documented yet, at least this often.
GOAL_UNDOCUMENTED = 0.95
# What make test holds the site to, per split and language: this build's numbers less a
# margin (about two items of the smaller sets); raised as the site improves, never
# lowered to pass. The corpus grew on 2026-12-06 (issue 35) with material the site had
# not been written for: the questions measured 83-87 % there, under the goal, and
# their floors start under it; CI's floors on the frozen split are the ones that count.
# undocumented_landed is measured on the pastes whose family has no entry yet, and that
# population shrinks as entries are written: after 40 families got entries (2026-12-06,
# evening) the held-out split kept 42 such pastes (37 landed, 88 %; 94 % of the larger
# set before), so its floor is set anew on those 42 with one item of margin (85 %), and
# the tuning floor rises with what this build lands there (58-59 of 62).
# Questions stated in users' words (issue 35 item 5) raised the question floors: tuning zh
# 89 %, en 87 %; held-out zh 91 % (en 82 %, its floor unchanged), less about two items.
# A second round (2026-12-07: nine page pairs answer the tuning misses' questions in their
# words) measured tuning zh 92 %, en 91 %, held-out zh 91 %, en 86 %: the tuning floors rise
# to 90 % / 89 % and the held-out English one to 82 % (48 of 56 now; two items of margin).
# 2026-12-07, eighteenth session: nine more families got entries (their pastes are documented
# now), and the held-out split kept 20 pastes of families without one, of which 16 land:
# four misses among fewer pastes, as many as before (27 of 31 landed): its floor is set anew on
# those 20 with one item of margin (75 %), as on 2026-12-06. The tuning split lands 19 of 20.
FLOORS = {
    "tuning": {
        "zh": {"question_top3": 0.90, "errors_on_both": 0.97, "errors_found": 0.95, "undocumented_landed": 0.91},
        "en": {"question_top3": 0.89, "errors_on_both": 0.97, "errors_found": 0.95, "undocumented_landed": 0.91},
    },
    "held-out": {
        "zh": {"question_top3": 0.87, "errors_on_both": 0.97, "errors_found": 0.93, "undocumented_landed": 0.75},
        "en": {"question_top3": 0.82, "errors_on_both": 0.97, "errors_found": 0.93, "undocumented_landed": 0.75},
    },
}


@dataclass
class Question:
    lang: str
    q: str
    pages: list[str]
    source: str
    got: list[str] = field(default_factory=list)

    @property
    def rank(self) -> int | None:
        return next((i + 1 for i, p in enumerate(self.got[:5]) if accepts(self.pages, p)), None)


@dataclass
class Paste:
    text: str
    source: str
    family: str
    answers: list[str]  # "reference/errors/nccl/#nccl-watchdog-timeout" or a page alone
    got: dict[str, list[str]] = field(default_factory=dict)  # lang -> result pages
    links: dict[str, list[str]] = field(default_factory=dict)  # lang -> links of the first three results

    def pages(self) -> list[str]:
        return [a.split("#")[0] for a in self.answers]

    def found(self, lang: str) -> bool:
        return any(accepts(self.pages(), p) for p in self.got.get(lang, [])[:3])

    def section(self, lang: str) -> bool:
        return any(_same(link, a) for link in self.links.get(lang, []) for a in self.answers if "#" in a)

    @property
    def undocumented(self) -> bool:
        """The site has no entry for this message's family yet: its answers name pages only."""
        return all("#" not in a for a in self.answers)

    def notice_first(self, lang: str) -> bool:
        """The first result opens a family page with the not-documented notice."""
        links = self.links.get(lang, [])
        return bool(links) and UNDOCUMENTED in links[0]

    def landed(self, lang: str) -> bool:
        """An undocumented message's first result is its family page, with the notice."""
        links = self.links.get(lang, [])
        return self.notice_first(lang) and links[0].split("?")[0] in self.pages()


def _same(link: str, answer: str) -> bool:
    """``link`` (a result's address under the language root, perhaps with ``?h=``) opens ``answer``."""
    page, anchor = answer.split("#")
    return link.split("#")[0].split("?")[0] == page and link.endswith("#" + anchor)


def accepts(pages: list[str], got: str) -> bool:
    """A result page is acceptable when named, or under a named section that ends in
    ``errors/`` (a question answered by "the error reference" accepts any of its pages)."""
    return any(got == p or (p.endswith("errors/") and got.startswith(p)) for p in pages)


def load_questions(root: Path = paths.REPO, split: str = "tuning") -> list[Question]:
    out = []
    for lang in ("en", "zh"):
        path = SPLITS[split] / f"real_questions_{lang}.toml"
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for entry, line in zip(data["question"], searchbench.header_lines(path, "[[question]]"), strict=True):
            where = f"{paths.rel(path)}:{line}"
            assert entry.get("lang") == lang, f"{where}: lang must be {lang!r} in this file"
            assert entry.get("source"), f"{where}: no source: name the issue (owner/repo#N) or the address"
            for url in entry["pages"]:
                if not url.endswith("errors/"):
                    assert searchbench.page_source(root, lang, url), f"{where}: {url!r} is no page of docs/{lang}/"
            out.append(Question(lang=lang, q=entry["q"], pages=list(entry["pages"]), source=entry["source"]))
    return out


def load_errors(root: Path = paths.REPO, split: str = "tuning") -> list[Paste]:
    answers = tomllib.loads(ANSWERS.read_text(encoding="utf-8"))["answers"]
    errors = SPLITS[split] / "real_errors.toml"
    data = tomllib.loads(errors.read_text(encoding="utf-8"))
    out = []
    for entry, line in zip(data["error"], searchbench.header_lines(errors, "[[error]]"), strict=True):
        where = f"{paths.rel(errors)}:{line}"
        assert entry.get("source"), f"{where}: no source: name the issue (owner/repo#N) or the address"
        family = entry["family"]
        assert family in answers, (
            f"{where}: family {family!r} has no answer in {paths.rel(ANSWERS)}: add "
            f'{family} = ["reference/errors/<page>/#<anchor>"]')
        out.append(Paste(text=entry["text"].strip(), source=entry["source"], family=family,
                         answers=list(answers[family])))
    return out


def anchors_on_site(site_dir: Path, lang: str, answer: str) -> bool:
    """The answer's page is built for ``lang`` and, when it names an anchor, has it."""
    page, _, anchor = answer.partition("#")
    html_path = site_dir / paths.url_prefix(lang) / page / "index.html"
    if not html_path.is_file():
        return False
    return not anchor or re.search(rf'\bid="{re.escape(anchor)}"', html_path.read_text(encoding="utf-8")) is not None


# Pastes each text into the box as a reader's paste does (a "paste" event with
# the text on its clipboard, no key pressed), after emptying the box; resolves to
# the rendered results of each, as searchbench.RUN does.
PASTE = """
async (texts) => {
  const box = document.querySelector("input.md-search__input");
  const answered = () => new Promise(resolve => {
    const seen = ev => { if (ev.detail === box.value) { document.removeEventListener("devguide:search", seen); resolve(); } };
    document.addEventListener("devguide:search", seen);
  });
  const out = [];
  for (const text of texts) {
    if (box.value !== "") {
      const cleared = answered();
      box.value = "";
      box.dispatchEvent(new KeyboardEvent("keyup", { bubbles: true }));
      await cleared;
    }
    if (!window.devguideSearchPaste(text).trim()) {  // no line a reader would search (a cut traceback)
      out.push([]);
      continue;
    }
    const done = answered();
    const clipboard = new DataTransfer();
    clipboard.setData("text/plain", text);
    box.focus();
    const event = new ClipboardEvent("paste", { clipboardData: clipboard, bubbles: true, cancelable: true });
    if (box.dispatchEvent(event)) {  // one line: what the browser would insert
      box.value = text;
      box.dispatchEvent(new Event("input", { bubbles: true }));
    }
    await done;
    out.push(Array.from(document.querySelectorAll(".md-search-result__item")).map(
      li => Array.from(li.querySelectorAll("a.md-search-result__link")).map(a => a.href)));
  }
  return out;
}
"""


def run(page, server: str, lang: str, questions: list[Question], pastes: list[Paste]) -> None:
    """Each question of ``lang`` typed, and every message pasted, into the search box
    of the ``lang`` site."""
    root = searchbench.root_url(server, lang)
    mine = [q for q in questions if q.lang == lang]
    # typed into a one-line box: a question of several lines is read as one (an <input> has no line breaks)
    typed = [" ".join(q.q.split()) for q in mine]
    with searchbench.unlaid(page):
        asked = page.evaluate(searchbench.RUN, typed)
        answered = page.evaluate(PASTE, [p.text for p in pastes])
    for q, items in zip(mine, asked, strict=True):
        q.got = searchbench.page_paths(items, root)
    for p, items in zip(pastes, answered, strict=True):
        p.got[lang] = searchbench.page_paths(items, root)
        p.links[lang] = [link.removeprefix(root) for item in items[:3] for link in item]


def _material_digest(questions: list[Question], pastes: list[Paste], lang: str) -> str:
    texts = [q.q for q in questions if q.lang == lang] + [p.text for p in pastes]
    return hashlib.sha256("\0".join(texts).encode()).hexdigest()


def save_outcomes(path: Path, lang: str, material: dict[str, tuple[list[Question], list[Paste]]]) -> None:
    """What each question and message of ``lang`` got in this run, for the next page
    edit's run (``touched``), with the material it was measured on."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({split: {
        "material": _material_digest(questions, pastes, lang),
        "questions": [q.got for q in questions if q.lang == lang],
        "pastes": [[p.got.get(lang, []), p.links.get(lang, [])] for p in pastes],
    } for split, (questions, pastes) in material.items()}), encoding="utf-8")


def restore_outcomes(path: Path, lang: str, material: dict[str, tuple[list[Question], list[Paste]]]) -> bool:
    """Give each question and message of ``lang`` what it got in the run ``save_outcomes``
    recorded; False (nothing given) where there is none for this very material."""
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved.keys() != material.keys() or any(
                saved[split]["material"] != _material_digest(*material[split], lang) for split in material):
            return False
    except (OSError, ValueError, KeyError, TypeError):
        return False
    for split, (questions, pastes) in material.items():
        for q, got in zip((q for q in questions if q.lang == lang), saved[split]["questions"], strict=True):
            q.got = list(got)
        for p, (got, links) in zip(pastes, saved[split]["pastes"], strict=True):
            p.got[lang], p.links[lang] = list(got), list(links)
    return True


def touched(questions: list[Question], pastes: list[Paste], lang: str, edited: set[str]):
    """The questions and messages an edit of the pages at these addresses
    (``devices/moving/``) can change most: those the pages answer, and those whose
    first three results held one of them. (A page can also enter another query's
    results: a run of every page, make test-all or CI, scores them all.)"""
    def hits(answer_pages, got) -> bool:
        return any(accepts(answer_pages, u) or u in got[:3] for u in edited)

    return ([q for q in questions if q.lang == lang and hits(q.pages, q.got)],
            [p for p in pastes if hits(p.pages(), p.got.get(lang, []))])


def numbers(questions: list[Question], pastes: list[Paste], site_dir: Path) -> dict[str, dict[str, float]]:
    out = {}
    for lang in paths.LANGUAGES:
        qs = [q for q in questions if q.lang == lang]
        n = len(qs) or 1
        out[lang] = {
            "questions": len(qs),
            "question_top1": sum(q.rank == 1 for q in qs) / n,
            "question_top3": sum(bool(q.rank and q.rank <= 3) for q in qs) / n,
            "question_mrr": sum(1 / q.rank if q.rank else 0 for q in qs) / n,
            "errors": len(pastes),
            "errors_found": sum(p.found(lang) for p in pastes) / (len(pastes) or 1),
            "errors_section": sum(p.section(lang) for p in pastes) / (len(pastes) or 1),
        }
        undocumented = [p for p in pastes if p.undocumented]
        documented = [p for p in pastes if not p.undocumented]
        out[lang]["errors_undocumented"] = len(undocumented)
        out[lang]["undocumented_landed"] = sum(p.landed(lang) for p in undocumented) / (len(undocumented) or 1)
        out[lang]["documented_with_notice"] = sum(p.notice_first(lang) for p in documented) / (len(documented) or 1)
    on_both = sum(
        any(all(anchors_on_site(site_dir, lang, a) for lang in paths.LANGUAGES) for a in p.answers) for p in pastes
    ) / (len(pastes) or 1)
    for lang in out:
        out[lang]["errors_on_both"] = on_both
    return out


def report(result: dict[str, dict[str, float]], split: str = "tuning") -> list[str]:
    lines = []
    for lang, n in result.items():
        floor = FLOORS[split][lang]
        lines.append(
            f"  {lang}: {n['questions']} real questions: top-1 {n['question_top1']:.0%}, top-3 {n['question_top3']:.0%} "
            f"(floor {floor['question_top3']:.0%}, goal {GOAL['question_top3']:.0%}), MRR@5 {n['question_mrr']:.2f}; "
            f"{n['errors']} real errors: on both sites {n['errors_on_both']:.0%} (floor {floor['errors_on_both']:.0%}), "
            f"found by pasting the whole message {n['errors_found']:.0%} (floor {floor['errors_found']:.0%}, goal "
            f"{GOAL['errors_found']:.0%}), its section linked {n['errors_section']:.0%}; "
            f"{n['errors_undocumented']} of no documented family: landed on the family page with the notice "
            f"{n['undocumented_landed']:.0%} (floor {floor['undocumented_landed']:.0%}, goal {GOAL_UNDOCUMENTED:.0%}), documented ones given the notice "
            f"{n['documented_with_notice']:.0%}")
    return lines


def misses(questions: list[Question], pastes: list[Paste], lang: str) -> list[str]:
    # the messages first: they are fewer than the questions, and a report cut at 40 lines keeps them
    out = [f"  {lang} error {p.family} ({p.source}): top three {p.got.get(lang, [])[:3]}, expected {p.pages()}"
           for p in pastes if not p.found(lang)]
    out += [f"  {lang} undocumented {p.family} ({p.source}): first result {p.links.get(lang, [])[:1]}, expected "
            f"{p.pages()} with the notice" for p in pastes if p.undocumented and not p.landed(lang)]
    out += [f"  {lang} documented {p.family} ({p.source}) given the notice: {p.links.get(lang, [])[:1]}"
            for p in pastes if not p.undocumented and p.notice_first(lang)]
    out += [f"  {lang} question {q.q!r} ({q.source}): top three {q.got[:3]}, expected {q.pages}"
            for q in questions if q.lang == lang and not (q.rank and q.rank <= 3)]
    return out


def main(site_dir: Path | None = None, splits: tuple[str, ...] = ("tuning", "held-out"), show_misses: bool = True) -> int:
    """Both splits by default; the misses are listed for the tuning split only (the
    held-out split is scored, never read to decide what to change)."""
    from playwright.sync_api import sync_playwright

    from devguide.dev import site_check

    site_dir = site_dir or paths.SITE
    material = {split: (load_questions(split=split), load_errors(split=split)) for split in splits}
    with site_check.serve(site_dir) as server, sync_playwright() as p:
        browser = site_check.launch(p)
        for lang in paths.LANGUAGES:
            context = browser.new_context()
            page = searchbench.open_search(context, server, lang)
            for questions, pastes in material.values():
                run(page, server, lang, questions, pastes)
            context.close()
        browser.close()
    for split, (questions, pastes) in material.items():
        result = numbers(questions, pastes, site_dir)
        print(f"real-material benchmark, {split} split: {len(questions)} questions, {len(pastes)} error messages, "
              "from public issues and forums")
        print("\n".join(report(result, split)))
        for lang in paths.LANGUAGES:
            missed = misses(questions, pastes, lang)
            if missed and show_misses and split == "tuning":
                print(f"not in the top three ({lang}, {len(missed)}):")
                print("\n".join(missed))
    return 0
