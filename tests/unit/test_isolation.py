"""Blocks that crash, exit, hang, hog memory, write into the repository, leak state
or print undecodable bytes; marks with typos. Each must fail with its page line
and a message that says what happened, later blocks must still run, and the
repository must be unchanged.

The planted pages live in a scratch copy of the project (its tests/, snippets/,
pyproject.toml), run with `pytest -n0` as a contributor runs one page.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from devguide import paths
from devguide.census import file as census
from devguide.run import sandbox, zygote_client
from devguide.source.blocks import page_blocks

F = "`" * 3


def scratch_project(tmp_path, pages: dict[str, str]):
    root = tmp_path / "project"
    root.mkdir()
    shutil.copytree(paths.REPO / "snippets", root / "snippets")
    for name in ("pyproject.toml", "mkdocs.yml", "LICENSE"):
        shutil.copy(paths.REPO / name, root / name)
    for rel, text in pages.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).replace("'''", F), encoding="utf-8")
    return root


def run_pytest(root, *args, env=None, timeout=300, cache=False):
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n0", *([] if cache else ["-p", "no:cacheprovider"]), "-rA", "-q", *args],
        cwd=root, capture_output=True, text=True, timeout=timeout,
        env=dict(os.environ, DEVGUIDE_ROOT=str(root), **(env or {})),
    )
    return done.returncode, done.stdout + done.stderr


def both(text: str) -> dict[str, str]:
    return {"docs/zh/p.md": text, "docs/en/p.md": text}


def failure_of(output: str, line: int) -> str:
    """The failure section of the block at page line ``line``."""
    m = re.search(rf"_+ line {line} _+\n(.*?)(?=\n_+ (?:line \d+|twin) _+\n|\n=+ )", output, re.S)
    assert m, f"no failure for line {line} in:\n{output[-3000:]}"
    return m.group(1)


CRASHES = """\
# P

<!--pytest.mark.timeout(2)-->
'''python
while True:
    pass
'''

'''python
import os

print("about to leave")
os._exit(0)
'''

'''python
import os
import signal

os.kill(os.getpid(), signal.SIGKILL)
'''

'''python
from pathlib import Path

Path("snippets/new.py").write_text("x = 1")  # the block's own copy
Path("snippets/async").rename("snippets/moved")
'''

'''python
data = bytearray(2 * 2**30)
'''

'''python
import os

os.write(1, b"ok \\xff\\xfe")
'''

'''python
print("\\ud800")
'''

'''python
print("x" * 10_000_000)
raise SystemExit(1)
'''

'''python
import subprocess
import sys

subprocess.run([sys.executable, "-c", "print('from a child process')"], check=True)
'''

<!--pytest-codeblocks:expected-output-->
'''text
from a child process
'''

'''bash
sleep 876544 &
echo started
'''

'''python
print("later blocks still run")
'''

<!--pytest-codeblocks:expected-output-->
'''text
later blocks still run
'''

'''python
import os

print("leaving with status 1")
os._exit(1)
'''

<!--pytest.mark.timeout(2)-->
'''bash
echo "waiting for nothing"
sleep 30
'''

'''python
import os
from pathlib import Path

snippets = Path(os.path.realpath("snippets"))
(snippets.parent / "LICENSE").write_text("rewritten through realpath")
(snippets / "async").rename(snippets.parent / "gone")
'''

'''python
print("and the last one too")
'''
"""
STATE = """\
# P

'''python
import builtins
import sys

import numpy as np
import torch

torch.tensor = None
builtins.print = None
sys.path.insert(0, "leaked")
np.set_printoptions(precision=1)
torch.set_num_threads(1)
torch.set_float32_matmul_precision("medium")
'''

'''python
import sys

import numpy as np
import torch

assert torch.tensor is not None and sys.path[0] != "leaked"
assert np.get_printoptions()["precision"] == 8
assert torch.get_float32_matmul_precision() == "highest"
assert torch.get_num_threads() == 2, torch.get_num_threads()  # OMP_NUM_THREADS of the run
print(torch.tensor([1.5]).tolist())
'''

<!--pytest-codeblocks:expected-output-->
'''text
[1.5]
'''
"""
EXIT = "# P\n\n'''python\nimport os\n\nos._exit(0)\n'''\n\n'''python\nprint(1)\n'''\n"
TEMP = """\
# T

'''python
import tempfile
from pathlib import Path

folder = tempfile.mkdtemp()
Path(folder, "x").write_text("ok")
assert "docs-block-" in folder, folder  # the block's own, not the shared /tmp
'''
"""
REPO_WRITE = """\
# P

'''python
from pathlib import Path

Path("{root}/snippets/new.py").write_text("x = 1")
Path("{root}/LICENSE").unlink()
'''
"""
SKIP = "# P\n\n<!--pytest.mark.skip(reason=\"installs a package\")-->\n'''bash\npip install {}\n'''\n"


@pytest.fixture(scope="module")
def planted(tmp_path_factory, device_page):
    """One scratch project with every planted page, run once with pytest -n0
    (each run starts pytest and a zygote: one run instead of six). The MPS/XPU page
    of test_device_marks runs here too (its text: the device_page fixture)."""
    root = scratch_project(tmp_path_factory.mktemp("planted"), {
        **both(CRASHES),
        "docs/zh/state.md": STATE, "docs/en/state.md": STATE,
        "docs/zh/exit.md": EXIT, "docs/en/exit.md": EXIT,
        "docs/zh/skip.md": SKIP.format("x"), "docs/en/skip.md": SKIP.format("y"),
        "docs/zh/alone.md": "# A\n\n'''python\nx = 1\n'''\n",
    })
    for lang in ("zh", "en"):
        (root / "docs" / lang / "tmp.md").write_text(TEMP.replace("'''", F), encoding="utf-8")
        (root / "docs" / lang / "devices.md").write_text(device_page.replace("'''", F), encoding="utf-8")
    repo = REPO_WRITE.format(root=root)
    for lang in ("zh", "en"):
        (root / "docs" / lang / "repo.md").write_text(repo.replace("'''", F), encoding="utf-8")
    license_before = (root / "LICENSE").read_bytes()
    outputs = root / "build" / "artifacts" / "outputs"
    outputs.mkdir(parents=True)
    (outputs / census.output_name("docs/zh/removed.md", 3)).write_text("a block that is gone")
    # STATE sets one thread; the next block must see the run's two again
    rc, out = run_pytest(root, "docs", env={"DOCS_BLOCK_MEMORY_GB": "1", "OMP_NUM_THREADS": "2"})
    return root, rc, out, license_before


def test_crash_exit_hang_memory_and_output_problems_fail_their_block(planted):
    root, rc, out, license_before = planted
    assert rc == 1, out
    assert "limit of 2 s and was stopped" in failure_of(out, 4)
    assert "pytest.mark.timeout(10)" in failure_of(out, 4)
    exited = failure_of(out, 9)
    assert "ended before the block did (exit status 0)" in exited and "about to leave" in exited
    assert "signal 9 (SIGKILL)" in failure_of(out, 16)
    assert "PASSED docs/zh/p.md::line 23" in out
    assert (root / "LICENSE").read_bytes() == license_before
    assert not (root / "snippets" / "new.py").exists() and (root / "snippets" / "async").is_dir()
    if sys.platform.startswith("linux"):  # RLIMIT_DATA holds there; macOS does not enforce it
        assert "at most 1.0 GiB" in failure_of(out, 30)
    assert "not UTF-8 (at byte 3: b'\\xff\\xfe')" in failure_of(out, 34)
    assert "docs/zh/p.md:41  print(\"\\ud800\")" in failure_of(out, 40)
    assert "UnicodeEncodeError" in failure_of(out, 40)
    long = failure_of(out, 44)
    assert "10000001 characters in all" in long and len(long) < 20_000
    assert "failed" not in out.split("line 49")[0].splitlines()[-1]  # the subprocess block passed
    assert "PASSED docs/zh/p.md::line 49" in out
    assert "PASSED docs/zh/p.md::line 61" in out
    assert "PASSED docs/zh/p.md::line 66" in out
    assert subprocess.run(["pgrep", "-f", "sleep 876544"], capture_output=True).returncode == 1
    exited = failure_of(out, 75)
    assert "ended before the block did (exit status 1)" in exited and "leaving with status 1" in exited
    hung = failure_of(out, 83)
    assert "limit of 2 s and was stopped" in hung and "waiting for nothing" in hung
    # realpath("snippets") is the block's own copy: its folder is not the repository
    assert "PASSED docs/zh/p.md::line 88" in out
    assert (root / "LICENSE").read_bytes() == license_before and (root / "snippets" / "async").is_dir()
    assert "PASSED docs/zh/p.md::line 97" in out


def test_outputs_of_blocks_that_no_longer_exist_are_dropped_by_a_complete_run(planted):
    root, _, _, _ = planted
    outputs = root / "build" / "artifacts" / "outputs"
    assert not (outputs / census.output_name("docs/zh/removed.md", 3)).exists()
    assert (outputs / census.output_name("docs/zh/p.md", 66)).read_text().strip() == "later blocks still run"




def test_state_does_not_leak_between_blocks(planted):
    _, _, out, _ = planted
    assert "PASSED docs/zh/state.md::line 3" in out and "PASSED docs/zh/state.md::line 18" in out, out


def test_an_exit_in_one_process_run_is_red(planted):
    """os._exit(0) used to end a -n0 run green with the page's later blocks unrun."""
    _, rc, out, _ = planted
    assert rc == 1 and "FAILED docs/zh/exit.md::line 3" in out and "PASSED docs/zh/exit.md::line 9" in out, out


def test_excused_blocks_are_reported_at_their_line_and_one_page_checks_its_twin(planted):
    _, _, out, _ = planted
    assert "SKIPPED [1] docs/zh/skip.md:4: installs a package" in out
    assert "docs/zh/alone.md:1: has no twin docs/en/alone.md" in out
    assert "docs/zh/skip.md:5 differs from docs/en/skip.md:5" in out  # the line that differs


def test_a_block_cannot_change_the_repository(planted):
    """Landlock stops the write where the kernel has it; elsewhere the guard puts it
    back (the guard itself is tested below, in this process)."""
    root, _, out, license_before = planted
    failure = _repo_failure(out)
    if sandbox.landlock_abi():
        assert "PermissionError" in failure and "may write only inside its own folder" in failure
    else:
        assert "the repository changed while this block ran" in failure
        assert "LICENSE" in failure and "snippets/new.py" in failure
    assert (root / "LICENSE").read_bytes() == license_before
    assert not (root / "snippets" / "new.py").exists()


def _repo_failure(out: str) -> str:
    """The failure section of docs/zh/repo.md's block (other pages fail at line 3 too)."""
    sections = re.findall(r"_+ line 3 _+\n(.*?)(?=\n_+ (?:line \d+|twin) _+\n|\n=+ )", out, re.S)
    found = [s for s in sections if "repo.md" in s]
    assert found and "FAILED docs/zh/repo.md::line 3" in out, out[-3000:]
    return found[0]


def test_a_block_has_a_temporary_folder_of_its_own(planted):
    """The planted project lies in the system's temporary folder, as a clone in /tmp
    does: with Landlock a block could not create anything new there (DataLoader
    workers failed on /tmp/pymp-*); each block's TMPDIR is a folder of its sandbox."""
    _, _, out, _ = planted
    assert "PASSED docs/zh/tmp.md::line 3" in out, out[-3000:]


def test_mps_and_xpu_blocks_are_skipped_counted_and_api_checked_in_a_whole_run(planted):
    """The whole run as a contributor makes it: the CPU block runs, the device blocks
    are skipped with a reason that says no CI machine runs them, the one with a
    misspelt torch name fails at its page line, and the census counts them apart."""
    if paths.device_available("mps") or paths.device_available("xpu"):
        pytest.skip("this machine has an MPS or XPU device: the blocks would run")
    root, rc, out, _ = planted
    assert rc == 1, out[-3000:]
    skipped = "; compiled and API-checked here"
    assert f"SKIPPED [1] docs/zh/devices.md:8: needs an Apple-silicon MPS device: no CI machine runs it{skipped}" in out
    assert f"SKIPPED [1] docs/zh/devices.md:16: needs an Intel GPU (XPU device): no CI machine runs it{skipped}" in out
    assert "docs/zh/devices.md:23: MPS-only block uses names that do not exist in torch" in out
    assert "docs/zh/devices.md:26: torch.mps.synchronise does not exist in torch" in out

    data = json.loads((root / "build" / "validation.json").read_text(encoding="utf-8"))
    assert census.validate(data) is None
    rows = {(f["page"], f["line"]): f for f in data["fences"]}
    for lang in paths.LANGUAGES:
        page = f"docs/{lang}/devices.md"
        assert rows[page, 3]["status"] == "passed"
        assert (rows[page, 8]["kind"], rows[page, 8]["status"]) == ("mps", "skipped")
        assert rows[page, 8]["executed_on"] is None
        assert (rows[page, 16]["kind"], rows[page, 16]["status"]) == ("xpu", "skipped")
        assert rows[page, 23]["status"] == "failed"


def test_the_guard_restores_what_a_block_changed(tmp_path):
    """RepoGuard, the fallback where the kernel has no Landlock: whatever a block
    changed, deleted or added is put back and named; an edit made between blocks
    (by the author) is kept."""
    (tmp_path / "snippets").mkdir()
    (tmp_path / "LICENSE").write_text("license")
    (tmp_path / "snippets" / "a.py").write_text("a = 1")
    guard = sandbox.RepoGuard(tmp_path)
    guard.before()
    (tmp_path / "LICENSE").unlink()
    (tmp_path / "snippets" / "a.py").write_text("a = 2, changed by a block")
    (tmp_path / "snippets" / "new.py").write_text("x = 1")
    assert guard.after() == ["LICENSE", "snippets/a.py", "snippets/new.py"]
    assert (tmp_path / "LICENSE").read_text() == "license"
    assert (tmp_path / "snippets" / "a.py").read_text() == "a = 1"
    assert not (tmp_path / "snippets" / "new.py").exists()

    (tmp_path / "snippets" / "a.py").write_text("a = 3, the author's edit")
    guard.before()
    assert guard.after() == []
    assert (tmp_path / "snippets" / "a.py").read_text() == "a = 3, the author's edit"


def test_the_guard_restores_the_metadata_a_block_changed(tmp_path):
    """Issue 39, H14: Landlock covers contents, not metadata. A block made the venv's ruff
    unexecutable, changed README's mode (git saw it), set pyproject's time to 2100 (make
    setup ran every time), set an extended attribute and made CHANGELOG immutable. The
    guard, on with or without Landlock, restores mode and times, takes off the attributes
    and flags a block added (flags where this process may: root), and names each file."""
    import fcntl
    import struct

    for name in ("README.md", "pyproject.toml", "LICENSE", "CHANGELOG.md", ".venv/bin/ruff"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)
    os.chmod(tmp_path / "README.md", 0o644)
    os.chmod(tmp_path / ".venv/bin/ruff", 0o755)
    mtime = (tmp_path / "pyproject.toml").stat().st_mtime_ns
    guard = sandbox.RepoGuard(tmp_path)
    guard.before()
    os.chmod(tmp_path / "README.md", 0o755)
    os.chmod(tmp_path / ".venv/bin/ruff", 0o644)
    os.utime(tmp_path / "pyproject.toml", (4102444800, 4102444800))
    expected = [".venv/bin/ruff", "README.md", "pyproject.toml"]
    try:
        os.setxattr(tmp_path / "LICENSE", "user.note", b"written by a block")
        expected.append("LICENSE")
    except OSError:  # a file system without user attributes
        pass
    immutable = False
    fd = os.open(tmp_path / "CHANGELOG.md", os.O_RDONLY)
    try:
        flags = struct.unpack("i", fcntl.ioctl(fd, sandbox.FS_IOC_GETFLAGS, bytes(8))[:4])[0]
        fcntl.ioctl(fd, sandbox.FS_IOC_SETFLAGS, struct.pack("i", flags | sandbox.FS_IMMUTABLE_FL) + bytes(4))
        immutable = True
        expected.append("CHANGELOG.md")
    except OSError:  # not root, or a file system without flags
        pass
    finally:
        os.close(fd)
    assert guard.after() == sorted(expected)
    assert (tmp_path / "README.md").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / ".venv/bin/ruff").stat().st_mode & 0o777 == 0o755
    assert (tmp_path / "pyproject.toml").stat().st_mtime_ns == mtime
    assert os.listxattr(tmp_path / "LICENSE") == []
    if immutable:
        (tmp_path / "CHANGELOG.md").write_text("editable again")
    guard.before()
    assert guard.after() == []


def test_where_landlock_guards_contents_the_guard_keeps_an_authors_edit(tmp_path):
    """With Landlock a block cannot write the repository, so an edit made while a block runs is
    the author's: the metadata guard keeps it (and a new file), and still puts back a mode."""
    (tmp_path / "page.md").write_text("before")
    (tmp_path / "README.md").write_text("readme")
    os.chmod(tmp_path / "README.md", 0o644)
    guard = sandbox.RepoGuard(tmp_path, contents=False)
    guard.before()
    (tmp_path / "page.md").write_text("the author's edit, made while a block ran")
    (tmp_path / "new.md").write_text("a new page")
    os.chmod(tmp_path / "README.md", 0o600)
    assert guard.after() == ["README.md"]
    assert (tmp_path / "page.md").read_text() == "the author's edit, made while a block ran"
    assert (tmp_path / "new.md").exists()
    assert (tmp_path / "README.md").stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize(
    ("comment", "says"),
    [
        ('<!--pytest .mark.skip(reason="x")-->', 'did you mean <!--pytest.mark.skip(reason="why it is not run")-->?'),
        ('<!--pytest-mark.skip(reason="x")-->', 'did you mean <!--pytest.mark.skip(reason="why it is not run")-->?'),
        ("<!-- skip -->", "looks like a mark or keyword but is none"),
        ("<!-- cudaa -->", "did you mean <!--pytest.mark.cuda-->?"),
        ("<!--pytest.mark.gpu-->", "unknown mark <!--pytest.mark.gpu-->"),
        ("<!--pytest-codeblocks:skip-->", "an excused block needs a reason"),
    ],
)
def test_a_comment_that_looks_like_a_mark_is_a_mark_or_an_error(tmp_path, comment, says):
    p = tmp_path / "docs" / "zh" / "p.md"
    p.parent.mkdir(parents=True)
    p.write_text(f"# P\n\n{comment}\n{F}bash\npip install something\n{F}\n", encoding="utf-8")
    with pytest.raises(paths.DocsError) as error:
        page_blocks(p)
    assert f"{p}:3:" in str(error.value) and says in str(error.value)


def test_a_mark_with_the_spaces_of_an_html_comment_is_a_mark(tmp_path):
    p = tmp_path / "p.md"
    p.write_text(f"# P\n\n<!-- pytest.mark.cuda -->\n{F}python\nx = 1\n{F}\n", encoding="utf-8")
    (block,) = page_blocks(p)
    assert block.mark_names == {"cuda"}


@pytest.mark.parametrize(
    ("above_output", "says"),
    [
        ("<!--pytest-codeblocks:expected_output-->", "<!--pytest-codeblocks:expected_output--> is not a keyword"),
        ("<!-- expected-output -->", "did you mean <!--pytest-codeblocks:expected-output-->?"),
    ],
)
def test_an_output_fence_that_would_never_be_compared_is_refused(tmp_path, above_output, says):
    p = tmp_path / "p.md"
    p.write_text(f"# P\n\n{F}python\nprint(1)\n{F}\n\n{above_output}\n{F}text\n2\n{F}\n", encoding="utf-8")
    with pytest.raises(paths.DocsError) as error:
        page_blocks(p)
    assert f"{p}:7:" in str(error.value) and says in str(error.value)


def test_an_output_after_a_text_fence_is_refused(tmp_path):
    p = tmp_path / "p.md"
    p.write_text(
        f"# P\n\n{F}python\nprint(1)\n{F}\n\n{F}text\nshown\n{F}\n\n"
        f"<!--pytest-codeblocks:expected-output-->\n{F}text\n2\n{F}\n",
        encoding="utf-8",
    )
    with pytest.raises(paths.DocsError, match=rf"{p}:11: .*follows the text fence at line 7, which never runs"):
        page_blocks(p)


def test_an_output_for_another_torch_is_chosen_by_version(tmp_path, monkeypatch):
    p = tmp_path / "p.md"
    p.write_text(
        f"# P\n\n{F}python\nprint(1)\n{F}\n\n<!--pytest-codeblocks:expected-output-->\n{F}text\n1\n{F}\n\n"
        f"Older torch:\n\n<!--docs:expected-output torch<2.12-->\n{F}text\n2\n{F}\n",
        encoding="utf-8",
    )
    (block,) = page_blocks(p)
    monkeypatch.setattr(paths, "torch_version", lambda: "2.11.0")
    with pytest.raises(zygote_client.BlockFailure, match=r"p.md:15 \(the output for torch<2.12\)"):
        zygote_client.check_output(block, "1\n")
    zygote_client.check_output(block, "2\n")
    monkeypatch.setattr(paths, "torch_version", lambda: "2.13.0")
    zygote_client.check_output(block, "1\n")


REUSED = """\
# P

'''python
print("passes")
'''

'''bash
echo "passes too"
'''
"""


def test_an_unchanged_block_that_passed_is_not_run_again(tmp_path):
    """make test's --reuse-unchanged: a block that passed, with the same code and
    expected output in the same environment, is not run again, even where prose
    above it moved it (failures and other environments: the tests below). The
    second run starts no block runner at all."""
    root = scratch_project(tmp_path, both(REUSED))
    code, output = run_pytest(root, "docs", "--reuse-unchanged")
    assert code == 0 and "not run again" not in output, output
    for lang in ("zh", "en"):
        page = root / "docs" / lang / "p.md"
        page.write_text(page.read_text(encoding="utf-8").replace("# P\n", "# P\n\nProse that moves the blocks.\n"), encoding="utf-8")
    code, output = run_pytest(root, "docs", "--reuse-unchanged")
    assert code == 0 and "2 of 2 blocks were not run again" in output, output
    fences = {f["line"]: f for f in json.loads((root / "build" / "validation.json").read_text(encoding="utf-8"))["fences"]
              if f["page"] == "docs/zh/p.md"}
    assert fences[5]["status"] == fences[9]["status"] == "passed", fences
    assert "reused_from" in fences[5] and "reused_from" in fences[9], fences
    assert fences[5]["output_sha"] == census.output_sha("passes\n"), fences


def test_a_failure_is_never_reused(tmp_path, monkeypatch):
    """Not a failed result, not a passed one whose key failed since in any run (a
    partial run writes no census), not one without the hash of what it printed."""
    monkeypatch.setattr(census, "FAILED_KEYS", tmp_path / "failed-keys.txt")
    data = {"generated": "2026-11-23T12:00:00Z", "machine": {"torch": "2.13.0", "python": "3.11.7", "accelerator": "cpu"}}
    entry = {"page": "docs/zh/p.md", "language": "python", "kind": "python", "output_sha": "0" * 16}
    data["fences"] = [
        dict(entry, line=3, status="passed", reuse_key="a" * 24),
        dict(entry, line=9, status="failed", reuse_key="b" * 24),
        dict(entry, line=15, status="passed", reuse_key="c" * 24),
        {"page": "docs/zh/p.md", "line": 21, "language": "python", "kind": "python", "status": "passed", "reuse_key": "d" * 24},
    ]
    path = census.write(data, tmp_path / "validation.json")
    assert sorted(census.reusable_results(path)) == ["a" * 24, "c" * 24]
    census.remember_failure("c" * 24)
    assert list(census.reusable_results(path)) == ["a" * 24]


def test_a_changed_snippet_or_environment_changes_every_blocks_key(tmp_path, monkeypatch):
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "a.py").write_text("x = 1\n", encoding="utf-8")
    monkeypatch.setattr(paths, "REPO", tmp_path)

    def fresh():  # computed again, not taken from this process's caches
        census._fingerprint_without_limits.cache_clear()
        return census.environment_fingerprint.__wrapped__(sandbox.block_limits())

    before = fresh()
    assert fresh() == before
    (tmp_path / "snippets" / "a.py").write_text("x = 2\n", encoding="utf-8")
    assert fresh() != before
    changed = fresh()
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")
    assert fresh() != changed
    census._fingerprint_without_limits.cache_clear()
    census.environment_fingerprint.cache_clear()


ANY_TORCH = """\
# P

'''python
import torch

print(torch.ones(2).sum().item())
'''

<!--pytest-codeblocks:expected-output-->
'''text
2.0
'''

<!--pytest.mark.cuda-->
'''python
import torch

torch.cuda.synchronize()
'''
"""


def test_the_mode_for_a_preinstalled_torch_runs_the_blocks_and_records_that_torch(tmp_path):
    """make test-cuda's mode (DOCS_TORCH=any: the interpreter's own torch, whatever its
    version) proved with this CPU torch: the CPU block runs, the CUDA block is skipped
    with its reason, and the census records the torch, its mode and the accelerator."""
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: the CUDA block would run")
    root = scratch_project(tmp_path, both(ANY_TORCH))
    census_path = root / "build" / "validation-any.json"
    rc, out = run_pytest(root, "docs", "--census", str(census_path), env={"DOCS_TORCH": "any"})
    assert rc == 0, out[-3000:]
    assert "PASSED docs/zh/p.md::line 3" in out
    assert "SKIPPED [1] docs/zh/p.md:15: needs a CUDA device: runs in the GPU workflow (REQUIRE_CUDA=1)" in out
    machine = json.loads(census_path.read_text(encoding="utf-8"))["machine"]
    assert machine["torch_mode"] == "any" and machine["torch"] == torch.__version__
    assert machine["accelerator"] == "cpu" and "gpus" not in machine


def assert_one_at_a_time(code: str) -> None:
    """Three threads that run ``code``'s block at once hold its locks one after another."""
    import threading

    from devguide.run import ports

    inside, overlap = [], []

    def one():
        with ports.one_at_a_time({"code": code}):
            inside.append(1)
            overlap.append(len(inside))
            threading.Event().wait(0.05)
            inside.pop()

    threads = [threading.Thread(target=one) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlap == [1, 1, 1]


@pytest.mark.parametrize(
    ("code", "locked"),
    [
        ("torchrun --nproc-per-node=1 show_args.py\n", True),
        ('cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node=1"]\n', True),
        ("python -W ignore::FutureWarning -m torch.distributed.launch --nproc-per-node=1 x.py\n", True),
        ("torchrun --standalone --nproc-per-node=2 train.py\n", False),
        ('echo "torchrun exit status: $status"\n', False),
        ("local_rank = int(os.environ['LOCAL_RANK'])  # set by torchrun\n", False),
    ],
)
def test_blocks_that_start_torchrun_on_its_default_port_run_one_at_a_time(code, locked):
    """torch before 2.13 gives a torchrun with no port the fixed port 29500: two such
    blocks in two workers (a page's zh and en twins) collided on a GPU machine."""
    from devguide.run import ports

    assert bool(ports.DEFAULT_PORT_TORCHRUN.search(code)) is locked
    assert (ports.fixed_ports(code) == [29500]) is locked
    if not locked or ports.fcntl is None:
        return
    assert_one_at_a_time(code)


@pytest.mark.parametrize(
    ("code", "port"),
    [
        ("torchrun --nnodes=1 --master-port=29411 x.py\n", 29411),
        ("MASTER_PORT=29517 python x.py\n", 29517),
        ('os.environ["MASTER_PORT"] = "29517"\n', 29517),
        ('server.bind(("127.0.0.1", 29517))\n', 29517),
        ('dist.init_process_group("gloo", init_method="tcp://127.0.0.1:23456")\n', 23456),
        ('busy = socket.create_server(("127.0.0.1", 0))  # a free port\n', None),
        ("os.environ.update(MASTER_PORT=str(port))\n", None),
    ],
)
def test_blocks_that_fix_the_same_port_run_one_at_a_time(code, port):
    """Issue 39, H28: two pages that bind the fixed port 29517 under -n 2 failed with EADDRINUSE
    now and then. A block that fixes a port holds that port's lock while it runs; a free port
    (0, or one the code picks) takes no lock."""
    from devguide.run import ports

    assert ports.fixed_ports(code) == ([port] if port else [])
    if port is None or ports.fcntl is None:
        return
    assert_one_at_a_time(code)


@pytest.mark.parametrize(
    ("code", "needs"),
    [
        ("opt = torch.optim.SGD(model.parameters(), lr=0.1)\n", True),
        ("from torch import optim\n", True),
        ("model = torch.compile(model)\n", True),
        ("with torch.profiler.profile() as prof:\n    pass\n", True),
        ("x = torch.randn(3).to(device)\n", False),
        ("loader = torch.utils.data.DataLoader(data, batch_size=4)\n", False),
    ],
)
def test_the_zygote_imports_dynamo_only_for_blocks_that_seem_to_need_it(code, needs):
    """Pages without such blocks start their first block 1.5 s sooner; a block the
    pattern misses imports torch._dynamo itself (every block of make test passes)."""
    from devguide.run import zygote

    assert bool(zygote.NEEDS_DYNAMO.search(code)) is needs
