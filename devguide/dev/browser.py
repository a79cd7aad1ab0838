"""Find or provide the Chromium that the browser tests drive (``make test`` runs this).

In order: ``PLAYWRIGHT_CHROMIUM``; a Chromium on ``PATH`` (Debian's ``chromium``,
``chromium-browser``, Google Chrome); Playwright's own download. If none is
there, provide one: as root with apt (CI, a fresh container), Debian's
``chromium`` and the CJK font ``fonts-wqy-microhei`` via ``.ci/apt-packages``;
otherwise ``python -m playwright install chromium``. Where neither works, stop
with one message that names the command to run. The browser used is printed once.

    python -m devguide.dev.browser          # find, or install, and print the browser
    python -m devguide.dev.browser --find   # only print what would be used (exit 1: none)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass

from devguide import settings
from devguide.paths import REPO

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


@dataclass
class Plan:
    action: str  # "use" | "apt" | "playwright"
    browser: str | None = None
    command: list[str] | None = None


def playwright_chromium() -> str | None:
    """The Chromium that `playwright install chromium` downloaded, if it did."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    try:
        with sync_playwright() as p:
            path = p.chromium.executable_path
    except Exception:  # noqa: BLE001 - no driver, no browser: nothing found
        return None
    return path if path and os.path.exists(path) else None


def find_chromium(given: Mapping[str, str] | None = None, playwright=playwright_chromium) -> str | None:
    env = os.environ if given is None else given
    path = settings.current(env).chromium
    if path:
        return path if os.path.exists(path) else None
    for name in NAMES:
        found = shutil.which(name, path=env.get("PATH", ""))
        if found:
            return found
    return playwright()


def chromium_identity() -> str:
    """The Chromium a browser test would use, as a reuse key counts it (its real path,
    size and time), or "" where there is none."""
    found = find_chromium()
    if not found:
        return ""
    stat = os.stat(found)
    return f"{os.path.realpath(found)} {stat.st_size} {stat.st_mtime_ns}"


def plan(given: Mapping[str, str] | None = None, is_root: bool | None = None, playwright=playwright_chromium) -> Plan:
    env = os.environ if given is None else given
    found = find_chromium(env, playwright)
    if found:
        return Plan("use", found)
    if is_root is None:
        is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if is_root and shutil.which("apt-get", path=env.get("PATH", "")):
        return Plan("apt", command=["bash", str(REPO / ".ci" / "apt-packages")])
    return Plan("playwright", command=[sys.executable, "-m", "playwright", "install", "chromium"])


HELP = (
    "No Chromium for the browser tests, and it could not be installed here ({why}). "
    "Install one and run make test again: on Debian/Ubuntu `sudo bash .ci/apt-packages` "
    "(Chromium and a CJK font), elsewhere `.venv/bin/python -m playwright install chromium`; "
    "or point PLAYWRIGHT_CHROMIUM at a Chromium or Chrome binary."
)


def version(path: str) -> str:
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    return done.stdout.strip() or "?"


def ensure() -> str:
    """The Chromium to use, installed first if need be; exits with HELP if impossible."""
    step = plan()
    if step.action != "use":
        assert step.command is not None  # an install step has its command
        print(f"no Chromium found: running {' '.join(step.command)}", flush=True)
        done = subprocess.run(step.command)
        found = find_chromium()
        if done.returncode != 0 or not found:
            why = f"`{' '.join(step.command)}` exited with status {done.returncode}"
            sys.exit(HELP.format(why=why))
        step = Plan("use", found)
    assert step.browser is not None  # a "use" step names its browser
    return step.browser


def main(argv: list[str]) -> int:
    if "--find" in argv:
        found = find_chromium()
        print(found or "none")
        return 0 if found else 1
    path = ensure()
    print(f"browser for the site tests: {path} ({version(path)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
