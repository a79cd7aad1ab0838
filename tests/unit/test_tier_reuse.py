"""--reuse-unchanged and the tests outside docs/ (devguide.pytest_plugin.reuse): reported
passed without running while nothing at all changed since they all passed; after an
edit of pages only, all but those that name only other pages (tests/unit and named_pages
tests by their code, any test by a page parameter) run."""

import subprocess

from tests.unit.test_isolation import both, run_pytest, scratch_project

PAGE = """\
# P

'''python
print("block")
'''
"""


def test_tests_outside_docs_run_again_only_when_something_changed(tmp_path):
    root = scratch_project(tmp_path, both(PAGE))
    ran = tmp_path / "ran.txt"
    (root / "tests").mkdir()
    (root / "tests" / "test_t.py").write_text(
        "from pathlib import Path\n\n\ndef test_t():\n"
        f"    with open({str(ran)!r}, 'a') as f:\n        f.write('x')\n", encoding="utf-8")
    (root / ".gitignore").write_text("build/\n__pycache__/\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)

    # the first run writes the census the site shows, which the key counts: the second
    # run sees it, and so does the third, which runs nothing outside docs/ again
    for expected in ("x", "xx", "xx"):
        code, out = run_pytest(root, "--reuse-unchanged", cache=True)
        assert code == 0 and ran.read_text() == expected, out[-3000:]
    assert "1 tests outside docs/ were not run again" in out

    (root / "NOTES.md").write_text("a new file, not yet committed\n", encoding="utf-8")
    code, out = run_pytest(root, "--reuse-unchanged", cache=True)
    assert code == 0 and ran.read_text() == "xxx", out[-3000:]
    code, out = run_pytest(root, cache=True)  # make test-all, CI: every test runs
    assert code == 0 and ran.read_text() == "xxxx", out[-3000:]
    # the record is in pytest's cache: a run without the cache reuses nothing
    code, out = run_pytest(root, "--reuse-unchanged")
    assert code == 0 and ran.read_text() == "xxxxx", out[-3000:]
    code, out = run_pytest(root, "--reuse-unchanged", cache=True)
    assert code == 0 and ran.read_text() == "xxxxx", out[-3000:]


TESTS = """\
import pytest

ADDRESSES = ["/en/q/", "/q/"]


def log(name):
    with open({ran!r}, "a") as f:
        f.write(name + " ")


def test_every_page():
    log("every")


@pytest.mark.named_pages
def test_names_p_in_its_code():
    log("p-code")
    assert "p/"


@pytest.mark.named_pages
def test_names_q_in_a_constant():
    log("q-constant:" + ADDRESSES[0])


@pytest.mark.parametrize("page", ["docs/en/p.md", "docs/en/q.md"])
def test_per_page(page):
    log(page)
"""


def test_after_a_page_edit_only_what_names_the_page_or_every_page_runs_again(tmp_path):
    """Only pages changed: a test with a page parameter runs for the edited page, a
    test of tests/unit or marked named_pages runs where its code or constants name it,
    any other test runs; anything else changed: all run."""
    root = scratch_project(tmp_path, {**both(PAGE), "docs/zh/q.md": PAGE, "docs/en/q.md": PAGE})
    ran = tmp_path / "ran.txt"
    (root / "tests" / "unit").mkdir(parents=True)
    (root / "tests" / "test_t.py").write_text(TESTS.replace("{ran!r}", repr(str(ran))), encoding="utf-8")
    (root / "tests" / "unit" / "test_u.py").write_text(
        f"PAGE = 'docs/zh/q.md'\n\n\ndef log(name):\n    with open({str(ran)!r}, 'a') as f:\n        f.write(name + ' ')\n\n\n"
        "def test_u():\n    log('unit')\n\n\ndef test_u_on_a_real_page():\n    log('unit:' + PAGE)\n", encoding="utf-8")
    (root / ".gitignore").write_text("build/\n__pycache__/\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)

    def run(*args) -> set[str]:
        ran.write_text("")
        code, out = run_pytest(root, *args, cache=True)
        assert code == 0, out[-3000:]
        return set(ran.read_text().split())

    everything = {"every", "p-code", "q-constant:/en/q/", "docs/en/p.md", "docs/en/q.md", "unit", "unit:docs/zh/q.md"}
    assert run("--reuse-unchanged") == everything
    assert run("--reuse-unchanged") == {"every"}  # the census the first run wrote: the report shows it
    assert run("--reuse-unchanged") == set()
    for lang in ("en", "zh"):
        page = root / "docs" / lang / "p.md"
        page.write_text(page.read_text() + "\nA sentence more.\n", encoding="utf-8")
    assert run("--reuse-unchanged") == {"every", "p-code", "docs/en/p.md"}
    page = root / "docs" / "zh" / "q.md"
    page.write_text(page.read_text() + "\n又一句。\n", encoding="utf-8")
    assert run("--reuse-unchanged") == {"every", "q-constant:/en/q/", "docs/en/q.md", "unit:docs/zh/q.md"}
    (root / "pyproject.toml").write_text((root / "pyproject.toml").read_text() + "\n", encoding="utf-8")
    assert run("--reuse-unchanged") == everything
    (root / "docs" / "en" / "r.md").write_text(PAGE, encoding="utf-8")  # a new page: the navigation of all
    (root / "docs" / "zh" / "r.md").write_text(PAGE, encoding="utf-8")
    assert run("--reuse-unchanged") == everything


def test_a_page_is_named_by_its_source_its_address_or_its_last_part():
    from devguide.pytest_plugin import reuse

    named = reuse.page_pattern({"reference/errors/cuda-runtime"}).search
    assert all(named(t) for t in ('"cuda-runtime/"', "/en/reference/errors/cuda-runtime/#x",
                                  "docs/zh/reference/errors/cuda-runtime.md"))
    assert not any(named(t) for t in ("cuda-runtimes/", "cuda-runtime-x/", "reference/errors/"))
    index = reuse.page_pattern({"reference/errors/index"}).search
    assert index("reference/errors/") and index("reference/errors/index.md") and not index("reference/errors/nccl/")
