"""--reuse-unchanged and the tests outside docs/ (devguide.pytest_plugin.reuse): reported
passed without running only while nothing at all changed since they all passed."""

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
