"""The pages run with pytest-codeblocks' own plugin too, without this harness.

``pytest -o addopts="" --codeblocks docs/…`` is the design's extractor on its
own: no sandbox, no include expansion (pages whose blocks include a snippet are
left out here), no marks but what the root ``conftest.py`` adds (CUDA blocks
skip without CUDA). One page per section, in a scratch working directory (the
blocks write files) with the venv first on PATH (bash blocks call ``python``).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from devguide import config

ONE_PAGE_PER_SECTION = [
    "getting-started/index.md",
    "devices/other-accelerators.md",  # also: the root conftest.py skips mps/xpu blocks
    "async/sync-points.md",
    "training/autograd.md",
    "distributed/dp-vs-ddp.md",
    "reference/glossary.md",
]


def test_one_page_per_section_runs_with_the_plain_pytest_codeblocks_plugin(tmp_path):
    """All six pages in one plain run (one torch import, not six)."""
    shutil.copytree(config.REPO / "snippets", tmp_path / "snippets")
    paths = [str(config.DOCS / config.DEFAULT_LANGUAGE / page) for page in ONE_PAGE_PER_SECTION]
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-o", "addopts=", "-p", "no:devguide", "-p", "no:cacheprovider", "-q", "-rfs",
         f"--rootdir={config.REPO}", "--codeblocks", *paths],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.splitlines()[-1]
    out = done.stdout
    assert "devices/other-accelerators.md: needs an Apple-silicon MPS device" in out, out[-4000:]
    assert "devices/other-accelerators.md: needs an Intel GPU (XPU)" in out, out[-4000:]
