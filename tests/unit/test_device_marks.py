"""Blocks for Apple-silicon GPUs (``mps``) and Intel GPUs (``xpu``): no CI machine has
either device, so such blocks are handled like CUDA-only ones on a machine without
CUDA -- compiled, their ``torch.…`` names checked, skipped with a reason that says
so -- and counted apart, in the census and in the validation report.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from devguide import apicheck, census, config, pages, report

F = "`" * 3

PAGE = """\
# P { #p }

'''python
print("runs here")
'''

<!--pytest.mark.mps-->
'''python
import torch

x = torch.ones(2, device="mps")
torch.mps.synchronize()
'''

<!--pytest.mark.xpu-->
'''python
import torch

assert torch.xpu.is_available()
'''

<!--pytest.mark.mps-->
'''python
import torch

torch.mps.synchronise()
'''
"""


def page(tmp_path, text, name="p.md"):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).replace("'''", F), encoding="utf-8")
    return path


def test_mps_and_xpu_marks_are_accepted_and_counted_apart(tmp_path):
    p = page(tmp_path, PAGE)
    kinds = [(e.line, e.kind, e.reason) for e in pages.classify(p)]
    assert kinds == [
        (3, "python", ""),
        (8, "mps", "needs an Apple-silicon MPS device: no CI machine runs it"),
        (16, "xpu", "needs an Intel GPU (XPU device): no CI machine runs it"),
        (23, "mps", "needs an Apple-silicon MPS device: no CI machine runs it"),
    ]
    assert [b.mark_names for b in pages.page_blocks(p)] == [set(), {"mps"}, {"xpu"}, {"mps"}]


def test_a_block_needs_one_kind_of_device(tmp_path):
    p = page(tmp_path, "<!--pytest.mark.mps-->\n<!--pytest.mark.cuda-->\n'''python\nx = 1\n'''\n")
    with pytest.raises(config.DocsError, match=rf"{p}:3: a block needs one kind of device, not cuda and mps"):
        pages.page_blocks(p)


@pytest.mark.parametrize(
    ("comment", "says"),
    [
        ("<!-- mpss -->", "did you mean <!--pytest.mark.mps-->?"),
        ("<!-- pytest.mark.xpu() -->", None),  # a mark with spaces and parentheses is a mark
        ("<!--pytest.mark.metal-->", "unknown mark <!--pytest.mark.metal-->: use one of pytest.mark.cuda, pytest.mark.mps, pytest.mark.xpu"),
    ],
)
def test_a_comment_near_a_device_mark_is_the_mark_or_an_error(tmp_path, comment, says):
    p = page(tmp_path, f"# P\n\n{comment}\n'''python\nx = 1\n'''\n")
    if says is None:
        (block,) = pages.page_blocks(p)
        assert block.mark_names == {"xpu"}
        return
    with pytest.raises(config.DocsError) as error:
        pages.page_blocks(p)
    assert f"{p}:4:" in str(error.value) and says in str(error.value)


def test_mps_and_xpu_blocks_are_api_checked(tmp_path):
    p = page(tmp_path, """\
        <!--pytest.mark.mps-->
        '''python
        import torch

        torch.mps.synchronise()
        torch.backends.mps.is_avaliable()
        torch.mps.empty_cache()
        '''

        <!--pytest.mark.xpu-->
        '''python
        from torch import xpu

        xpu.synchronize()
        xpu.memory_alocated()
        '''
        """)
    mps, xpu = pages.page_blocks(p)
    assert apicheck.unresolved_torch_attributes(mps) == [
        f"{p}:5: torch.mps.synchronise does not exist in torch",
        f"{p}:6: torch.backends.mps.is_avaliable does not exist in torch",
    ]
    assert apicheck.unresolved_torch_attributes(xpu) == [
        f"{p}:15: torch.xpu.memory_alocated does not exist in torch",
    ]


def scratch_project(tmp_path, text):
    root = tmp_path / "project"
    root.mkdir()
    shutil.copytree(config.REPO / "snippets", root / "snippets")
    for name in ("pyproject.toml", "mkdocs.yml", "LICENSE", "conftest.py"):
        shutil.copy(config.REPO / name, root / name)
    for lang in config.LANGUAGES:
        page(root, text, f"docs/{lang}/p.md")
    return root


def test_a_page_with_mps_and_xpu_blocks_skips_them_counts_them_and_fails_a_typo(tmp_path):
    """The whole run as a contributor makes it: the CPU block runs, the device blocks
    are skipped with a reason that says no CI machine runs them, the one with a
    misspelt torch name fails at its page line, and the census counts them apart."""
    if config.device_available("mps") or config.device_available("xpu"):
        pytest.skip("this machine has an MPS or XPU device: the blocks would run")
    root = scratch_project(tmp_path, PAGE)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n0", "-p", "no:cacheprovider", "-rA", "-q",
         "docs/zh/p.md", "docs/en/p.md"],
        cwd=root, capture_output=True, text=True, timeout=300,
        env=dict(os.environ, DEVGUIDE_ROOT=str(root)),
    )
    out = done.stdout + done.stderr
    assert done.returncode == 1, out[-3000:]
    skipped = "; compiled and API-checked here"
    assert f"SKIPPED [1] docs/zh/p.md:8: needs an Apple-silicon MPS device: no CI machine runs it{skipped}" in out
    assert f"SKIPPED [1] docs/zh/p.md:16: needs an Intel GPU (XPU device): no CI machine runs it{skipped}" in out
    assert "docs/zh/p.md:23: MPS-only block uses names that do not exist in torch" in out
    assert "docs/zh/p.md:26: torch.mps.synchronise does not exist in torch" in out

    data = json.loads((root / "build" / "validation.json").read_text(encoding="utf-8"))
    assert census.validate(data) is None
    rows = {(f["page"], f["line"]): f for f in data["fences"]}
    for lang in config.LANGUAGES:
        assert rows[f"docs/{lang}/p.md", 3]["status"] == "passed"
        assert (rows[f"docs/{lang}/p.md", 8]["kind"], rows[f"docs/{lang}/p.md", 8]["status"]) == ("mps", "skipped")
        assert rows[f"docs/{lang}/p.md", 8]["executed_on"] is None
        assert (rows[f"docs/{lang}/p.md", 16]["kind"], rows[f"docs/{lang}/p.md", 16]["status"]) == ("xpu", "skipped")
        assert rows[f"docs/{lang}/p.md", 23]["status"] == "failed"


def census_with(fences):
    return {
        "generated": "2026-11-23T12:00:00Z",
        "commit": None,
        "machine": {"torch": "2.13.0+cpu", "python": "3.11.7", "accelerator": "cpu"},
        "fences": fences,
    }


def test_the_report_says_how_many_mps_and_xpu_blocks_no_ci_machine_executed(monkeypatch):
    skipped = {"language": "python", "status": "skipped", "seconds": 0.0}
    data = census_with([
        {"page": "docs/en/devices/x.md", "line": 3, "language": "python", "kind": "python", "status": "passed", "seconds": 0.1},
        {"page": "docs/en/devices/x.md", "line": 8, "kind": "mps", **skipped},
        {"page": "docs/en/devices/x.md", "line": 16, "kind": "mps", **skipped},
        {"page": "docs/en/devices/x.md", "line": 22, "kind": "xpu", **skipped},
        {"page": "docs/zh/devices/x.md", "line": 3, "language": "python", "kind": "python", "status": "passed", "seconds": 0.1},
        {"page": "docs/zh/devices/x.md", "line": 8, "kind": "mps", **skipped},
    ])
    assert census.validate(data) is None
    monkeypatch.setattr(report, "load", lambda: (data, True))
    monkeypatch.setattr(report, "load_gpu", lambda gpu=None: None)
    en = report.render("en")
    assert (
        "**No CI machine has executed 2 of this site's blocks written for Apple-silicon GPUs (MPS) "
        "and 1 written for Intel GPUs (XPU)**" in en
    )
    assert "| [devices/x.md](devices/x.md) | 1 | 0 | 2 (not executed) | 1 (not executed) | 0 | 0 | 0 | ✓ |" in en
    assert "**本站有 1 个为苹果芯片的 GPU（MPS）编写的代码块和 0 个为 Intel 显卡（XPU）编写的代码块没有在任何 CI 机器上执行过**" in report.render("zh")
    badge = report.badge("en", "docs/en/devices/x.md")
    assert "MPS-only blocks not executed by any CI machine: 2 · XPU-only blocks not executed by any CI machine: 1" in badge
    # a run on a machine with the device executed them: nothing to say
    for f in data["fences"]:
        f["status"] = "passed"
    assert "No CI machine has executed" not in report.render("en")
    assert "not executed" not in report.badge("en", "docs/en/devices/x.md")
