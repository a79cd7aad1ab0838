"""The newcomer's friction (issue 39, item 9; review 2026-12-06-newcomer-and-hostile-v3,
"Newcomer friction" 2-4): one parity message per page pair, without internal lines and
with the command that fixes it; every heading's anchor explicit; "did you mean" for a
link to a missing anchor; a passing block's output on request.
"""

import shutil

from devguide import paths
from devguide.source import links, parity
from tests.unit import test_isolation as isolation

ZH = """\
# 截断 { #clamping }

## 原地截断 { #clamp-in-place }

'''python
import torch

x = torch.tensor([1.0, 5.0])
print(x.clamp(max=2.0))
'''

<!--pytest-codeblocks:expected-output-->
'''text
tensor([1., 2.])
'''
"""
EN = ZH.replace("# 截断", "# Clamping").replace("## 原地截断", "## Clamp in place")


def _project(tmp_path, zh=ZH, en=EN):
    root = isolation.scratch_project(tmp_path, {"docs/zh/training/clamping.md": zh, "docs/en/training/clamping.md": en})
    (root / "tests/content").mkdir(parents=True)
    shutil.copy(paths.REPO / "tests/content/test_parity.py", root / "tests/content/test_parity.py")
    return root


def _reports(out: str) -> str:
    """The failure reports of a run, without pytest's short summary: with CI set (as .ci/run
    sets it) pytest writes each failure's whole message there once more, untruncated."""
    return out.split(" short test summary info ")[0]


def test_one_wrong_character_gives_one_parity_message_with_the_fix(tmp_path):
    """The review's mistake 2: the same diff three times (the parity test, the zh twin,
    the en twin), each with 'zh: text [] [...]' lines and a pytest traceback."""
    root = _project(tmp_path, en=EN.replace("max=2.0", "max=2.00"))  # same output, one token differs
    rc, out = isolation.run_pytest(root, "docs", "tests/content/test_parity.py")
    assert rc == 1 and "1 failed" in out, out[-3000:]
    assert _reports(out).count("+print(x.clamp(max=2.00))") == 1, out
    assert _reports(out).count("differs from docs/en/training/clamping.md:9") == 1, out
    assert "zh: python" not in out and "['expected-output'" not in out  # no internal lines
    assert "parity --fix --from zh (or --from en)" in out
    assert "devguide page training/clamping" in out
    assert "Traceback" not in out and "devguide/source/parity.py" not in out and "assert not problems" not in out


def test_the_parity_test_alone_reports_without_its_own_lines(tmp_path):
    root = _project(tmp_path, en=EN.replace("max=2.0", "max=2.00"))
    rc, out = isolation.run_pytest(root, "tests/content/test_parity.py")
    assert rc == 1 and _reports(out).count("+print(x.clamp(max=2.00))") == 1, out[-3000:]
    assert "def test_" not in out and "pytest.fail" not in out, out


def test_a_missing_twin_is_one_message(tmp_path):
    root = _project(tmp_path)
    (root / "docs/en/training/clamping.md").unlink()
    rc, out = isolation.run_pytest(root, "docs", "tests/content/test_parity.py")
    assert _reports(out).count("has no twin docs/en/training/clamping.md") == 1, out[-3000:]


def test_an_anchor_missing_in_english_is_named_at_its_line(write_page):
    zh = write_page("# 标题 { #title }\n\n## 小节 { #part }\n", "docs/zh/p.md")
    en = write_page("# Title { #title }\n\n## Part { #section }\n", "docs/en/p.md")
    problems = parity.parity_problems(zh, en)
    assert f"{paths.rel(zh)}:3: heading anchor #part (##) is not in {paths.rel(en)}" in problems
    assert f"{paths.rel(en)}:3: heading anchor #section (##) is not in {paths.rel(zh)}" in problems


def test_a_heading_without_an_explicit_anchor_is_refused(write_page):
    """Friction 4: '## Clamp in place' passed because its slug happened to match the
    Chinese heading's explicit anchor; a later edit of the title broke every link."""
    zh = write_page(ZH, "docs/zh/p.md")
    en = write_page(EN.replace("## Clamp in place { #clamp-in-place }", "## Clamp in place"), "docs/en/p.md")
    problems = "\n".join(parity.parity_problems(zh, en))
    assert (f"{paths.rel(en)}:3: heading without an explicit anchor: write "
            "## Clamp in place { #clamp-in-place }, and the same anchor on its twin's heading") in problems
    assert parity.parity_problems(zh, write_page(EN, "docs/en/p.md")) == []
    # the page's title is left out: links name the page, not its title
    title = write_page(EN.replace("# Clamping { #clamping }", "# Clamping"), "docs/en/p.md")
    assert parity.parity_problems(write_page(ZH.replace("# 截断 { #clamping }", "# Clamping"), "docs/zh/p.md"), title) == []


def test_a_link_to_a_missing_anchor_fails_at_its_line_with_the_nearest_anchors(write_page):
    """The review's mistake 3: the message had the line but no 'did you mean #quick-start?'."""
    write_page("# Losses { #losses }\n\n## Quick start { #quick-start }\n\n## Quick stats { #quick-stats }\n",
               "docs/en/training/losses.md")
    page = write_page("# Clamping { #clamping }\n\n## Start { #start }\n\nSee [the start](losses.md#quick-strat),\n"
                      "[here](#strat) and [there](losses.md#zzz).\n", "docs/en/training/clamping.md")
    problems = links.page_problems(page)
    assert problems[0] == (f"{paths.rel(page)}:5: losses.md#quick-strat: no heading with anchor #quick-strat in "
                           f"{paths.rel(page.parent / 'losses.md')}: did you mean #quick-stats or #quick-start?")
    assert problems[1] == f"{paths.rel(page)}:6: no heading with anchor #strat on this page: did you mean #start?"
    assert problems[2].startswith(f"{paths.rel(page)}:6: losses.md#zzz: no heading with anchor #zzz")
    assert problems[2].endswith("no anchor of that page is close; each heading's anchor is its { #anchor }")
    assert len(problems) == 3


def test_a_passing_blocks_output_is_shown_on_request(tmp_path):
    """Friction 1: -rA, -s and -v showed nothing of what a passing block printed."""
    silent = "\n'''python\nx = 1\n'''\n"
    root = _project(tmp_path, zh=ZH + silent, en=EN + silent)
    rc, out = isolation.run_pytest(root, "docs", "--show-output")
    assert rc == 0, out[-3000:]
    shown = out.split("what the passing blocks printed (--show-output): 2 ", 1)[1].splitlines()[1:5]
    assert shown == ["--- docs/zh/training/clamping.md:5 (and its identical twin docs/en/training/clamping.md:5)",
                     "tensor([1., 2.])",
                     "--- docs/zh/training/clamping.md:17 (and its identical twin docs/en/training/clamping.md:17)",
                     "(printed nothing)"], out[-2000:]
    _, plain = isolation.run_pytest(root, "docs")
    assert "what the passing blocks printed" not in plain and "tensor([1., 2.])" not in plain


def test_show_output_is_in_the_help_of_pytest_and_devguide_page():
    import subprocess
    import sys

    pytest_help = subprocess.run([sys.executable, "-m", "pytest", "--help"], capture_output=True, text=True).stdout
    page_help = subprocess.run([sys.executable, "-m", "devguide", "page", "--help"], capture_output=True, text=True).stdout
    assert "--show-output" in pytest_help and "--show-output" in page_help


def test_devguide_page_says_a_parity_problem_once(tmp_path):
    """devguide page printed its parity check's message, then pytest's twin item the same again."""
    import os
    import subprocess
    import sys

    root = _project(tmp_path, en=EN.replace("max=2.0", "max=2.00"))
    done = subprocess.run([sys.executable, "-m", "devguide", "page", "training/clamping"], cwd=root,
                          capture_output=True, text=True, timeout=300, env=dict(os.environ, DEVGUIDE_ROOT=str(root)))
    out = done.stdout + done.stderr
    assert done.returncode == 1 and out.count("+print(x.clamp(max=2.00))") == 1, out[-3000:]
    assert "FAILED parity" in out and "  ok     blocks" in out, out[-3000:]


def test_the_builds_anchor_warning_gets_the_line_and_the_nearest_anchors(write_page, monkeypatch, caplog):
    """mkdocs.yml's validation (anchors: warn, fatal in the strict build) is MkDocs' own
    check; its message names neither the link's line nor an anchor that exists."""
    import logging

    from devguide.mkdocs_plugin.hooks import quiet

    write_page("# Losses { #losses }\n\n## Quick start { #quick-start }\n", "docs/en/training/losses.md")
    page = write_page("# C { #c }\n\nSee [the start](losses.md#quick-strat).\n", "docs/en/training/clamping.md")
    monkeypatch.setattr(paths, "DOCS", page.parents[2])
    quiet.quiet_third_parties()
    mkdocs_says = ("Doc file 'en/training/clamping.md' contains a link 'losses.md#quick-strat', but the doc "
                   "'en/training/losses.md' does not contain an anchor '#quick-strat'.")
    with caplog.at_level(logging.INFO, logger="mkdocs.structure.pages"):
        logging.getLogger("mkdocs.structure.pages").warning(mkdocs_says)
    (record,) = [r for r in caplog.records if r.name == "mkdocs.structure.pages"]
    assert record.levelno == logging.WARNING  # still counted by the strict build
    assert record.getMessage().startswith(mkdocs_says)
    assert f"{paths.rel(page)}:3: losses.md#quick-strat: no heading with anchor #quick-strat" in record.getMessage()
    assert record.getMessage().endswith("did you mean #quick-start?")
