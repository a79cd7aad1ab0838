"""The census file: its schema, atomic writes, and loading what is corrupt or stale."""

import copy
import functools
import json
import re
import warnings

import pytest

from devguide import paths
from devguide.census import file as census
from devguide.census import results
from devguide.mkdocs_plugin.report import validated_line, validation_page


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


def test_an_entry_whose_block_only_moved_follows_it_to_its_new_line(tmp_path):
    """Prose added above a block shifts its line, not its code: the result still holds
    (the site showed "12 changed since" for a page whose code had not changed)."""
    data = sources()
    python = next(f for f in data["fences"] if f["kind"] == "python" and f.get("sha"))
    data["fences"] = [dict(python, line=python["line"] + 3, status="passed")]
    path = census.write(data, tmp_path / "validation.json")
    with warnings.catch_warnings():
        warnings.simplefilter("error", census.CensusWarning)  # nothing is dropped
        (moved,) = census.load(path)["fences"]
    assert (moved["line"], moved["status"]) == (python["line"], "passed")
    data["fences"] = [dict(python, line=python["line"] + 3, sha="0" * 16)]  # the code changed too
    path = census.write(data, tmp_path / "validation.json")
    with pytest.warns(census.CensusWarning, match=r"1 entries no longer match the pages"):
        assert census.load(path)["fences"] == []


def test_the_report_never_links_a_page_that_is_gone(tmp_path, monkeypatch):
    data = sources()
    data["fences"].append(dict(data["fences"][0], page="docs/zh/removed/page.md", status="passed"))
    monkeypatch.setattr(paths, "VALIDATION_JSON", census.write(data, tmp_path / "validation.json"))
    results._recorded.cache_clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", census.CensusWarning)
        text = validation_page.render("zh")
    assert "removed/page.md" not in text
    results._recorded.cache_clear()


def _runs(tmp_path, monkeypatch, second_failed=(), second_changed=()):
    """A pinned run and a make test-torch run (torch 2.15.0) where every block passed,
    but for the (page, line)s named; the report and badges read them from tmp_path."""
    first = sources()
    for f in first["fences"]:
        if f["kind"] in ("python", "bash"):
            f["status"] = "passed"
    first["machine"] = {"torch": "2.13.0+cpu", "python": "3.11.7", "accelerator": "cpu", "torch_mode": "pinned"}
    second = copy.deepcopy(first)
    second["machine"] = dict(first["machine"], torch="2.15.0+cu132", torch_mode="named")
    for f in second["fences"]:
        if (f["page"], f["line"]) in second_failed:
            f["status"] = "failed"
        if (f["page"], f["line"]) in second_changed:
            f["sha"] = "0" * 16
    monkeypatch.setattr(paths, "BUILD", tmp_path)
    monkeypatch.setattr(paths, "VALIDATION_JSON", census.write(first, tmp_path / "validation.json"))
    census.write(second, tmp_path / "validation-torch-2.15.0.json")
    results._recorded.cache_clear()
    results._other.cache_clear()
    return first


def _first_block(data, lang="en"):
    return next(f for f in data["fences"] if f["kind"] == "python" and f["page"].startswith(f"docs/{lang}/"))


def _text(fragment):
    return re.sub(r"<[^>]+>", "", fragment)


def test_the_report_has_a_column_per_torch_version(tmp_path, monkeypatch):
    data = _runs(tmp_path, monkeypatch)
    block = _first_block(data)
    text = validation_page.render("en")
    assert '<th scope="col">torch 2.13.0 (CPU)</th><th scope="col">torch 2.15.0 (CPU)</th>' in text
    assert "**Another CPU run** (`make test-torch`)" in text and "torch 2.15.0+cu132" in text
    row = next(line for line in text.splitlines() if line.startswith(f'<tr id="{validated_line.row_id(block["page"])}">'))
    cells = re.findall(r'<td data-label="torch 2\.1[35]\.0 \(CPU\)">([^<]*)</td>', row)
    assert len(cells) == 2 and all(c.startswith("✓ ") for c in cells), row
    results._recorded.cache_clear()


def test_a_page_line_names_the_sites_own_torch_version_only(tmp_path, monkeypatch):
    """One torch version on the line (the report has a column for each)."""
    data = _runs(tmp_path, monkeypatch)
    page = _first_block(data)["page"]
    line = _text(validated_line.badge("en", page))
    assert "passed on CPU (torch 2.13.0)" in line and "2.15" not in line, line
    monkeypatch.setenv("DEVGUIDE_SITE_TORCH", "2.15")  # the /2.15/ site names its own version
    line = _text(validated_line.badge("en", page))
    assert "passed on CPU (torch 2.15.0)" in line and "2.13" not in line, line
    assert "在 CPU 上通过（torch 2.15.0）" in _text(validated_line.badge("zh", page.replace("docs/en/", "docs/zh/")))
    results._recorded.cache_clear()


def test_a_failure_or_a_changed_block_of_the_second_run_shows(tmp_path, monkeypatch):
    data = sources()
    first = _first_block(data)
    same_page = [f for f in data["fences"] if f["page"] == first["page"] and f["kind"] in ("python", "bash")]
    _runs(tmp_path, monkeypatch, second_failed={(first["page"], first["line"])})
    line = _text(validated_line.badge("en", first["page"]))
    # the site's version passed; the other one's failure shows, naming it
    assert "passed on CPU (torch 2.13.0)" in line and "✗ 1 failed with torch 2.15.0" in line, line
    assert "CPU, torch 2.15.0" in validation_page.render("en").split("{ #failed }")[1]  # listed under failed blocks
    if len(same_page) > 1:  # a block changed since the 2.15 run no longer counts for it
        _runs(tmp_path, monkeypatch, second_changed={(first["page"], first["line"])})
        monkeypatch.setenv("DEVGUIDE_SITE_TORCH", "2.15")
        line = _text(validated_line.badge("en", first["page"]))
        assert f"○ {len(same_page) - 1} of {len(same_page)} examples passed on CPU, 1 changed since (torch 2.15.0)" in line, line
    results._recorded.cache_clear()


def test_the_census_names_the_versions_each_block_passed_on(tmp_path, monkeypatch):
    first = _first_block(sources())
    _runs(tmp_path, monkeypatch, second_failed={(first["page"], first["line"])})
    lines = results.versions_summary()
    assert lines[0].startswith("torch 2.13.0 (2.13.0+cpu, ") and " 0 failed" in lines[0]
    assert lines[1].startswith("torch 2.15.0 (2.15.0+cu132, ") and " 1 failed" in lines[1]
    assert f"  {first['page']}:{first['line']}  2.13.0 passed; 2.15.0 failed" in lines
    results._recorded.cache_clear()


def test_a_collect_only_run_writes_no_census():
    """`pytest --collect-only` collects every block and runs none: it must not
    replace the last run's census (and the committed summary) with empty results."""
    from devguide.pytest_plugin.state import RunState

    state = RunState(collected=set(census.runnable_keys()))
    assert not state.complete_run()
    some = next(iter(census.runnable_keys()))
    state.results[some] = {"status": "passed", "seconds": 0.1}
    assert state.complete_run()


def test_the_other_runs_line_counts_in_english_and_chinese(tmp_path, monkeypatch):
    first = _runs(tmp_path, monkeypatch)
    block = _first_block(first)
    _runs(tmp_path, monkeypatch, second_changed={(block["page"], block["line"])})
    text = validation_page.render("en")
    assert "1 more block changed since that run and is not counted" in text, text
    zh = _first_block(first, "zh")
    _runs(tmp_path, monkeypatch, second_changed={(zh["page"], zh["line"])})
    assert "另有 1 个代码块在那次运行之后改过，不计入" in validation_page.render("zh")
    results._recorded.cache_clear()
