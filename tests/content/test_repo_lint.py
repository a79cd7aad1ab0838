"""Offline linters: workflows (zizmor, GitHub's schema), ruff on code and examples, mypy on the package."""

import subprocess
import sys
from pathlib import Path

from devguide import paths
from devguide.source import fences, links, lint

BIN = Path(sys.executable).parent
WORKFLOWS = sorted((paths.REPO / ".github" / "workflows").glob("*.yml"))


def run(*cmd, cwd=paths.REPO):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_workflows_pass_zizmor():
    done = run(str(BIN / "zizmor"), "--offline", "--min-severity", "low", *map(str, WORKFLOWS))
    assert done.returncode == 0, done.stdout + done.stderr


def test_workflows_match_githubs_schema():
    done = run(str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *map(str, WORKFLOWS))
    assert done.returncode == 0, done.stdout + done.stderr


def test_harness_snippets_and_notebooks_are_ruff_clean():
    done = run(str(BIN / "ruff"), "check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_package_passes_the_type_checker():
    """mypy on devguide/ with the settings of pyproject.toml ([tool.mypy]): the bodies of
    functions without annotations are checked too. A finding names its file and line."""
    done = run(str(BIN / "mypy"), "--cache-dir", str(paths.REPO / ".cache" / "mypy"), "--no-error-summary")
    assert done.returncode == 0, "mypy (make typecheck):\n" + done.stdout + done.stderr


def test_page_examples_are_ruff_clean():
    """Each python block, written to a file named after its page line, passes ruff."""
    problems = lint.example_problems()
    assert not problems, "ruff on page examples:\n" + "\n".join(problems)


def test_links_in_the_pages_resolve_without_a_build():
    problems = [p for page in fences.pages() for p in links.page_problems(page)]
    assert not problems, "\n".join(problems)


def test_notebooks_link_to_built_pages():
    problems = [p for nb in fences.notebooks() for p in links.notebook_problems(nb)]
    assert not problems, "\n".join(problems)
