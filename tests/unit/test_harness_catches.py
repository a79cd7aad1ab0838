"""Tests of the harness itself, on temporary pages with planted defects.

Each defect must fail with a message that names the file and line and says
what to do: a fence the harness would skip, a page without its twin, a broken
anchor, a wrong expected output, and the rest of what a contributor gets wrong.
"""

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from devguide import paths
from devguide.dev import site_check
from devguide.mkdocs_plugin.report import gpu_outputs
from devguide.pytest_plugin import apicheck, page_items, state
from devguide.run import zygote_client
from devguide.source import fences
from devguide.source.blocks import page_blocks
from devguide.source.parity import parity_problems, twins


@pytest.mark.parametrize(
    "fence",
    ["'''py", "'''python title=\"x.py\"", "~~~python", "''' python", "'''pycon", "'''"],
)
def test_census_reports_fences_that_would_be_skipped(write_page, tmp_path, fence):
    close = "~~~" if fence.startswith("~") else "'''"
    p = write_page(f"# T\n\ntext\n\n{fence}\nprint(1)\n{close}\n")
    problems = [e.problem for e in fences.classify(p) if e.problem]
    assert len(problems) == 1
    assert f"{p}:5:" in problems[0] and "silently ignored" in problems[0]


def test_an_excused_fence_is_counted_with_its_reason(write_page, tmp_path):
    p = write_page("""\
        <!--pytest.mark.skip(reason="Windows only")-->
        '''powershell
        py -m pip install torch
        '''
        """)
    (entry,) = fences.classify(p)
    assert (entry.kind, entry.reason, entry.problem) == ("excused", "Windows only", "")


def test_excuse_needs_a_reason_and_marks_must_be_known(write_page, tmp_path):
    p = write_page("<!--pytest.mark.skip-->\n'''python\nx = 1\n'''\n")
    with pytest.raises(paths.DocsError, match=rf"{p}:1: an excused block needs a reason"):
        page_blocks(p)
    p = write_page("<!--pytest.mark.gpu-->\n'''python\nx = 1\n'''\n")
    with pytest.raises(paths.DocsError, match=rf"{p}:1: unknown mark .*pytest.mark.cuda"):
        page_blocks(p)


def test_a_missing_snippet_names_the_page_line(write_page, tmp_path):
    p = write_page("# T\n\n'''python\n--8<-- \"snippets/nope/missing.py\"\n'''\n")
    with pytest.raises(paths.DocsError, match=rf"{p}:4: .*missing\.py"):
        page_blocks(p)


def test_a_page_without_its_twin_is_named(write_page, tmp_path):
    write_page("# A { #a }\n", "zh/guide/a.md")
    write_page("# A { #a }\n", "en/guide/a.md")
    write_page("# 只有中文 { #only }\n", "zh/guide/only.md")
    pairs, missing = twins(tmp_path)
    assert len(pairs) == 1
    assert missing == [
        f"{tmp_path / 'zh/guide/only.md'}:1: has no twin docs/en/guide/only.md: "
        "write the page in both languages (same code, translated prose)"
    ]


def test_twins_with_different_code_or_anchors_are_reported(write_page, tmp_path):
    zh = write_page("# 标题 { #title }\n\n'''python\nx = 1\n'''\n", "zh/p.md")
    en = write_page("# Title { #heading }\n\n'''python\nx = 2\n'''\n", "en/p.md")
    problems = "\n".join(parity_problems(zh, en))
    assert f"{zh}:4 differs from {en}:4" in problems  # the line of the token that differs
    assert "#title" in problems and "{ #english-anchor }" in problems


def test_a_wrong_expected_output_fails_with_both_outputs(write_page, tmp_path):
    p = write_page("""\
        # T

        '''python
        print("actual")
        '''

        <!--pytest-codeblocks:expected-output-->
        '''text
        expected
        '''
        """)
    (block,) = page_blocks(p)
    with pytest.raises(zygote_client.BlockFailure) as failure:
        zygote_client.check_output(block, zygote_client.run_python(block))
    message = str(failure.value)
    assert message.startswith(f"{p}:3: printed output differs from the expected output at {p}:8")
    assert "-expected" in message and "+actual" in message and "--update-outputs" in message


def test_update_outputs_rewrites_the_fence(write_page, tmp_path):
    p = write_page("'''python\nprint(6 * 7)\n'''\n\n<!--pytest-codeblocks:expected-output-->\n'''text\n0\n'''\n")
    (block,) = page_blocks(p)
    zygote_client.write_output(block, zygote_client.run_python(block))
    (block,) = page_blocks(p)
    assert block.expected_output == "42\n"


def test_update_outputs_handles_several_fences_on_a_page(write_page, tmp_path):
    """Outputs that change length do not shift the fences below them."""
    p = write_page("""\
        '''python
        print("a\\nb\\nc")
        '''

        <!--pytest-codeblocks:expected-output-->
        '''text
        x
        '''

        '''python
        print(1)
        '''

        <!--pytest-codeblocks:expected-output-->
        '''text
        0
        '''
        """)
    for block in sorted(page_blocks(p), key=lambda b: -b.line):
        zygote_client.write_output(block, zygote_client.run_python(block))
    assert [b.expected_output for b in page_blocks(p)] == ["a\nb\nc\n", "1\n"]


def test_tracebacks_point_at_page_lines(write_page, tmp_path):
    p = write_page("# T\n\n'''python\nx = 1\ny = x / 0\n'''\n")
    (block,) = page_blocks(p)
    with pytest.raises(zygote_client.BlockFailure) as failure:
        zygote_client.run_python(block)
    assert f"{p}:5  y = x / 0" in str(failure.value)
    assert "ZeroDivisionError" in str(failure.value)


def test_continued_blocks_keep_their_page_lines(write_page, tmp_path):
    p = write_page("'''python\nx = 1\n'''\n\ntext\n\n<!--pytest-codeblocks:cont-->\n'''python\nassert x == 2\n'''\n")
    (block,) = page_blocks(p)
    assert block.line_map == [(str(p), 2), (str(p), 9)]
    with pytest.raises(zygote_client.BlockFailure, match=rf"{p}:9  assert x == 2"):
        zygote_client.run_python(block)


def test_blocks_run_as_main_with_global_state_reset(write_page, tmp_path):
    p = write_page("""\
        '''python
        import torch
        assert __name__ == "__main__"
        torch.set_default_dtype(torch.float64)
        torch.set_grad_enabled(False)
        torch.manual_seed(123)
        '''

        '''python
        import torch
        assert torch.get_default_dtype() == torch.float32
        assert torch.is_grad_enabled()
        assert torch.initial_seed() != 123  # a fresh process: no seed carried over
        '''
        """)
    for block in page_blocks(p):
        zygote_client.run_python(block)


def test_a_block_has_no_file_its_own_utf8_stdout_and_may_not_exit(write_page, tmp_path):
    """CONTRIBUTING's promise, one claim each: no ``__file__``, ``sys.stdout`` a UTF-8
    text stream of the block's own, and ``sys.exit(0)`` fails the block."""
    p = write_page("""\
        '''python
        import sys
        assert "__file__" not in globals()
        assert sys.stdout.encoding.lower().replace("-", "") == "utf8"
        sys.stdout.buffer.write("字节\\n".encode())
        '''

        '''python
        import sys
        sys.exit(0)
        '''
        """)
    first, second = page_blocks(p)
    zygote_client.run_python(first)
    with pytest.raises(zygote_client.BlockFailure, match="SystemExit: 0"):
        zygote_client.run_python(second)


def test_deprecation_warnings_fail_a_block(write_page, tmp_path):
    p = write_page("'''python\nimport warnings\nwarnings.warn('old', DeprecationWarning)\n'''\n")
    (block,) = page_blocks(p)
    with pytest.raises(zygote_client.BlockFailure, match="DeprecationWarning: old"):
        zygote_client.run_python(block)


def test_a_deprecation_announced_as_a_user_warning_fails_a_block(write_page, tmp_path):
    """torch says some deprecations with a plain UserWarning: the message counts."""
    p = write_page("'''python\nimport warnings\nwarnings.warn('f() is Deprecated, use g()')\n'''\n")
    (block,) = page_blocks(p)
    with pytest.raises(zygote_client.BlockFailure, match=r"UserWarning: f\(\) is Deprecated"):
        zygote_client.run_python(block)


def test_cuda_blocks_are_api_checked(write_page, tmp_path):
    p = write_page("""\
        <!--pytest.mark.cuda-->
        '''python
        import torch
        from torch import nn
        start = torch.cuda.event(enable_timing=True)
        scaler = torch.cuda.amp.GradScaler()
        ok = torch.cuda.Event(enable_timing=True)
        layer = nn.Linearr(2, 2)
        '''
        """)
    (block,) = page_blocks(p)
    assert block.mark_names == {"cuda"}
    assert apicheck.unresolved_torch_attributes(block) == [
        f"{p}:5: torch.cuda.event does not exist in torch",
        f"{p}:6: torch.cuda.amp.GradScaler is deprecated: use torch.amp.GradScaler('cuda')",
        f"{p}:8: torch.nn.Linearr does not exist in torch",
    ]


def test_bash_blocks_fail_on_the_first_error(write_page, tmp_path):
    p = write_page("'''bash\nfalse\necho never\n'''\n")
    (block,) = page_blocks(p)
    with pytest.raises(zygote_client.BlockFailure, match=rf"{p}:1: bash block exited with status 1"):
        zygote_client.run_bash(block)


TWIN_PAGE = """\
    # {title}

    '''python
    print(6 * 7)
    '''

    <!--pytest-codeblocks:expected-output-->
    '''text
    {output}
    '''

    <!--pytest.mark.skip(reason="shown for reading")-->
    '''bash
    make test
    '''
    """


def test_identical_twins_run_once_and_different_ones_both_run(write_page, tmp_path):
    zh = write_page(TWIN_PAGE.format(title="标题", output="42"), "docs/zh/p.md")
    en = write_page(TWIN_PAGE.format(title="Title", output="42"), "docs/en/p.md")
    blocks = {"docs/zh/p.md": page_blocks(zh), "docs/en/p.md": page_blocks(en)}
    pairs = page_items.identical_twins(blocks)
    assert [(a.page, a.line, b.page, b.line) for a, b in pairs] == [(zh, 3, en, 3), (zh, 13, en, 13)]
    # an expected output that differs (so would the code, a mark or its reason): both run
    en.write_text(en.read_text(encoding="utf-8").replace("42", "41"), encoding="utf-8")
    blocks["docs/en/p.md"] = page_blocks(en)
    assert page_items.identical_twins(blocks) == []
    # a page collected without its twin runs its own blocks
    assert page_items.identical_twins({"docs/en/p.md": blocks["docs/en/p.md"]}) == []


def test_a_twin_counts_with_the_run_that_stands_for_it():
    """On the xdist controller: the report of the Chinese block records its English twin."""
    run = state.RunState()
    skipped = ["docs/zh/p.md", 3, "Skipped: needs a CUDA device"]  # a list once it crossed from a worker
    for when, longrepr in [("setup", None), ("call", skipped)]:
        run.pytest_runtest_logreport(SimpleNamespace(
            nodeid="docs/zh/p.md::line 3", when=when, duration=0.5, longrepr=longrepr,
            passed=longrepr is None, failed=False, skipped=longrepr is not None,
            user_properties=[(state.TWIN, ["docs/en/p.md", 5])],
        ))
    assert run.collected == {("docs/en/p.md", 5)}
    assert run.results[("docs/en/p.md", 5)] == {
        "status": "skipped", "seconds": 0.0, "skip_reason": "needs a CUDA device",
        "ran_with": "docs/zh/p.md:3",
    }


def test_gpu_output_marker_shows_what_the_gpu_run_printed(tmp_path):
    """<!-- gpu-output --> after a CUDA block: the GPU run's output when there is one
    (build/gpu/ or .ci/gpu-run/), a note when there is none."""
    source = "---\nsearch:\n  boost: 2\n---\n\n# T\n\n```python\nprint(1)\n```\n\n<!-- gpu-output -->\n"
    page_file = tmp_path / "p.md"
    page_file.write_text(source, encoding="utf-8")
    markdown = source.split("---\n", 2)[2]  # mkdocs hands hooks the page without front matter
    src = "docs/en/p.md"
    gpu = tmp_path / "gpu"
    # a fact about the block, not a promise about the build
    none = gpu_outputs.gpu_outputs(markdown, page_file, src, "en", gpu)
    assert '!!! note "This block has not run on a GPU yet"' in none and "appears here" not in none
    assert '!!! note "这个代码块还没有在 GPU 上运行过"' in gpu_outputs.gpu_outputs(markdown, page_file, src, "zh", gpu)
    (gpu / "artifacts" / "outputs").mkdir(parents=True)
    (gpu / "validation.json").write_text(json.dumps({
        "generated": "2026-11-20T03:17:00Z",
        "machine": {"torch": "2.13.0+cu130", "python": "3.11.7", "gpus": ["NVIDIA L4"], "accelerator": "cuda"},
        "fences": [],
    }))
    (gpu / "artifacts" / "outputs" / "docs__en__p.md__8.txt").write_text("h2d pinned 24.1 GB/s\n")
    shown = gpu_outputs.gpu_outputs(markdown, page_file, src, "en", gpu)
    assert '!!! info "Measured on a GPU: torch 2.13.0+cu130 · NVIDIA L4, 2026-11-20"' in shown
    assert "    ```text\n    h2d pinned 24.1 GB/s\n    ```" in shown
    shown = gpu_outputs.gpu_outputs(markdown, page_file, src, "zh", gpu)
    assert '!!! info "GPU 实测：torch 2.13.0+cu130 · NVIDIA L4，2026-11-20"' in shown
    assert "<!-- gpu-output -->" not in shown
    # the block changed since that run (another hash at its line): said so, naming the run
    (gpu / "validation.json").write_text(json.dumps({
        "generated": "2026-11-20T03:17:00Z",
        "machine": {"torch": "2.13.0+cu130", "python": "3.11.7", "gpus": ["NVIDIA L4"], "accelerator": "cuda"},
        "fences": [{"page": src, "line": 8, "language": "python", "kind": "cuda", "sha": "0" * 16, "status": "passed"}],
    }))
    stale = gpu_outputs.gpu_outputs(markdown, page_file, src, "en", gpu)
    assert '!!! note "This block has not run on a GPU since it changed"' in stale, stale
    assert "torch 2.13.0+cu130 · NVIDIA L4, 20 November 2026" in stale and "h2d pinned" not in stale


def test_broken_anchor_in_built_html_is_named(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text('<h1 id="top">A</h1>\n<a href="../b/#nope">b</a>\n')
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "index.html").write_text('<h1 id="top">B</h1>\n<script src="https://cdn.example/x.js"></script>\n')
    broken, external = site_check.check_site(tmp_path)
    assert broken == ['a/index.html:2: <a href="../b/#nope">: no id="nope" in b/index.html']
    assert external == ["b/index.html:2: <script> loads https://cdn.example/x.js"]


def test_broken_anchor_fails_the_strict_build(write_page, tmp_path):
    write_page("# A\n\n[to b](b.md#nope)\n", "docs/index.md")
    write_page("# B\n", "docs/b.md")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\nstrict: true\ntheme: {name: material, font: false}\n"
        "plugins: []\nvalidation: {anchors: warn}\n"
    )
    done = site_check.build_site(tmp_path / "mkdocs.yml", tmp_path / "site", cwd=tmp_path)
    assert done.returncode != 0
    assert "index.md" in done.stderr and "'#nope'" in done.stderr


def test_require_cuda_without_cuda_fails_fast():
    env = dict(os.environ, REQUIRE_CUDA="1")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "docs/en/index.md"],
        cwd=paths.REPO, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 3
    assert "REQUIRE_CUDA=1 but torch.cuda.is_available() is False" in done.stdout + done.stderr


def test_parity_fix_copies_code_and_outputs_and_leaves_the_prose(write_page, tmp_path):
    from devguide.source import parity

    zh = write_page("""\
        # 标题 { #t }

        中文说明。

        <!--pytest.mark.timeout(30)-->
        '''python
        print(2)
        '''

        <!--pytest-codeblocks:expected-output-->
        '''text
        2
        '''
        """, name="zh/p.md")
    en = write_page("""\
        # Title { #t }

        English prose.

        '''python
        print(1)
        '''

        <!--pytest-codeblocks:expected-output-->
        '''text
        1
        '''
        """, name="en/p.md")
    done = parity.fix(zh, en)
    assert len(done) == 2 and done[0].endswith(f"replaced with {zh}:6")
    text = en.read_text(encoding="utf-8")
    assert "English prose." in text and "中文说明" not in text
    assert "<!--pytest.mark.timeout(30)-->\n```python\nprint(2)\n```" in text and "```text\n2\n```" in text
    assert parity.fix(zh, en) == []  # nothing left to copy


def test_an_error_demonstration_that_cannot_fail_is_refused(write_page, tmp_path):
    p = write_page("""\
        '''python
        try:
            int("x")
        except ValueError as e:
            assert "invalid literal" in str(e)
        '''
        """)
    with pytest.raises(paths.DocsError, match=rf"{p}:2: this try/except shows the error it expects but passes when no error comes"):
        page_blocks(p)
    p.write_text(p.read_text().replace('    assert "invalid literal" in str(e)\n', '    assert "invalid literal" in str(e)\nelse:\n    raise AssertionError("expected a ValueError")\n'))
    (block,) = page_blocks(p)
    zygote_client.run_block(block)


@pytest.mark.parametrize(
    ("handler", "output", "refused"),
    [
        ("print(e)", None, True),  # shown, never checked: passes without the error
        ("print('failed:', e)", None, True),
        ("print(e)", "invalid literal for int() with base 10: 'x'", False),  # verified output
        ("message = str(e)", None, False),  # kept for a check after the try
        ("print(e)\n    raise", None, False),  # re-raised: not a demonstration
    ],
)
def test_a_printed_error_needs_a_verified_output(write_page, handler, output, refused):
    F = "'''"
    text = f'{F}python\ntry:\n    int("x")\nexcept ValueError as e:\n    {handler}\n{F}\n'
    if output:
        text += f"\n<!--pytest-codeblocks:expected-output-->\n{F}text\n{output}\n{F}\n"
    p = write_page(text)
    if refused:
        with pytest.raises(paths.DocsError, match=rf"{p}:2: this try/except shows the error"):
            page_blocks(p)
    else:
        assert len(page_blocks(p)) == 1
