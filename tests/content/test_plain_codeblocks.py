"""The pages run with pytest-codeblocks' own plugin too, without this harness.

``pytest -o addopts="" --codeblocks docs/…`` is the design's extractor on its
own: no sandbox, no include expansion (pages whose blocks include a snippet are
left out here), no marks but what the root ``conftest.py`` adds (CUDA blocks
skip without CUDA). One page per section, in a scratch working directory (the
blocks write files) with the venv first on PATH (bash blocks call ``python``).

Under ``--reuse-unchanged`` (make test, not CI or make test-all) a pass stands
while nothing it depends on has changed, as a block's does: the six pages and
everything ``devguide.census.file.environment_fingerprint`` hashes (torch and every
installed package, ``snippets/``, ``conftest.py``, the harness, the environment).
It was 10–20 s of every warm run, the same blocks run again.
"""

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from devguide import paths
from devguide.census import file as census

PASSED = paths.BUILD / "plain-codeblocks-passed.txt"  # the key of the last pass

ONE_PAGE_PER_SECTION = [
    "getting-started/index.md",
    "devices/other-accelerators.md",  # also: the root conftest.py skips mps/xpu blocks
    "async/sync-points.md",
    "training/autograd.md",
    "distributed/dp-vs-ddp.md",
    "reference/glossary.md",
]


def reuse_key(files: list[str]) -> str:
    digest = hashlib.sha256(census.environment_fingerprint(()).encode())
    for path in files:
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()


def test_one_page_per_section_runs_with_the_plain_pytest_codeblocks_plugin(tmp_path, request):
    """All six pages in one plain run (one torch import, not six)."""
    files = [str(paths.DOCS / paths.DEFAULT_LANGUAGE / page) for page in ONE_PAGE_PER_SECTION]
    key = reuse_key(files)
    if request.config.getoption("reuse_unchanged") and PASSED.is_file() and PASSED.read_text().strip() == key:
        return  # passed with these pages in this environment: nothing to learn from running it again
    PASSED.unlink(missing_ok=True)
    shutil.copytree(paths.REPO / "snippets", tmp_path / "snippets")
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-o", "addopts=", "-p", "no:devguide", "-p", "no:cacheprovider", "-q", "-rfs",
         f"--rootdir={paths.REPO}", "--codeblocks", *files],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.splitlines()[-1]
    out = done.stdout
    assert "devices/other-accelerators.md: needs an Apple-silicon MPS device" in out, out[-4000:]
    assert "devices/other-accelerators.md: needs an Intel GPU (XPU)" in out, out[-4000:]
    PASSED.parent.mkdir(parents=True, exist_ok=True)
    PASSED.write_text(key + "\n", encoding="utf-8")
