"""Offline linters: workflows (zizmor, GitHub's schema) and ruff on code and examples."""

import subprocess
import sys
from pathlib import Path

from tests import harness

BIN = Path(sys.executable).parent
WORKFLOWS = sorted((harness.REPO / ".github" / "workflows").glob("*.yml"))


def run(*cmd, cwd=harness.REPO):
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


def test_page_examples_are_ruff_clean(tmp_path):
    """Each python block, written to a file named after its page line, passes ruff."""
    origin = {}
    for page in harness.pages():
        for block in harness.page_blocks(page):
            if block.language != "python" or all(p != harness.rel(page) for p, _ in block.line_map):
                continue  # blocks that only include a snippet are linted with snippets/
            name = f"{harness.rel(page).replace('/', '__')}__{block.line}.py"
            (tmp_path / name).write_text(block.code, encoding="utf-8")
            origin[name] = block
    if not origin:
        return
    done = run(
        str(BIN / "ruff"), "check", "--no-cache", "--output-format", "concise",
        "--config", str(harness.REPO / "pyproject.toml"), "--extend-ignore", "E402", ".",
        cwd=tmp_path,
    )
    problems = []
    for line in done.stdout.splitlines():
        name, _, rest = line.partition(":")
        block = origin.get(Path(name).name)
        if block is None:
            continue
        row, _, message = rest.partition(":")
        page, n = block.line_map[int(row) - 1]
        problems.append(f"{page}:{n}: {message.split(':', 1)[-1].strip()}")
    assert done.returncode == 0 and not problems, "ruff on page examples:\n" + "\n".join(problems or [done.stdout + done.stderr])
