"""Fixtures of the site tier: the built site, a local server, Chromium.

Visible only to tests/site/. pytest-xdist hands this tier to the workers in a
few units (devguide.pytest_plugin's scheduler); the site is built once per run, by the
first worker that needs it, beside the blocks that the other workers run.
"""

import contextlib
import json
import os
import re
import subprocess
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from filelock import FileLock

from devguide import paths
from devguide.dev import axe
from devguide.dev import site_check as site_checks
from devguide.dev.browser import HELP, find_chromium
from devguide.pytest_plugin import reuse

OFFLINE_LOG = paths.BUILD / "artifacts" / "offline-build.log"
BUILD_LOG = paths.BUILD / "artifacts" / "site-build.log"  # a failed build's problems


def _shared(request, tmp_path_factory) -> Path:
    """A folder of this session that every pytest-xdist worker sees (the parent of
    the workers' base temporary folders; the base folder itself without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if hasattr(request.config, "workerinput") else base


@pytest.fixture(scope="session")
def built_site(request, tmp_path_factory):
    """The site built with --strict, once per session. The site tier is split over
    the pytest-xdist workers (devguide.pytest_plugin): the first worker that needs the site
    builds it while holding a file lock, the others wait for that build and read
    its result (pytest-xdist's documented way to run a session fixture once). It
    runs beside the blocks, so its validation report shows the last complete run's
    census (build/validation.json), which this run rewrites at its end; `make
    build` or `make serve` shows it.

    If this session also tests the offline build, the builder starts that build
    now, in the background (after this one: it reuses the notebooks this one executed)."""
    shared = _shared(request, tmp_path_factory)
    stamp = shared / "site-build.json"
    with FileLock(shared / "site-build.lock"):
        if not stamp.exists():
            try:
                done = site_checks.build_site()
            except Exception as exc:  # noqa: BLE001 - e.g. the build's time limit: the others must not build again
                ok, log = False, f"{type(exc).__name__}: {exc}"
            else:
                # mkdocs' own warnings and errors ("WARNING -  …"); a notebook kernel's log lines
                # (e.g. "ERROR:tornado.general:…" from jupyter's messaging) are not the build's
                problems = [line for line in done.stderr.splitlines() if re.match(r"(WARNING|ERROR)\s+-  ", line)]
                ok = done.returncode == 0 and not problems
                log = "\n".join(problems or done.stderr.splitlines()[-30:])
            if ok and any("offline_site" in getattr(item, "fixturenames", ()) and reuse.will_run(item)
                          for item in request.session.items):
                _start_offline_build(shared)
            stamp.write_text(json.dumps({"ok": ok, "log": log}), encoding="utf-8")
        result = json.loads(stamp.read_text(encoding="utf-8"))
    if not result["ok"]:
        # every site test errs on it (pytest repeats a session fixture's error for each):
        # a few lines each time, the whole log in one file
        BUILD_LOG.parent.mkdir(parents=True, exist_ok=True)
        BUILD_LOG.write_text(result["log"] + "\n", encoding="utf-8")
        lines = result["log"].splitlines()
        more = f"\n… {len(lines) - 5} more lines" if len(lines) > 5 else ""
        pytest.fail(f"mkdocs build --strict failed (the whole log: {paths.rel(BUILD_LOG)}):\n"
                    + "\n".join(lines[:5]) + more, pytrace=False)
    return paths.SITE


def _start_offline_build(shared: Path) -> None:
    """`make offline` in the background, once per session: its output goes to
    OFFLINE_LOG and its exit status to a file the offline tests of any worker wait for."""
    OFFLINE_LOG.parent.mkdir(parents=True, exist_ok=True)
    subprocess.Popen(
        ["bash", "-c", 'make offline >"$1" 2>&1; echo $? >"$2.tmp" && mv "$2.tmp" "$2"', "offline",
         str(OFFLINE_LOG), str(shared / "offline-build.status")],
        cwd=paths.REPO,  # in pytest's process group: Ctrl-C stops it too
    )
    (shared / "offline-build.started").touch()


@pytest.fixture(scope="session")
def offline_site(built_site, request, tmp_path_factory):
    shared = _shared(request, tmp_path_factory)
    with FileLock(shared / "site-build.lock"):
        if not (shared / "offline-build.started").exists():
            _start_offline_build(shared)
    status = shared / "offline-build.status"
    deadline = time.monotonic() + 900
    while not status.exists():
        assert time.monotonic() < deadline, f"`make offline` did not finish in 900 s (log: {paths.rel(OFFLINE_LOG)})"
        time.sleep(0.2)
    output = OFFLINE_LOG.read_text(encoding="utf-8")
    assert status.read_text().strip() == "0", f"`make offline` failed (log: {paths.rel(OFFLINE_LOG)}):\n{output[-6000:]}"
    assert (paths.BUILD / "artifacts" / "pytorch-device-guide-offline.zip").exists()
    return paths.BUILD / "offline"


@pytest.fixture(scope="session")
def site_check(built_site):
    """(broken links, external requests) of the built site: one pass over its HTML
    (the print pages make it about 2.5 s) for the tests that read either."""
    return site_checks.check_site(built_site)


@pytest.fixture(scope="session")
def server(built_site):
    with site_checks.serve(built_site) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    if not find_chromium():
        message = HELP.format(why="none found by devguide.dev.browser")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = site_checks.launch(p)
        yield chromium
        chromium.close()


class SharedTab:
    """The browser tests' page: one Chromium tab for all of them, reset before each.

    A new browser context (or tab) per test starts a renderer process: ~1 s of CPU
    each on a 2-core machine, about half of what a browser test costs. So the tests
    share one tab, reset after each test to what a new context would give: no
    listeners or routes of the test before, about:blank, the mouse in the corner
    (a hover must not carry over), no cookies, local or session storage, IndexedDB
    or cache storage of the site, an empty HTTP cache (the first-load tests count
    bytes), the default viewport and colour scheme. If the reset fails (a crashed
    tab), the tab is replaced by a new context's. Tests that need a context of their
    own (a route over several pages, other permissions) still make one. Everything
    else is the Playwright ``Page``."""

    def __init__(self, browser, server: str):
        self._browser, self._server = browser, server
        self._page = None
        self._renew()

    def _renew(self) -> None:
        if self._page is not None:
            with contextlib.suppress(Exception):
                self._page.context.close()
        context = self._browser.new_context(viewport=VIEWPORT, locale="zh-CN")
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=self._server)
        self._page = context.new_page()
        self._cdp = context.new_cdp_session(self._page)
        self._listeners: list = []
        self.requests: list[str] = []

    def on(self, event, handler):
        self._listeners.append((event, handler))
        self._page.on(event, handler)

    def __getattr__(self, name):
        return getattr(self._page, name)

    def close(self) -> None:
        self._page.context.close()

    def reset(self) -> None:
        try:
            self._reset()
        except Exception:  # noqa: BLE001 - a crashed or hung tab: start from a new context
            self._renew()

    def _reset(self) -> None:
        page = self._page
        for event, handler in self._listeners:
            page.remove_listener(event, handler)
        self._listeners.clear()
        page.unroute_all(behavior="ignoreErrors")
        if page.url.startswith(self._server):
            page.evaluate("() => sessionStorage.clear()")  # per tab: the origin's data below does not hold it
        page.goto("about:blank")
        page.mouse.move(0, 0)
        self._cdp.send("Storage.clearDataForOrigin", {"origin": self._server, "storageTypes": "all"})
        self._cdp.send("Network.clearBrowserCache")
        page.context.clear_cookies()
        page.set_viewport_size(VIEWPORT)
        page.emulate_media(color_scheme="light", reduced_motion="no-preference")
        self.requests = []


VIEWPORT = {"width": 1280, "height": 900}


@pytest.fixture(scope="session")
def shared_tab(browser, server):
    tab = SharedTab(browser, server)
    yield tab
    tab.close()


@pytest.fixture
def page(shared_tab, server):
    """A page at 1280 × 900 with a Chinese locale (the shared tab: new, or reset
    after the test before). Every request it makes is recorded: all must go to the
    local server, and none may fail (a 404 is a file the site asks for and does not have)."""
    page = shared_tab
    failed = []
    page.on("request", lambda r: page.requests.append(r.url))
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    yield page
    outside = [u for u in page.requests if urlsplit(u).scheme in ("http", "https") and urlsplit(u).hostname != "127.0.0.1"]
    try:
        assert not outside, "requests to other hosts:\n" + "\n".join(outside)
        assert not failed, "requests that failed (the site asks for files it does not have):\n" + "\n".join(failed)
    finally:
        page.reset()


@pytest.fixture(scope="session")
def axe_source():
    """axe-core's script, unpacked from the npm registry by make (build/vendor/)."""
    if not axe.AXE.exists():
        message = f"{paths.rel(axe.AXE)} not found: `make axe` (part of make test) unpacks axe-core {axe.VERSION} from the npm registry"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return axe.AXE.read_text(encoding="utf-8")
