"""The error pages' wordings and the record of which torch releases print them (issue 35).

``devguide/dev/wording_history.py`` reads the strings of torch's wheels, 1.13 to 2.15, and
records for every entry title and variant heading of the English error pages which releases
hold it (``devguide/mkdocs_plugin/hooks/wording_history.json``, rendered under each heading),
and, for entries whose wordings some releases lack, the string of those releases most like the
entry's title: a candidate older wording. These tests keep the pages and the record in step
without the network: the record names exactly the wordings the pages have, and every candidate
is either a variant on the page by now or dismissed with a reason in
``wording_history_reviewed.toml``.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from devguide.dev import wording_history
from devguide.mkdocs_plugin.hooks import error_pages

REVIEWED = Path(__file__).with_name("wording_history_reviewed.toml")
REFRESH = "run `python -m devguide wording-history` (it downloads the wheels once, about 1.5 GB, into build/wording-history/)"


def reviewed() -> dict:
    return (
        tomllib.loads(REVIEWED.read_text(encoding="utf-8")) if REVIEWED.exists() else {}
    )


def record() -> dict:
    return json.loads(wording_history.RECORD.read_text(encoding="utf-8"))


def test_the_record_names_every_wording_on_the_error_pages_and_no_other():
    pages = {w.anchor: w for w in wording_history.wordings()}
    recorded = record()["wordings"]
    missing = [
        f"{w.page}.md#{a}: {w.text[:80]}" for a, w in pages.items() if a not in recorded
    ]
    changed = [
        f"{w.page}.md#{a}"
        for a, w in pages.items()
        if a in recorded and recorded[a]["text"] != w.text
    ]
    gone = sorted(set(recorded) - set(pages))
    assert not (missing or changed or gone), (
        "the wording history is out of step with docs/en/reference/errors/: "
        + "; ".join(
            [
                *(f"new {m}" for m in missing),
                *(f"reworded {c}" for c in changed),
                *(f"removed #{g}" for g in gone),
            ]
        )
        + f" — {REFRESH}"
    )


def test_the_record_covers_every_release_from_1_13_to_the_newest():
    assert record()["releases"] == wording_history.RELEASES, (
        f"the record was made from fewer releases: {REFRESH}"
    )


def test_most_wordings_are_found_in_torch_itself():
    """A drop here means the matching broke, not that torch changed (the record is
    rebuilt only from the same wheels)."""
    wordings = record()["wordings"].values()
    found = sum(1 for w in wordings if w["releases"])
    assert found >= 0.65 * len(wordings), (
        f"only {found} of {len(wordings)} wordings found in any release"
    )


def older(version: str) -> bool:
    return tuple(int(p) for p in version.split(".")) < (2, 13)


def test_every_title_that_torch_holds_is_in_the_pinned_release():
    """An entry is titled with the message as the pinned torch prints it (the index says
    so): a title found in older wheels but not in 2.13.0's is an older wording. (One
    found only in newer wheels is not: CUDA-only titles are in no CPU wheel, and a
    newer release's strings may hold their words by chance.)"""
    gone = reviewed().get("no-longer-printed", {})
    wrong = [
        f"docs/en/reference/errors/{w['page']}.md#{a}: found only in {', '.join(w['releases'])}"
        for a, w in record()["wordings"].items()
        if w["title"]
        and "2.13.0" not in w["releases"]
        and any(older(v) for v in w["releases"])
        and not gone.get(a, "").strip()
    ]
    assert not wrong, (
        "titles that torch 2.13 does not print (make the 2.13 wording the title, this one a variant; or, for a "
        f"message 2.13 no longer has at all, give the reason under [no-longer-printed] in {REVIEWED.name}): "
        + "; ".join(wrong)
    )


def test_every_candidate_older_wording_is_on_the_page_or_dismissed_with_a_reason():
    reviewed_ = reviewed()
    open_ = []
    for entry, candidates in record()["candidates"].items():
        for text, releases in candidates.items():
            reason = reviewed_.get(entry, {}).get(text, "")
            if not reason.strip():
                open_.append(f"#{entry} ({', '.join(releases)}): {text!r}")
    assert not open_, (
        "older wordings that torch's wheels hold and the page does not list: add each as a variant heading "
        f"under its entry (both languages), or dismiss it with a reason in {REVIEWED.name} "
        '([entry] "text" = "reason"): ' + "; ".join(open_)
    )


def test_the_line_under_a_heading_lists_its_releases_as_runs():
    page = "## RuntimeError: a { #a }\n\ntext\n\n#### RuntimeError: b { #b }\n\nmore\n"
    rec = {
        "releases": ["1.13.1", "2.0.1", "2.1.2", "2.13.0"],
        "wordings": {
            "a": {"releases": ["2.13.0"]},
            "b": {"releases": ["1.13.1", "2.0.1"]},
        },
    }
    en = error_pages.printed_by(page, "en", rec)
    assert "wording: 2.13.0 (found" in en and "wording: 1.13.1–2.0.1 (found" in en
    assert en.count("data-search-exclude") == 2
    zh = error_pages.printed_by(page, "zh", rec)
    assert "措辞的 torch 版本：2.13.0（" in zh
    assert error_pages.printed_by(page, "en", {"releases": [], "wordings": {}}) == page
