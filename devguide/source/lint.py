"""ruff on the pages' python examples, each block written to a file named after its
page line, problems reported at page lines.

    python -m devguide.source.lint [PAGE ...]     # default: every page

``make lint`` and the pre-commit hook run it; ``tests/content`` tests it.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from devguide import paths
from devguide.source import fences
from devguide.source.blocks import Block, page_blocks

RUFF = Path(sys.executable).parent / "ruff"


def example_problems(page_paths: list[Path] | None = None) -> list[str]:
    """``page:line: message`` for each ruff finding in the pages' python blocks."""
    origin: dict[str, Block] = {}
    with tempfile.TemporaryDirectory(prefix="devguide-lint-") as tmp:
        for page in page_paths or fences.pages():
            for block in page_blocks(page):
                if block.language != "python" or all(p != paths.rel(page) for p, _ in block.line_map):
                    continue  # blocks that only include a snippet are linted with snippets/
                name = f"{paths.rel(page).replace('/', '__')}__{block.line}.py"
                (Path(tmp) / name).write_text(block.code, encoding="utf-8")
                origin[name] = block
        if not origin:
            return []
        ruff = str(RUFF) if RUFF.exists() else "ruff"
        done = subprocess.run(
            [ruff, "check", "--no-cache", "--output-format", "concise",
             "--config", str(paths.REPO / "pyproject.toml"), "--extend-ignore", "E402", "."],
            cwd=tmp, capture_output=True, text=True, timeout=300,
        )
    problems = []
    for line in done.stdout.splitlines():
        name, _, rest = line.partition(":")
        linted = origin.get(Path(name).name)
        if linted is None:
            continue
        row, _, message = rest.partition(":")
        at, n = linted.line_map[int(row) - 1]
        problems.append(f"{at}:{n}: {message.split(':', 1)[-1].strip()}")
    if done.returncode and not problems:
        problems.append(done.stdout + done.stderr)
    return problems


def main(argv: list[str]) -> int:
    problems = example_problems([Path(a).resolve() for a in argv] or None)
    print("\n".join(problems) if problems else "page examples are ruff-clean")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
