"""Shared fixtures: the built site (one strict build per test session)."""

import http.server
import os
import subprocess
import sys
import threading
from functools import partial

import pytest

from tests import browser_setup, harness

SITE = harness.REPO / "build" / "site"
CHROMIUM = browser_setup.find_chromium() or "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def build_site(config="mkdocs.yml", site_dir=SITE, cwd=harness.REPO):
    """``mkdocs build --strict``; returns the completed process."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site_dir)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="session")
def built_site(request):
    """The site built with --strict. It runs beside the blocks (pytest-xdist), so
    its validation report shows the last complete run's census (build/validation.json),
    which this run rewrites at its end; `make build` or `make serve` shows it.

    If this session also tests the offline build, that build starts now, in the
    background (after this one: it reuses the notebooks this one executed)."""
    done = build_site()
    problems = [line for line in done.stderr.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert done.returncode == 0 and not problems, (
        "mkdocs build --strict failed:\n" + "\n".join(problems or done.stderr.splitlines()[-30:])
    )
    if any("offline_site" in getattr(item, "fixturenames", ()) for item in request.session.items):
        offline_build()
    return SITE


_offline: list[subprocess.Popen] = []
OFFLINE_LOG = harness.REPO / "build" / "artifacts" / "offline-build.log"


def offline_build() -> subprocess.Popen:
    """`make offline`, started once per session, its output in OFFLINE_LOG (a file,
    not a pipe nobody reads until the offline tests: a full pipe would stall it)."""
    if not _offline:
        OFFLINE_LOG.parent.mkdir(parents=True, exist_ok=True)
        with open(OFFLINE_LOG, "w", encoding="utf-8") as log:
            _offline.append(subprocess.Popen(
                ["make", "offline"], cwd=harness.REPO, stdout=log, stderr=subprocess.STDOUT,
            ))
    return _offline[0]


# Test modules that use the built site: pytest-xdist runs them in one worker
# (one build), while the other workers run the blocks.
SITE_TESTS = ("tests/test_site.py", "tests/test_browser.py", "tests/test_offline.py")


# Pages whose blocks measure time or bandwidth: under pytest-xdist each such page
# runs in one worker, block after block (on a GPU the other workers still run
# small blocks beside them: the timing blocks' margins are made for a busy GPU).
TOGETHER_PAGES = tuple(f"docs/{lang}/async/" for lang in harness.LANGUAGES)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Each block and test is its own unit of work, except the site tests: one
    unit, handed out first (LoadScopeScheduling sends the largest unit first).
    Not --dist loadgroup: with pytest 9.2 it silently stops grouping
    (pytest-dev/pytest-xdist#1386)."""
    if config.getvalue("dist") != "load":
        return None  # another --dist asked for explicitly
    from xdist.scheduler import LoadScopeScheduling

    class SiteTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            if nodeid.startswith(SITE_TESTS):
                return "site"
            if nodeid.startswith(TOGETHER_PAGES):
                return nodeid.split("::")[0]  # a timing page's blocks, one after another
            return nodeid

    return SiteTogether(config, log)


def pytest_collection_modifyitems(config, items):
    strays = sorted({
        item.nodeid.split("::")[0] for item in items
        if "built_site" in getattr(item, "fixturenames", ()) and not item.nodeid.startswith(SITE_TESTS)
    })
    if strays:
        raise pytest.UsageError(
            f"{', '.join(strays)} use the built site: add them to SITE_TESTS in tests/conftest.py, "
            "so that they run in the worker that builds it (a second worker would build over it)"
        )


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def server(built_site):
    handler = partial(QuietHandler, directory=str(built_site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        message = browser_setup.HELP.format(why="none found by tests/browser_setup.py")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()

