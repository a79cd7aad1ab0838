"""Every page's downloaded code runs as a reader runs it (issue 26, item 7).

Each page's ``.py`` and each notebook's jupytext ``.py`` (the code cells of its
``.ipynb``), both languages, taken from the built site, are run top to bottom
with ``python <file>`` in an empty folder of their own, confined as a block is (it writes only
beneath that folder, its HOME and TMPDIR, with a block's memory limit: ``confined``), on CPU, by an
interpreter that has only torch, numpy and the packages the file's header names
(``pip install …``): a virtual environment made here that links just those
distributions (and what they require) from this one. The folder holds nothing
but the file: the programs under ``snippets/`` that a page runs travel inside
its download and are written out by its first run (review 2026-12-06, problem 3:
two downloads failed with a bare CalledProcessError without them). A file whose code is the same as another's (the two languages
of a page: only comments differ) runs once; the files run in parallel. A run
still going after ``DOWNLOAD_TIMEOUT`` is stopped (its stack printed), then run once
more: a second hang fails that file's test, naming the block it hung in. Under
``--reuse-unchanged`` (``make test``) a file that passed with the same code, snippets
and environment is not run again; CI and ``make test-all`` run every one.
"""

from __future__ import annotations

import hashlib
import json
import keyword
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import PackageNotFoundError, distribution
from importlib.util import find_spec
from pathlib import Path

import pytest

from devguide import paths
from devguide.census import file as census
from devguide.mkdocs_plugin.reader import downloads
from devguide.run import sandbox
from devguide.source import comments, fences
from devguide.source.blocks import page_blocks

# what a new virtual environment has besides the packages a reader installs
VENV_TOOLS = ("pip", "setuptools")
PIP_INSTALL = re.compile(r"`pip install ([^`]+)`")
# a page's .py: its header ends at the first block ("# %% docs/…"); a notebook's: at its first code cell
FIRST_CELL = re.compile(r"\n# %%(?! \[markdown\])")


def downloaded_sources() -> list[Path]:
    """Every page that offers its code as a download, and every notebook."""
    home = {paths.DOCS / lang / "index.md" for lang in paths.LANGUAGES}
    found = [p for p in fences.pages() if p not in home and page_blocks(p)]
    return found + list(fences.notebooks())


SOURCES = downloaded_sources()


def served(source: Path) -> str:
    return downloads.site_path(source, ".py")


def header_of(script: str) -> str:
    return FIRST_CELL.split(script, maxsplit=1)[0]


def code_key(script: str) -> str:
    """The code of a download without its header, its comments and its closing line
    (done: …, in the page's language): equal for twins. Comments are those the census
    leaves out of a block's identity (``comments.without_comments``), the comments of a
    script a block holds as text included: eleven pairs of twins whose only difference
    was such a comment, the slowest pages among them, ran twice."""
    script = re.sub(r"\nprint\([^\n]*\)\s*$", "\n", script)
    start = script.find("\n# %% ")
    return repr(comments.without_comments(script[start:] if start >= 0 else script, "python"))


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
    """Run a download; one that hangs is stopped and run once more in a new folder. A run
    that passes only the second time passes, and carries the first one's stack in
    ``first_hang`` (the test warns with it). The distributed error page's download hung
    once on CI (its 900 s limit then failed every test of this module); 35 runs here, alone
    and three at once on two busy cores, took 7-22 s each."""
    done = run_once(site, rel, work / "runs", venvs)
    if not getattr(done, "hung", False):
        return done
    again = run_once(site, rel, work / "rerun", venvs)
    again.first_hang = done.stderr[-6000:]
    return again


def run_once(site: Path, rel: str, work: Path, venvs: dict) -> subprocess.CompletedProcess:
    script = (site / rel).read_text(encoding="utf-8")
    header = header_of(script)
    # one folder per served file: the two languages' downloads share their file name
    folder = work / rel.removesuffix(".py").replace("/", "__")
    folder.mkdir(parents=True)
    (folder / Path(rel).name).write_text(script, encoding="utf-8")  # and nothing else: it runs alone
    packages = tuple(sorted(PIP_INSTALL.search(header).group(1).split())) if PIP_INSTALL.search(header) else ()
    python = venvs[packages]
    # a reader's fresh shell, as blocks get it (sandbox.shell_env), not this machine's other
    # variables (a CI's own, pytest's); a HOME and TMPDIR of its own, so downloads running at once share no cache.
    # TMPDIR is short: multiprocessing puts AF_UNIX sockets there (108 bytes at most), and DataLoader workers
    # that failed on a TMPDIR under pytest's tmp_path ("AF_UNIX path too long") left their loader waiting
    env = {k: v for k, v in sandbox.shell_env().items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    home = work / f"{folder.name}.home"
    home.mkdir()
    temp = tempfile.mkdtemp(prefix="devguide-dl-")
    env.update(HOME=str(home), TMPDIR=temp)
    env.update(CUDA_VISIBLE_DEVICES="", PYTHONDONTWRITEBYTECODE="1", PYTHONUNBUFFERED="1")  # output up to a hang
    # several downloads run at once beside the pytest workers: each gets its share of the cores, as blocks do
    # (sandbox.thread_share). Without it, data-loading's 'wait > step' failed in a fresh clone's CI run:
    # OpenMP's spinning threads made its four small steps slower than the waits for 32 samples of 10 ms
    if "OMP_NUM_THREADS" not in env:
        env["OMP_NUM_THREADS"] = str(max(1, sandbox.cores() // DOWNLOADS_AT_ONCE))
    # -X faulthandler: a run that hangs is stopped with SIGABRT, and prints where each thread was
    command = confined([folder, home, Path(temp)], [str(python), "-X", "faulthandler", Path(rel).name])
    process = subprocess.Popen(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env, start_new_session=True)
    try:
        out, err = process.communicate(timeout=DOWNLOAD_TIMEOUT)
    except subprocess.TimeoutExpired:
        out, err = stop_hung(process)
        hung = subprocess.CompletedProcess(command, process.returncode, out, err + hung_note(rel, script, err))
        hung.hung = True
        return hung
    finally:  # what the run left behind in its session (a server, a worker) is stopped too
        kill_session(process, signal.SIGKILL)
        shutil.rmtree(temp, ignore_errors=True)
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def confined(writable: list[Path], command: list[str]) -> list[str]:
    """``command`` under a block's confinement (issue 39, H18): it and what it starts write only
    beneath ``writable`` (Landlock, where the kernel has it), with a block's memory limit (each
    process, and all of them together) and a block folder's disk limit."""
    memory = sandbox.memory_limit()
    return [sys.executable, "-m", "devguide.run.confine", *(f"--write={w}" for w in writable),
            *([f"--memory={memory}"] if memory else []), f"--disk={sandbox.disk_limit()}", "--", *command]


DOWNLOADS_AT_ONCE = max(2, min(4, sandbox.cores()))
DOWNLOAD_TIMEOUT = 300  # seconds; the slowest download takes 28 s alone on a 2-core machine


def kill_session(process: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(process.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def stop_hung(process: subprocess.Popen) -> tuple[str, str]:
    """SIGABRT to the download's process (faulthandler dumps its threads' stacks; its children, sent
    none, do not mix theirs in), then SIGKILL to its whole session: the output so far."""
    process.send_signal(signal.SIGABRT)
    try:
        return process.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        kill_session(process, signal.SIGKILL)
        return process.communicate()


def hung_note(rel: str, script: str, err: str) -> str:
    """Which block a hung download was running: the last frame of its own file in the
    main thread's stack ("Current thread"), mapped to the ``# %% docs/…`` line above it."""
    name = Path(rel).name
    start = err.rfind("Current thread")
    stack = err[start:].split("\n\n", 1)[0] if start >= 0 else ""
    # most recent call first: the file's outermost frame (its module level) is its last one
    lines = [int(n) for n in re.findall(rf'File "[^"]*{re.escape(name)}", line (\d+)', stack)]
    where = "a place its stack does not show (see above)"
    if lines:
        blocks = [text[5:].split(" · ")[0] for n, text in enumerate(script.splitlines(), 1)
                  if text.startswith("# %% ") and n <= lines[-1]]
        where = f"line {lines[-1]} of the file, in the block {blocks[-1] if blocks else '(before the first block)'}"
    return (f"\n{rel} did not end within {DOWNLOAD_TIMEOUT} s and was stopped (SIGABRT, then SIGKILL): it was at "
            f"{where}. Run it yourself with `python -X faulthandler {name}` in an empty folder; a block that "
            "waits on the network or on another process needs a timeout of its own.\n")


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
    # under --reuse-unchanged (make test), a download that passed with this very file (its snippets inside) and
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
    with ThreadPoolExecutor(DOWNLOADS_AT_ONCE) as pool:
        done |= dict(zip(to_run, pool.map(lambda rel: run_download(built_site, rel, work / "runs", venvs), to_run),
                         strict=True))
    PASSED.parent.mkdir(parents=True, exist_ok=True)
    PASSED.write_text(json.dumps(sorted((passed if reuse else set()) | {
        keys[rel] for rel in unique if done[rel].returncode == 0 and "Traceback" not in done[rel].stderr})))
    return {rel: (first[code_key(script)], done[first[code_key(script)]]) for rel, script in scripts.items()}


PASSED = paths.BUILD / "downloads-passed.json"  # run keys of the downloads that ran green
REUSED = subprocess.CompletedProcess([], 0, "", "")  # a pass this run stands on


def run_key(site: Path, script: str) -> str:
    """What a download's run depends on: the file (the programs it runs are inside it), the environment."""
    digest = hashlib.sha256(script.encode())
    digest.update(census.environment_fingerprint(()).encode())
    return digest.hexdigest()


@pytest.mark.parametrize("source", SOURCES, ids=paths.rel)
def test_a_download_runs_in_an_empty_folder(download_runs, source):
    ran_as, done = download_runs[served(source)]
    if getattr(done, "first_hang", None):
        warnings.warn(f"{served(source)} (run as {ran_as}) hung once and passed when run again; the first run:\n"
                      f"{done.first_hang}", stacklevel=1)
    assert done.returncode == 0, (
        f"{served(source)} (run as {ran_as}) failed in an empty folder with only torch, numpy and its header's "
        f"packages:\n{done.stderr[-4000:]}"
    )
    assert "Traceback" not in done.stderr, f"{served(source)} (run as {ran_as}):\n{done.stderr[-4000:]}"


@pytest.mark.named_pages
def test_the_empty_folder_has_only_what_the_header_names(tmp_path):
    """The test's interpreter really lacks what a header does not name."""
    python = make_venv(tmp_path / "venv", ())
    probe = "import importlib.util as u; print(u.find_spec('sklearn') is None, u.find_spec('torch') is not None)"
    done = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "True"]


@pytest.mark.parametrize("source", SOURCES, ids=paths.rel)
def test_a_download_cannot_shadow_a_module(source):
    """Run in its own folder, a file named like a module (``numpy.py``) is what
    ``import numpy`` finds. A name with a "-" is no module name; any other name
    must not be one that Python or this interpreter can import."""
    for suffix in (".py", ".ipynb"):
        stem = downloads.download_name(source, suffix).removesuffix(suffix)
        if stem.isidentifier() and not keyword.iskeyword(stem):
            assert stem not in sys.stdlib_module_names and find_spec(stem) is None, stem


def serve(site: Path, rel: str, script: str) -> None:
    """A download of a test's own, at ``rel`` under a site folder."""
    (site / rel).parent.mkdir(parents=True)
    (site / rel).write_text(script, encoding="utf-8")


@pytest.mark.named_pages
def test_a_hung_download_is_stopped_and_names_its_block(tmp_path, monkeypatch):
    """A download that never ends fails its own test (not the whole module), after
    DOWNLOAD_TIMEOUT and one more try, with the block it was running and what to do."""
    rel = "en/page/page-hangs.py"
    script = ("# A page\n# It needs only torch and numpy.\n\n\n"
              "# %% docs/en/page.md:5\nprint('first block')\n\n\n"
              "# %% docs/en/page.md:12 · a block\nimport time\n\n\ndef wait():\n    time.sleep(600)\n\n\nwait()\n")
    serve(tmp_path / "site", rel, script)
    monkeypatch.setattr(sys.modules[__name__], "DOWNLOAD_TIMEOUT", 3)
    started = time.monotonic()
    done = run_download(tmp_path / "site", rel, tmp_path, {(): Path(sys.executable)})
    assert time.monotonic() - started < 60
    assert done.returncode != 0 and done.stdout == "first block\n"
    assert "did not end within 3 s" in done.stderr
    assert "line 17 of the file, in the block docs/en/page.md:12" in done.stderr, done.stderr


@pytest.mark.named_pages
def test_a_download_that_hangs_once_passes_with_the_first_stack(tmp_path, monkeypatch):
    """A hang that does not come back: the second run's result, and the first run's note."""
    mark = tmp_path / "ran-once"
    rel = "en/page/page-once.py"
    script = ("# A page\n\n\n# %% docs/en/page.md:5\nimport pathlib\nimport time\n\n"
              f"mark = pathlib.Path({str(mark)!r})\n"
              "if not mark.exists():\n    mark.touch()\n    time.sleep(600)\nprint('done')\n")
    serve(tmp_path / "site", rel, script)
    monkeypatch.setattr(sys.modules[__name__], "DOWNLOAD_TIMEOUT", 3)
    # the two runs have folders of their own: the mark they share is written beneath tmp_path
    real = confined
    monkeypatch.setattr(sys.modules[__name__], "confined", lambda writable, command: real([*writable, tmp_path], command))
    done = run_download(tmp_path / "site", rel, tmp_path, {(): Path(sys.executable)})
    assert done.returncode == 0 and done.stdout == "done\n"
    assert "in the block docs/en/page.md:5" in done.first_hang


@pytest.mark.skipif(not sandbox.landlock_abi(), reason="needs Landlock (Linux 5.13+, and no NVIDIA driver): the "
                    "confinement it checks is applied only where the kernel has it")
@pytest.mark.named_pages
def test_a_download_writes_only_in_its_folder_with_a_blocks_memory_limit(tmp_path):
    """A download runs confined as a block is (issue 39, H18): it may write only beneath its own
    folder, HOME and TMPDIR, and runs with a block's data-segment limit."""
    outside = tmp_path / "outside.txt"
    rel = "en/page/page-escapes.py"
    script = ("# A page\n\n\n# %% docs/en/page.md:5\nimport pathlib\nimport resource\nimport tempfile\n\n"
              "pathlib.Path('inside.txt').write_text('ok')\n"
              "pathlib.Path(tempfile.gettempdir(), 'temp.txt').write_text('ok')\n"
              "pathlib.Path.home().joinpath('home.txt').write_text('ok')\n"
              "print('data limit', resource.getrlimit(resource.RLIMIT_DATA)[0])\n"
              f"pathlib.Path({str(outside)!r}).write_text('escaped')\n")
    serve(tmp_path / "site", rel, script)
    done = run_download(tmp_path / "site", rel, tmp_path, {(): Path(sys.executable)})
    assert done.returncode != 0 and not outside.exists(), (done.stdout, done.stderr)
    assert "PermissionError" in done.stderr and str(outside) in done.stderr, done.stderr
    assert done.stdout == f"data limit {sandbox.memory_limit()}\n", done.stdout


@pytest.mark.named_pages
def test_what_a_download_starts_ends_with_it_and_does_not_hold_its_output(tmp_path, monkeypatch):
    """A helper a download leaves running in a session of its own, holding the download's output
    pipes, is ended when the download ends (issue 39, H18: it outlived the run, which then "hung"
    for DOWNLOAD_TIMEOUT and ran again)."""
    rel = "en/page/page-daemon.py"
    script = ("# A page\n\n\n# %% docs/en/page.md:5\nimport subprocess\nimport sys\n\n"
              "helper = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(321.5)'], "
              "start_new_session=True)\nprint('helper', helper.pid)\n")
    serve(tmp_path / "site", rel, script)
    monkeypatch.setattr(sys.modules[__name__], "DOWNLOAD_TIMEOUT", 10)
    started = time.monotonic()
    done = run_download(tmp_path / "site", rel, tmp_path, {(): Path(sys.executable)})
    assert done.returncode == 0 and not getattr(done, "hung", False), done.stderr
    assert time.monotonic() - started < 60
    helper = int(done.stdout.split()[1])
    with pytest.raises(ProcessLookupError):
        os.kill(helper, 0)


@pytest.mark.named_pages
def test_twins_run_once_when_only_comments_differ_even_in_a_script_they_hold():
    """Two languages' downloads run once when they differ only in comments, a comment
    inside a program a block holds as text included; any other difference runs both."""
    def download(comment: str, code: str = "print('ok')") -> str:
        return (f"# {comment}\n\nimport warnings\nwarnings.warn({comment!r})\n\n\n"
                f"# %% docs/en/page.md:5\nimport subprocess\nimport sys\n\n"
                f'program = """\nimport torch  # {comment}\n{code}\n"""\n'
                "subprocess.run([sys.executable, '-c', program], check=True)  # " + comment + "\n"
                f"print({comment!r})\n")
    assert code_key(download("中文注释")) == code_key(download("an English comment"))
    assert code_key(download("x")) != code_key(download("x", "print('ko')"))
