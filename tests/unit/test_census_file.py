"""The census file: its schema, atomic writes, and loading what is corrupt or stale."""

import copy
import functools
import json
import warnings

import pytest

from devguide import census, config, report


@functools.lru_cache(maxsize=1)
def _sources():
    return census.build()


def sources():
    """The census of the sources (built once per test run; a deep copy each time)."""
    return copy.deepcopy(_sources())


def test_the_census_of_the_sources_matches_its_schema():
    assert census.validate(sources()) is None


def test_a_wrong_shape_is_named_in_one_line():
    assert census.validate({"generated": "x", "machine": {}, "fences": []}) == (
        "machine: 'torch' is a required property"
    )


def test_writes_are_atomic(tmp_path):
    path = census.write(sources(), tmp_path / "validation.json")
    assert census.validate(json.loads(path.read_text(encoding="utf-8"))) is None
    assert [p.name for p in tmp_path.iterdir()] == ["validation.json"]  # no temporary file left


def test_a_truncated_file_is_one_warning_and_no_census(tmp_path):
    path = tmp_path / "validation.json"
    path.write_text(json.dumps(sources())[:500], encoding="utf-8")
    with pytest.warns(census.CensusWarning, match=r"validation.json is not a valid census \(.*\); ignored until the next complete run"):
        assert census.load(path) is None


def test_entries_of_a_removed_page_are_dropped_with_a_warning(tmp_path):
    data = sources()
    gone = dict(data["fences"][0], page="docs/zh/removed/page.md")
    data["fences"].append(gone)
    path = census.write(data, tmp_path / "validation.json")
    with pytest.warns(census.CensusWarning, match=r"1 entries no longer match the pages .*pages gone: docs/zh/removed/page.md"):
        loaded = census.load(path)
    assert all(f["page"] != "docs/zh/removed/page.md" for f in loaded["fences"])
    assert len(loaded["fences"]) == len(data["fences"]) - 1


def test_the_report_never_links_a_page_that_is_gone(tmp_path, monkeypatch):
    data = sources()
    data["fences"].append(dict(data["fences"][0], page="docs/zh/removed/page.md", status="passed"))
    monkeypatch.setattr(config, "VALIDATION_JSON", census.write(data, tmp_path / "validation.json"))
    report._recorded.cache_clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", census.CensusWarning)
        text = report.render("zh")
    assert "removed/page.md" not in text
    report._recorded.cache_clear()
