"""What a run prints at its end (devguide.pytest_plugin.terminal, devguide.pytest_plugin.state): skipped
tests one line per reason, and the census line on a line of its own. (A real run's
folded skips: tests/unit/test_isolation.py's planted project, run with -rA.)"""

from types import SimpleNamespace

from devguide import paths
from devguide.pytest_plugin import terminal
from devguide.source.marks import MARKS

CUDA = f"{MARKS['cuda']}; compiled and API-checked here"


def skip(path, line, reason):
    return SimpleNamespace(longrepr=(str(paths.REPO / path), line, reason), nodeid=f"{path}::line {line}")


def test_skips_are_one_line_per_reason():
    reports = [skip(f"docs/{lang}/p{n}.md", 10 * n, CUDA) for n in range(1, 55) for lang in ("zh", "en")]
    reports.append(skip("docs/zh/q.md", 7, "installs packages; never run in tests"))
    reports.append(skip("tests/site/test_browser.py", 3, "Skipped: no Chromium"))
    lines = terminal.grouped_skips(reports, paths.REPO)
    assert lines == [
        f"SKIPPED [108] {CUDA} (in 108 files: docs/zh/p1.md:10, docs/en/p1.md:10 and 106 more)",
        "SKIPPED [1] docs/zh/q.md:7: installs packages; never run in tests",
        "SKIPPED [1] tests/site/test_browser.py:3: no Chromium",
    ]


class Reporter:
    """The parts of pytest's TerminalReporter that report_skips uses."""

    def __init__(self, reportchars="fEsxX", foldskipped=True, skipped=()):
        self.reportchars, self.foldskipped, self.startpath = reportchars, foldskipped, paths.REPO
        self.stats = {"skipped": list(skipped)}
        self.lines = []

    def write_sep(self, sep, title, **markup):
        self.lines.append(f"== {title}")

    def write_line(self, line, **markup):
        self.lines.append(line)


def test_pytest_lists_no_skip_the_grouped_lines_name():
    reporter = Reporter(skipped=[skip("docs/zh/a.md", 5, CUDA), skip("docs/zh/b.md", 9, CUDA), skip("docs/zh/b.md", 20, CUDA),
                                 skip("docs/zh/c.md", 3, "excused"), skip("docs/en/c.md", 3, "excused")])
    terminal.report_skips(reporter)
    assert "s" not in reporter.reportchars  # pytest's own short summary does not list them again
    assert reporter.lines[1:] == [
        f"SKIPPED [3] {CUDA} (in 2 files: docs/zh/a.md:5, docs/zh/b.md:9 and 1 more)",
        "SKIPPED [1] docs/zh/c.md:3: excused",  # two places: as pytest says them
        "SKIPPED [1] docs/en/c.md:3: excused",
    ]
    # --no-fold-skipped (pytest's line per skip) and -r without s: left to pytest
    for reporter in (Reporter(foldskipped=False, skipped=[skip("docs/zh/a.md", 5, CUDA)]),
                     Reporter(reportchars="fE", skipped=[skip("docs/zh/a.md", 5, CUDA)])):
        chars = reporter.reportchars
        terminal.report_skips(reporter)
        assert reporter.lines == [] and reporter.reportchars == chars


def test_the_census_line_is_printed_in_the_summary_not_on_the_progress_line():
    """pytest_sessionfinish runs before pytest ends the progress line: what the run
    has to say (census written, outputs updated, summary rewritten) waits for the
    terminal summary, where each note is a line of its own."""
    from devguide.pytest_plugin.state import RunState

    state = RunState(notes=["census with results written to build/validation.json"])
    reporter = Reporter()
    state.pytest_terminal_summary(reporter, 0, SimpleNamespace())
    assert reporter.lines == ["census with results written to build/validation.json"]


def test_devguide_page_says_which_checks_it_ran(monkeypatch):
    """`python -m devguide page` ends with its checks, each ok or FAILED, the nav among
    them; planted: the page pair missing from mkdocs.yml's nav."""
    from devguide import __main__ as cli
    from devguide.source import nav

    pair = cli.page_pair("getting-started/index")
    found = cli._pair_problems(pair)
    assert set(found) == {name for name, _ in cli.PAGE_CHECKS} and not any(found.values()), found
    cfg = nav.mkdocs_yml()
    monkeypatch.setattr(nav, "mkdocs_yml", lambda: dict(cfg, nav=[]))
    found = cli._pair_problems(pair)
    text = cli.checks_done([pair], found, None, 0)
    assert "  FAILED nav      in mkdocs.yml's nav, its title translated in nav_translations (1 problem above)" in text
    assert "  ok     parity   " in text and "  ok     blocks   " in text and "not checked here: the strict site build" in text
