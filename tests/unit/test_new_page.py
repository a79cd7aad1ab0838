"""A contributor's new page passes the strict build before it is committed.

The revision-date plugin (mkdocs-git-revision-date-localized) finds no git log
for an untracked or only staged page; with its own ``strict`` option on it says
so as a WARNING, which ``mkdocs build --strict`` turns into a failed build (78
site tests erred on it). ``mkdocs.yml`` sets that option off: the page gets the
build date, said as INFO. Checked here with the plugin itself, on a planted
repository holding a staged and an untracked page, and the plugin configuration
read from mkdocs.yml (a real strict build of the site with a planted uncommitted
page pair in the nav passed the same way, untracked and staged).
"""

import logging
import subprocess

import pytest
from mkdocs_git_revision_date_localized_plugin.util import Util

from devguide.source import nav

LOGGER = "mkdocs.plugins.mkdocs_git_revision_date_localized_plugin.util"


def plugin_config() -> dict:
    """The plugin's options as mkdocs.yml sets them."""
    (options,) = [p["git-revision-date-localized"] for p in nav.mkdocs_yml()["plugins"]
                  if isinstance(p, dict) and "git-revision-date-localized" in p]
    return options


@pytest.fixture
def repository(tmp_path):
    """A repository with one commit, staged.md (git add) and untracked.md."""
    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@localhost", *args],
                       cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    git("commit", "-q", "--allow-empty", "-m", "first")
    for name in ("staged", "untracked"):
        (tmp_path / f"{name}.md").write_text(f"# {name}\n", encoding="utf-8")
    git("add", "staged.md")
    return tmp_path


def dates(repository, options, caplog) -> list[logging.LogRecord]:
    util = Util(config=options, mkdocs_dir=str(repository))
    with caplog.at_level(logging.INFO, logger=LOGGER):
        for name in ("staged", "untracked"):
            commit, timestamp = util.get_git_commit_timestamp(str(repository / f"{name}.md"))
            assert timestamp > 0 and not commit  # the build date stands in
    return [r for r in caplog.records if r.name == LOGGER]


def test_an_uncommitted_page_is_no_warning(repository, caplog):
    records = dates(repository, plugin_config(), caplog)
    assert [r.levelname for r in records] == ["INFO", "INFO"], [r.getMessage() for r in records]
    assert all("has no git logs, using current timestamp" in r.getMessage() for r in records)


def test_the_plugins_strict_option_would_fail_the_build(repository, caplog):
    """The control: the plugin's default (strict: true) warns, which fails the strict build."""
    records = dates(repository, dict(plugin_config(), strict=True), caplog)
    assert [r.levelname for r in records] == ["WARNING", "WARNING"]
