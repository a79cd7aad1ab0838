"""Shared fixtures: the built site (one strict build per test session)."""

import http.server
import os
import shutil
import subprocess
import sys
import threading
from functools import partial

import pytest

from tests import docs_plugin, harness

SITE = harness.REPO / "build" / "site"
CHROMIUM = os.environ.get("PLAYWRIGHT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
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
def built_site():
    """The site built with --strict, after this run's census is written (so the
    validation report shows this run's results when the whole docs tree ran)."""
    if docs_plugin.complete_run():
        docs_plugin.write_validation_json()
    done = build_site()
    problems = [line for line in done.stderr.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert done.returncode == 0 and not problems, (
        "mkdocs build --strict failed:\n" + "\n".join(problems or done.stderr.splitlines()[-30:])
    )
    return SITE


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
        message = f"Chromium not found at {CHROMIUM}: run `sudo bash .ci/apt-packages`"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()
