"""Blocks for Apple-silicon GPUs (``mps``) and Intel GPUs (``xpu``): no CI machine has
either device, so such blocks are handled like CUDA-only ones on a machine without
CUDA -- compiled, their ``torch.…`` names checked, skipped with a reason that says
so -- and counted apart, in the census and in the validation report.
"""


import pytest

from devguide import paths
from devguide.census import results
from devguide.mkdocs_plugin.report import validated_line, validation_page
from devguide.pytest_plugin import apicheck
from devguide.source import fences
from devguide.source.blocks import page_blocks


def test_mps_and_xpu_marks_are_accepted_and_counted_apart(write_page, tmp_path, device_page):
    p = write_page(device_page)
    kinds = [(e.line, e.kind, e.reason) for e in fences.classify(p)]
    assert kinds == [
        (3, "python", ""),
        (8, "mps", "needs an Apple-silicon MPS device: no CI machine runs it"),
        (16, "xpu", "needs an Intel GPU (XPU device): no CI machine runs it"),
        (23, "mps", "needs an Apple-silicon MPS device: no CI machine runs it"),
    ]
    assert [b.mark_names for b in page_blocks(p)] == [set(), {"mps"}, {"xpu"}, {"mps"}]


def test_a_block_needs_one_kind_of_device(write_page, tmp_path):
    p = write_page("<!--pytest.mark.mps-->\n<!--pytest.mark.cuda-->\n'''python\nx = 1\n'''\n")
    with pytest.raises(paths.DocsError, match=rf"{p}:3: a block needs one kind of device, not cuda and mps"):
        page_blocks(p)


@pytest.mark.parametrize(
    ("comment", "says"),
    [
        ("<!-- mpss -->", "did you mean <!--pytest.mark.mps-->?"),
        ("<!-- pytest.mark.xpu() -->", None),  # a mark with spaces and parentheses is a mark
        ("<!--pytest.mark.metal-->", "unknown mark <!--pytest.mark.metal-->: use one of pytest.mark.cuda, pytest.mark.mps, pytest.mark.xpu"),
    ],
)
def test_a_comment_near_a_device_mark_is_the_mark_or_an_error(write_page, tmp_path, comment, says):
    p = write_page(f"# P\n\n{comment}\n'''python\nx = 1\n'''\n")
    if says is None:
        (block,) = page_blocks(p)
        assert block.mark_names == {"xpu"}
        return
    with pytest.raises(paths.DocsError) as error:
        page_blocks(p)
    assert f"{p}:3:" in str(error.value) and says in str(error.value)  # the comment's own line


def test_mps_and_xpu_blocks_are_api_checked(write_page, tmp_path):
    p = write_page("""\
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
    mps, xpu = page_blocks(p)
    assert apicheck.unresolved_torch_attributes(mps) == [
        f"{p}:5: torch.mps.synchronise does not exist in torch",
        f"{p}:6: torch.backends.mps.is_avaliable does not exist in torch",
    ]
    assert apicheck.unresolved_torch_attributes(xpu) == [
        f"{p}:15: torch.xpu.memory_alocated does not exist in torch",
    ]


REPORT_PAGE = "docs/en/devices/other-accelerators.md"  # CPU, MPS-only and XPU-only blocks


def _run(status):
    return results.Run("2026-11-23T12:00:00Z", {"torch": "2.13.0+cpu", "python": "3.11.7", "accelerator": "cpu"}, "test", status)


def test_the_report_says_how_many_mps_and_xpu_blocks_no_ci_machine_executed(monkeypatch):
    import re

    st = results.page_status(REPORT_PAGE, _run({}), None)
    mps, xpu = len(st.of_kind("mps")), len(st.of_kind("xpu"))
    assert mps and xpu, f"{REPORT_PAGE} has no MPS-only or no XPU-only block"
    cpu = _run({(REPORT_PAGE, b.sha): "passed" for b in st.of_kind("python", "bash")})
    monkeypatch.setattr(results, "cpu_run", lambda: cpu)
    monkeypatch.setattr(results, "gpu_run", lambda: None)
    monkeypatch.setattr(results, "other_cpu_runs", lambda: [])
    en = validation_page.render("en")
    found = re.search(r"\*\*No CI machine has executed (\d+) of this site's blocks written for Apple-silicon GPUs \(MPS\) "
                      r"and (\d+) written for Intel GPUs \(XPU\)\*\*", en)
    assert found and int(found.group(1)) >= mps and int(found.group(2)) >= xpu, found
    row = next(line for line in en.splitlines() if line.startswith(f'<tr id="{validated_line.row_id(REPORT_PAGE)}">'))
    assert f'<td data-label="MPS-only">{mps} (not executed)</td><td data-label="XPU-only">{xpu} (not executed)</td>' in row
    assert "没有在任何 CI 机器上执行过**" in validation_page.render("zh")
    line = re.sub(r"<[^>]+>", "", validated_line.badge("en", REPORT_PAGE))
    assert f"○ never run: {mps} MPS, {xpu} XPU example{'s' * (mps + xpu != 1)}" in line, line
    assert "passed on CPU (torch 2.13.0)" in line
    zh = re.sub(r"<[^>]+>", "", validated_line.badge("zh", REPORT_PAGE.replace("/en/", "/zh/")))
    assert f"从未运行：{mps} 个 MPS 示例、{xpu} 个 XPU 示例" in zh, zh
    # a run on a machine with the device executed them: nothing left unexecuted on the page
    cpu.status.update({(REPORT_PAGE, b.sha): "passed" for b in st.of_kind("mps", "xpu")})
    assert "never run" not in validated_line.badge("en", REPORT_PAGE)
    row = next(line for line in validation_page.render("en").splitlines() if line.startswith(f'<tr id="{validated_line.row_id(REPORT_PAGE)}">'))
    assert "not executed" not in row
