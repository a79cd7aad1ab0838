"""Every page's downloaded code runs as a reader runs it (issue 26, item 7).

Each page's ``.py`` and each notebook's jupytext ``.py`` (the code cells of its
``.ipynb``), both languages, taken from the built site, are run top to bottom
with ``python <file>`` in an empty folder of their own, on CPU, by an
interpreter that has only torch, numpy and the packages the file's header names
(``pip install …``): a virtual environment made here that links just those
distributions (and what they require) from this one. The programs the header
lists (``snippets/…``) are fetched from the site into the folder, as the header
tells readers to. A file whose code is the same as another's (the two languages
of a page: only comments differ) runs once; the files run in parallel. Under
``--reuse-unchanged`` (``make test``) a file that passed with the same code, snippets
and environment is not run again; CI and ``make test-all`` run every one.
"""

from __future__ import annotations

import ast
import hashlib
import json
import keyword
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import PackageNotFoundError, distribution
from importlib.util import find_spec
from pathlib import Path

import pytest

from devguide import census, config, downloads, pages
from devguide.blocks import page_blocks

# what a new virtual environment has besides the packages a reader installs
VENV_TOOLS = ("pip", "setuptools")
PIP_INSTALL = re.compile(r"`pip install ([^`]+)`")
# a page's .py: its header ends at the first block ("# %% docs/…"); a notebook's: at its first code cell
FIRST_CELL = re.compile(r"\n# %%(?! \[markdown\])")
SNIPPET = re.compile(r"^#\s+(snippets/[\w./-]+\.py)[:：]", re.M)


def downloaded_sources() -> list[Path]:
    """Every page that offers its code as a download, and every notebook."""
    home = {config.DOCS / lang / "index.md" for lang in config.LANGUAGES}
    found = [p for p in pages.pages() if p not in home and page_blocks(p)]
    return found + list(pages.notebooks())


SOURCES = downloaded_sources()


def served(source: Path) -> str:
    return downloads.site_path(source, ".py")


def header_of(script: str) -> str:
    return FIRST_CELL.split(script, maxsplit=1)[0]


def code_key(script: str) -> str:
    """The code of a download without its header and comments: equal for twins."""
    start = script.find("\n# %% ")
    return ast.dump(ast.parse(script[start:] if start >= 0 else script))


def requirement_names(dist: str) -> set[str]:
    """``dist`` and every distribution it requires (markers ignored: a superset)."""
    seen: set[str] = set()
    todo = [dist]
    while todo:
        name = re.split(r"[<>=!~;\[ (]", todo.pop(), maxsplit=1)[0].strip().lower().replace("_", "-")
        if not name or name in seen:
            continue
        try:
            found = distribution(name)
        except PackageNotFoundError:
            continue
        seen.add(name)
        todo += [r for r in found.requires or [] if "extra ==" not in r]
    return seen


def make_venv(where: Path, packages: tuple[str, ...]) -> Path:
    """A virtual environment at ``where`` whose site-packages links only ``packages``
    and their requirements from this interpreter's: what a reader gets from
    ``pip install torch numpy <packages>``. Returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    target = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                 capture_output=True, text=True, check=True).stdout.strip())
    source = Path(sysconfig.get_paths()["purelib"])
    wanted = set().union(*(requirement_names(p) for p in ("torch", "numpy", *VENV_TOOLS, *packages)))
    for name in sorted(wanted):
        for file in distribution(name).files or []:
            if not file.parts or file.parts[0] == "..":
                continue
            top = file.parts[0]
            if (source / top).exists() and not (target / top).exists():
                (target / top).symlink_to(source / top)
    return python


def run_download(site: Path, rel: str, work: Path, venvs: dict) -> subprocess.CompletedProcess:
    script = (site / rel).read_text(encoding="utf-8")
    header = header_of(script)
    folder = work / Path(rel).stem
    folder.mkdir(parents=True)
    (folder / Path(rel).name).write_text(script, encoding="utf-8")
    for snippet in SNIPPET.findall(header):
        (folder / snippet).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(site / snippet, folder / snippet)  # served at the site's root
    packages = tuple(sorted(PIP_INSTALL.search(header).group(1).split())) if PIP_INSTALL.search(header) else ()
    python = venvs[packages]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(CUDA_VISIBLE_DEVICES="", PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([str(python), Path(rel).name], cwd=folder, capture_output=True, text=True,
                          timeout=900, env=env)


@pytest.fixture(scope="module")
def download_runs(built_site, tmp_path_factory, request):
    """{site path: (the file it ran as, its result)} for every download this session
    tests (all, or those selected with -k); twins share a run."""
    selected = [item.callspec.params["source"] for item in request.session.items
                if getattr(item, "originalname", "") == "test_a_download_runs_in_an_empty_folder"]
    scripts = {served(s): (built_site / served(s)).read_text(encoding="utf-8") for s in selected or SOURCES}
    first: dict[str, str] = {}
    for rel, script in scripts.items():
        first.setdefault(code_key(script), rel)
    unique = sorted(set(first.values()))
    work = tmp_path_factory.mktemp("downloads")
    # under --reuse-unchanged (make test), a download that passed with this very file, its snippets and
    # this environment (census.environment_fingerprint: torch, packages, the harness) is not run again;
    # CI and make test-all run every one
    reuse = request.config.getoption("reuse_unchanged")
    keys = {rel: run_key(built_site, scripts[rel]) for rel in unique}
    passed = set(json.loads(PASSED.read_text())) if reuse and PASSED.is_file() else set()
    done = {rel: REUSED for rel in unique if keys[rel] in passed}
    to_run = [rel for rel in unique if rel not in done]
    wanted = set()
    for rel in to_run:
        m = PIP_INSTALL.search(header_of(scripts[rel]))
        wanted.add(tuple(sorted(m.group(1).split())) if m else ())
    venvs = {packages: make_venv(work / f"venv-{n}", packages) for n, packages in enumerate(sorted(wanted))}
    with ThreadPoolExecutor(max(2, min(4, os.cpu_count() or 1))) as pool:
        done |= dict(zip(to_run, pool.map(lambda rel: run_download(built_site, rel, work / "runs", venvs), to_run),
                         strict=True))
    PASSED.parent.mkdir(parents=True, exist_ok=True)
    PASSED.write_text(json.dumps(sorted((passed if reuse else set()) | {
        keys[rel] for rel in unique if done[rel].returncode == 0 and "Traceback" not in done[rel].stderr})))
    return {rel: (first[code_key(script)], done[first[code_key(script)]]) for rel, script in scripts.items()}


PASSED = config.BUILD / "downloads-passed.json"  # run keys of the downloads that ran green
REUSED = subprocess.CompletedProcess([], 0, "", "")  # a pass this run stands on


def run_key(site: Path, script: str) -> str:
    """What a download's run depends on: the file, the snippets its header names, the environment."""
    digest = hashlib.sha256(script.encode())
    for snippet in sorted(SNIPPET.findall(header_of(script))):
        digest.update((site / snippet).read_bytes())
    digest.update(census.environment_fingerprint(()).encode())
    return digest.hexdigest()


@pytest.mark.parametrize("source", SOURCES, ids=config.rel)
def test_a_download_runs_in_an_empty_folder(download_runs, source):
    ran_as, done = download_runs[served(source)]
    assert done.returncode == 0, (
        f"{served(source)} (run as {ran_as}) failed in an empty folder with only torch, numpy and its header's "
        f"packages:\n{done.stderr[-4000:]}"
    )
    assert "Traceback" not in done.stderr, f"{served(source)} (run as {ran_as}):\n{done.stderr[-4000:]}"


def test_the_empty_folder_has_only_what_the_header_names(tmp_path):
    """The test's interpreter really lacks what a header does not name."""
    python = make_venv(tmp_path / "venv", ())
    probe = "import importlib.util as u; print(u.find_spec('sklearn') is None, u.find_spec('torch') is not None)"
    done = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "True"]


@pytest.mark.parametrize("source", SOURCES, ids=config.rel)
def test_a_download_cannot_shadow_a_module(source):
    """Run in its own folder, a file named like a module (``numpy.py``) is what
    ``import numpy`` finds. A name with a "-" is no module name; any other name
    must not be one that Python or this interpreter can import."""
    for suffix in (".py", ".ipynb"):
        stem = downloads.download_name(source, suffix).removesuffix(suffix)
        if stem.isidentifier() and not keyword.iskeyword(stem):
            assert stem not in sys.stdlib_module_names and find_spec(stem) is None, stem
