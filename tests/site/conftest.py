"""Fixtures of the site tier: the built site, a local server, Chromium.

Visible only to tests/site/. pytest-xdist hands this whole tier to one worker
(devguide.plugin's scheduler), so the site is built once per run, beside the
blocks that the other workers run.
"""

import os
import re
import subprocess
from urllib.parse import urlsplit

import pytest

from devguide import axe, config, site
from devguide.browser import HELP, find_chromium

OFFLINE_LOG = config.BUILD / "artifacts" / "offline-build.log"
_offline: list[subprocess.Popen] = []


@pytest.fixture(scope="session")
def built_site(request):
    """The site built with --strict. It runs beside the blocks (pytest-xdist), so
    its validation report shows the last complete run's census (build/validation.json),
    which this run rewrites at its end; `make build` or `make serve` shows it.

    If this session also tests the offline build, that build starts now, in the
    background (after this one: it reuses the notebooks this one executed)."""
    done = site.build_site()
    # mkdocs' own warnings and errors ("WARNING -  …"); a notebook kernel's log lines
    # (e.g. "ERROR:tornado.general:…" from jupyter's messaging) are not the build's
    problems = [line for line in done.stderr.splitlines() if re.match(r"(WARNING|ERROR)\s+-  ", line)]
    assert done.returncode == 0 and not problems, (
        "mkdocs build --strict failed:\n" + "\n".join(problems or done.stderr.splitlines()[-30:])
    )
    if any("offline_site" in getattr(item, "fixturenames", ()) for item in request.session.items):
        offline_build()
    return config.SITE


def offline_build() -> subprocess.Popen:
    """`make offline`, started once per session, its output in OFFLINE_LOG (a file,
    not a pipe nobody reads until the offline tests: a full pipe would stall it)."""
    if not _offline:
        OFFLINE_LOG.parent.mkdir(parents=True, exist_ok=True)
        with open(OFFLINE_LOG, "w", encoding="utf-8") as log:
            _offline.append(subprocess.Popen(
                ["make", "offline"], cwd=config.REPO, stdout=log, stderr=subprocess.STDOUT,
            ))
    return _offline[0]


@pytest.fixture(scope="session")
def offline_site(built_site):
    build = offline_build()  # started by built_site, after the main build
    build.wait(timeout=900)
    output = OFFLINE_LOG.read_text(encoding="utf-8")
    assert build.returncode == 0, f"`make offline` failed (log: {config.rel(OFFLINE_LOG)}):\n{output[-6000:]}"
    assert (config.BUILD / "artifacts" / "pytorch-device-guide-offline.zip").exists()
    return config.BUILD / "offline"


@pytest.fixture(scope="session")
def site_check(built_site):
    """(broken links, external requests) of the built site: one pass over its HTML
    (the print pages make it about 2.5 s) for the tests that read either."""
    return site.check_site(built_site)


@pytest.fixture(scope="session")
def server(built_site):
    with site.serve(built_site) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    if not find_chromium():
        message = HELP.format(why="none found by devguide.browser")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = site.launch(p)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, server):
    """A page at 1280 × 900 with a Chinese locale. Every request it makes is
    recorded: all must go to the local server, and none may fail (a 404 is a
    file the site asks for and does not have)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page = context.new_page()
    page.requests = []
    page.on("request", lambda r: page.requests.append(r.url))
    failed = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    yield page
    outside = [u for u in page.requests if urlsplit(u).scheme in ("http", "https") and urlsplit(u).hostname != "127.0.0.1"]
    context.close()
    assert not outside, "requests to other hosts:\n" + "\n".join(outside)
    assert not failed, "requests that failed (the site asks for files it does not have):\n" + "\n".join(failed)


@pytest.fixture(scope="session")
def axe_source():
    """axe-core's script, unpacked from the npm registry by make (build/vendor/)."""
    if not axe.AXE.exists():
        message = f"{config.rel(axe.AXE)} not found: `make axe` (part of make test) unpacks axe-core {axe.VERSION} from the npm registry"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return axe.AXE.read_text(encoding="utf-8")
