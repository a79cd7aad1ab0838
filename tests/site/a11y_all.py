"""axe-core on every page, light and dark: `make test-a11y` (a few minutes).

Not collected by a plain pytest run (the file name does not match test_*.py);
the normal run checks a sample (test_browser.py)."""

import pytest

from devguide.dev import axe


@pytest.mark.parametrize("path", axe.site_paths())
def test_no_serious_accessibility_problems(page, server, axe_source, path):
    page.goto(server + path)
    problems = axe.axe_violations(page, axe_source)
    assert not problems, f"axe-core on {path}:\n" + "\n".join(problems)
