"""Shared fixtures: the built site (one strict build per test session)."""

import os
import subprocess
import sys

import pytest

from tests import docs_plugin, harness

SITE = harness.REPO / "build" / "site"


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
